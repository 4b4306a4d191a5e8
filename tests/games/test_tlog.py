"""The commitment log's pure core against RFC 9162's published proofs, against
the tree recomputed from its definition for every size up to 40, and its
signed notes and cosignatures against C2SP's formats."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from games import tlog

VECTORS = json.loads((Path(__file__).parent / "data" / "merkle_vectors.json").read_text())

# RFC 6962's test leaves and the roots of their first 1..8 (RFC 9162 keeps the tree).
LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def _b(text: str) -> bytes:
    return base64.b64decode(text)


class Nodes(dict):
    def __call__(self, level: int, index: int) -> bytes:
        return self[level, index]


def _stored(hashes: list[bytes]) -> Nodes:
    """Every complete node, as the site keeps them, grown one leaf at a time."""
    nodes = Nodes()
    peaks: list[bytes] = []
    for size, h in enumerate(hashes):
        new, peaks = tlog.append_leaves(size, peaks, [h])
        nodes.update({(level, index): v for level, index, v in new})
    return nodes


def test_it_builds_the_rfc_roots() -> None:
    hashes = [tlog.leaf_hash(leaf) for leaf in LEAVES]
    for n in range(1, 9):
        assert tlog.root_from_leaf_hashes(hashes[:n]).hex() == ROOTS[n - 1]
    assert tlog.root_from_leaf_hashes([]) == hashlib.sha256(b"").digest()


@pytest.mark.parametrize("case", VECTORS["inclusion"], ids=lambda c: c["file"])
def test_it_verifies_the_published_inclusion_proofs(case: dict) -> None:
    args = (
        _b(case["leafHash"]),
        case["leafIdx"],
        case["treeSize"],
        [_b(p) for p in case["proof"] or []],
        _b(case["root"]),
    )
    if case["wantErr"]:
        with pytest.raises(tlog.LogError):
            tlog.verify_inclusion(*args)
    else:
        tlog.verify_inclusion(*args)


@pytest.mark.parametrize("case", VECTORS["consistency"], ids=lambda c: c["file"])
def test_it_verifies_the_published_consistency_proofs(case: dict) -> None:
    args = (
        case["size1"],
        case["size2"],
        _b(case["root1"]),
        _b(case["root2"]),
        [_b(p) for p in case["proof"] or []],
    )
    if case["wantErr"]:
        with pytest.raises(tlog.LogError):
            tlog.verify_consistency(*args)
    else:
        tlog.verify_consistency(*args)


def test_it_builds_the_published_proofs_from_kept_nodes() -> None:
    nodes = _stored([tlog.leaf_hash(leaf) for leaf in LEAVES])
    for case in VECTORS["inclusion"]:
        if case["desc"] == "happy path":
            got = tlog.inclusion_proof(case["leafIdx"], case["treeSize"], nodes)
            assert [tlog.b64(h) for h in got] == (case["proof"] or [])
    for case in VECTORS["consistency"]:
        if case["desc"] == "happy path" and case["size1"] > 0:
            got = tlog.consistency_proof(case["size1"], case["size2"], nodes)
            assert [tlog.b64(h) for h in got] == (case["proof"] or [])


def test_every_proof_of_every_tree_up_to_40_leaves_holds_and_a_changed_hash_fails() -> None:
    hashes = [tlog.leaf_hash(i.to_bytes(2, "big")) for i in range(40)]
    nodes = _stored(hashes)
    roots = [tlog.root_from_leaf_hashes(hashes[:n]) for n in range(41)]
    peaks: list[bytes] = []
    for n in range(1, 41):
        _new, peaks = tlog.append_leaves(n - 1, peaks, [hashes[n - 1]])
        assert tlog.root_from_peaks(peaks) == roots[n]
        assert tlog.subtree_hash(nodes, 0, n) == roots[n]
        for i in range(n):
            proof = tlog.inclusion_proof(i, n, nodes)
            tlog.verify_inclusion(hashes[i], i, n, proof, roots[n])
            other = (i + 1) % n
            if other != i:
                with pytest.raises(tlog.LogError):
                    tlog.verify_inclusion(hashes[other], i, n, proof, roots[n])
        for m in range(1, n + 1):
            proof = tlog.consistency_proof(m, n, nodes)
            tlog.verify_consistency(m, n, roots[m], roots[n], proof)
            if 0 < m < n:
                forged = bytes(32)
                with pytest.raises(tlog.LogError):
                    tlog.verify_consistency(m, n, forged, roots[n], proof)
                with pytest.raises(tlog.LogError):
                    tlog.verify_consistency(m, n, roots[m], roots[n], proof[:-1])
                with pytest.raises(tlog.LogError):
                    tlog.verify_consistency(m, n, roots[m], roots[n], [*proof, roots[m]])


def test_a_smaller_tree_never_extends_a_larger_one() -> None:
    with pytest.raises(tlog.LogError, match="went back"):
        tlog.verify_consistency(5, 4, bytes(32), bytes(32), [])


def test_an_index_past_the_tree_is_refused_in_plain_words() -> None:
    with pytest.raises(tlog.LogError, match="not in a tree of 3 entries"):
        tlog.inclusion_proof(3, 3, Nodes())
    with pytest.raises(tlog.LogError, match="not in a tree"):
        tlog.verify_inclusion(bytes(32), 10**30, 3, [], bytes(32))


# ------------------------------------------------------------------ notes

LOG = tlog.Signer.from_seed("casino.local/log", bytes(range(32)))
WITNESS = tlog.Signer.from_seed("witness.example/w1", bytes(32), tlog.ALG_COSIGNATURE_V1)


def test_the_checkpoint_is_a_signed_note_in_the_c2sp_layout() -> None:
    cp = tlog.Checkpoint("casino.local/log", 8, bytes.fromhex(ROOTS[7]))
    note = tlog.sign_checkpoint(cp, LOG)
    lines = note.split("\n")
    assert lines[:4] == [
        "casino.local/log",
        "8",
        "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
        "",
    ]
    assert lines[4].startswith("\u2014 casino.local/log ")
    assert len(_b(lines[4].split(" ")[2])) == 4 + 64
    assert note.endswith("\n")
    assert tlog.open_checkpoint(note, LOG.verifier) == cp


def test_a_verifier_key_round_trips_and_its_id_is_the_c2sp_one() -> None:
    key = LOG.verifier
    text = key.text()
    assert tlog.parse_verifier_key(text) == key
    public = key.public
    want = hashlib.sha256(b"casino.local/log\n\x01" + public).digest()[:4]
    assert text.split("+")[1] == want.hex()
    name, kid, blob = text.split("+", 2)
    with pytest.raises(tlog.LogError, match="does not match"):
        tlog.parse_verifier_key(f"other.example+{kid}+{blob}")
    with pytest.raises(tlog.LogError):
        tlog.parse_verifier_key("casino.local/log+0000+AA==")


def test_a_tampered_checkpoint_is_refused() -> None:
    cp = tlog.Checkpoint("casino.local/log", 8, bytes.fromhex(ROOTS[7]))
    note = tlog.sign_checkpoint(cp, LOG)
    forged = note.replace("\n8\n", "\n9\n")
    with pytest.raises(tlog.LogError, match="does not verify"):
        tlog.open_checkpoint(forged, LOG.verifier)
    other = tlog.Signer.from_seed("casino.local/log", bytes([7]) * 32)
    with pytest.raises(tlog.LogError, match="not signed by"):
        tlog.open_checkpoint(tlog.sign_checkpoint(cp, other), LOG.verifier)
    elsewhere = tlog.sign_checkpoint(tlog.Checkpoint("other.example", 8, cp.root), LOG)
    with pytest.raises(tlog.LogError, match="not 'casino.local/log'|is for"):
        tlog.open_checkpoint(elsewhere, LOG.verifier)
    with pytest.raises(tlog.LogError, match="does not verify"):
        tlog.open_checkpoint(note.replace("XcnaeacG", "Xc*aeacG"), LOG.verifier)
    malformed = tlog.sign_note(cp.body().replace("XcnaeacG", "Xc*aeacG"), LOG)
    with pytest.raises(tlog.LogError, match="base64"):
        tlog.open_checkpoint(malformed, LOG.verifier)


def test_a_cosignature_is_cosignature_v1_over_the_body() -> None:
    body = tlog.Checkpoint("casino.local/log", 8, bytes.fromhex(ROOTS[7])).body()
    sig = tlog.cosign(body, WITNESS, 1679315147)
    pub = WITNESS.verifier.public
    assert sig.key_id == hashlib.sha256(b"witness.example/w1\n\x04" + pub).digest()[:4]
    message = b"cosignature/v1\ntime 1679315147\n" + body.encode()
    assert WITNESS.verifier.verify(sig.payload[8:], message)
    assert tlog.verify_cosignature(body, sig, WITNESS.verifier) == 1679315147
    with pytest.raises(tlog.LogError, match="does not verify"):
        tlog.verify_cosignature(body.replace("\n8\n", "\n9\n"), sig, WITNESS.verifier)
    # A note with the log's signature and the witness's line still opens under the log's key.
    note = tlog.sign_note(body, LOG)
    cosigned = note + sig.line()
    assert tlog.open_checkpoint(cosigned, LOG.verifier).size == 8
    assert tlog.parse_verifier_key(WITNESS.verifier.text()).alg == tlog.ALG_COSIGNATURE_V1


def test_tile_paths_are_the_c2sp_ones() -> None:
    assert tlog.tile_path(0, 1234067) == "0/x001/x234/067"
    assert tlog.tile_path(1, 5, 17) == "1/005.p/17"
    assert tlog.tile_path("entries", 0) == "entries/000"
    assert tlog.parse_tile_index(["x001", "x234", "067"]) == 1234067
    with pytest.raises(tlog.LogError):
        tlog.parse_tile_index(["1234"])
    assert tlog.entry_bundle([b"ab", b""]) == b"\x00\x02ab\x00\x00"
