"""The commitment log's shared file of genuine and tampered proofs
(log_cases.json) against the independent reference verifier and the round
page's Python snippet; static/js/verify.js runs the same file under Node
(tests/js/log.test.mjs). Each accepts every genuine case and refuses every
tampered one, and the reference says why in the words a player would read."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from games import tlog
from games.presenters.fair import snippet_text
from tests.fairness import log_reference as ref
from tests.fairness.log_cases import FORKED, LEAVES, LOG, WITNESS, b64, build, note, path, proof
from tests.fairness.rounds import FILE as ROUNDS_FILE

FILE = Path(__file__).with_name("log_cases.json")
CASES = json.loads(FILE.read_text(encoding="utf-8"))
ROUNDS = json.loads(ROUNDS_FILE.read_text(encoding="utf-8"))["cases"]

# Why the reference refuses each tampered case: a verifier that refused
# everything, or refused for the wrong reason, fails here.
WHY = {
    "wrong root: the log signs a root that is not its tree's": "does not lead to the signed root",
    "wrong signature: the root changed after signing": "signature on the checkpoint does not verify",
    "wrong signature: its last byte changed": "signature on the checkpoint does not verify",
    "signed by another key of the same name": "no signature of the log's key",
    "signed by another key that claims the log's key id": "signature on the checkpoint does not",
    "no signature at all": "no signature",
    "wrong origin: the log's key signs another log's checkpoint": "is of the log 'other.log/x'",
    "the proof is for another tree size than the checkpoint's": "another tree size",
    "a proof for another leaf": "does not lead to the signed root",
    "the right leaf at a wrong index": "does not lead to the signed root",
    "an inclusion proof missing its last hash": "too short",
    "an inclusion proof with an extra hash": "more hashes",
    "an inclusion proof hash cut to 31 bytes": "31 bytes",
    "an inclusion proof hash that is not base64": "not base64",
    "a leaf that is not base64": "not base64",
    "a signature that is not base64": "not base64",
    "a fork: the kept tree of 13 has another root": "the log forked",
    "a fork: the kept tree of 8 is not the start of this one": "does not lead to the newer root",
    "a smaller tree shown as the newer one": "cannot extend",
    "a consistency proof missing its last hash": "too short",
    "a consistency proof with an extra hash": "more hashes",
    "a consistency proof with a changed hash": "is not the start of the newer one",
    "the kept checkpoint signed by another key": "no signature of the log's key",
}
TAMPERED = [c for c in CASES if c["expect"] == "refuse"]
GOOD = [c for c in CASES if c["expect"] == "ok"]


def test_the_file_is_what_the_generator_builds():
    """Write it again with ``python -m tests.fairness.log_cases`` after a change."""
    assert build() == CASES


def test_the_file_holds_every_kind_of_tampering_the_verifiers_must_refuse():
    assert {c["name"] for c in TAMPERED} == set(WHY)
    assert len(GOOD) >= 6
    assert any(c["old_note"] for c in GOOD) and any(c["old_note"] is None for c in GOOD)


@pytest.mark.parametrize("case", GOOD, ids=[c["name"] for c in GOOD])
def test_the_reference_accepts_each_genuine_case(case):
    checkpoint = ref.check_case(case)
    assert (checkpoint.origin, checkpoint.size) == ("casino.local/log", case["size"])


@pytest.mark.parametrize("case", TAMPERED, ids=[c["name"] for c in TAMPERED])
def test_the_reference_refuses_each_tampered_case_and_says_why(case):
    with pytest.raises(ref.Refused, match=WHY[case["name"]]):
        ref.check_case(case)


def core_check(case: dict[str, Any]) -> tlog.Checkpoint:
    """The case as the site's own pure core (games/tlog.py) judges it."""
    key = tlog.parse_verifier_key(case["key"])
    checkpoint = tlog.open_checkpoint(case["note"], key)
    if case["size"] != checkpoint.size:
        raise tlog.LogError("The inclusion proof is for another tree size.")
    leaf = tlog.b64decode(case["leaf_b64"], "the leaf")
    inclusion = [tlog.b64decode(h, "a proof hash") for h in case["inclusion"]]
    tlog.verify_inclusion(
        tlog.leaf_hash(leaf), case["index"], checkpoint.size, inclusion, checkpoint.root
    )
    if case["old_note"] is not None:
        old = tlog.open_checkpoint(case["old_note"], key)
        steps = [tlog.b64decode(h, "a proof hash") for h in case["consistency"]]
        tlog.verify_consistency(old.size, checkpoint.size, old.root, checkpoint.root, steps)
    return checkpoint


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_sites_own_core_judges_each_case_as_the_reference_does(case):
    if case["expect"] == "ok":
        assert core_check(case).size == case["size"]
    else:
        with pytest.raises(tlog.LogError):
            core_check(case)


def test_the_tree_hash_is_rfc_6962s_on_its_published_test_leaves():
    """The roots of the first 1..8 of the RFC 6962 reference leaves, as
    transparency-dev/merkle's testonly constants publish them."""
    leaves = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43"]
    leaves += [bytes(range(0x50, 0x58)), bytes(range(0x60, 0x70))]
    hashes = [ref.leaf_hash(x) for x in leaves]
    assert ref.tree_hash(hashes[:1]).hex().startswith("6e340b9cffb37a98")
    assert ref.tree_hash(hashes[:7]).hex().startswith("ddb89be403809e32")
    assert ref.tree_hash(hashes).hex() == (
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
    )
    assert ref.tree_hash([]) == ref.EMPTY_ROOT


def test_every_proof_of_the_rfcs_recursive_definition_verifies_and_no_bent_one_does():
    """PATH and PROOF (RFC 9162 §2.1.3.1, §2.1.4.1, written recursively in
    log_cases.py) against the iterative verification of §2.1.3.2 and
    §2.1.4.2, for every leaf and every pair of sizes up to 20; each proof with
    one byte changed is refused."""
    rng = random.Random(44)
    hashes = [ref.leaf_hash(x) for x in LEAVES + LEAVES[:7]]
    for n in range(1, len(hashes) + 1):
        root = ref.tree_hash(hashes[:n])
        for i in range(n):
            route = path(i, hashes[:n])
            ref.verify_inclusion(hashes[i], i, n, route, root)
            if route:
                bent = list(route)
                k = rng.randrange(len(bent))
                bent[k] = bytes([bent[k][0] ^ 1]) + bent[k][1:]
                with pytest.raises(ref.Refused):
                    ref.verify_inclusion(hashes[i], i, n, bent, root)
        for m in range(0, n + 1):
            old = ref.tree_hash(hashes[:m])
            steps = proof(m, hashes[:n])
            ref.verify_consistency(m, n, old, root, steps)
            if steps:
                bent = list(steps)
                k = rng.randrange(len(bent))
                bent[k] = bytes([bent[k][0] ^ 1]) + bent[k][1:]
                with pytest.raises(ref.Refused):
                    ref.verify_consistency(m, n, old, root, bent)


def test_the_leaf_is_read_only_in_its_documented_six_lines():
    fields = ref.parse_leaf(LEAVES[0])
    assert fields["nonce"] == "0" and fields["game"] == "baccarat"
    for bad in (
        LEAVES[0].replace(b"nonce 0", b"nonce 00"),
        LEAVES[0].replace(b"game baccarat", b"game poker"),
        LEAVES[0] + b"extra\n",
        LEAVES[0].rstrip(b"\n"),
        LEAVES[0].replace(b"player ", b"player alice"),
    ):
        with pytest.raises(ref.Refused):
            ref.parse_leaf(bad)


def test_tile_paths_are_c2sp_tlog_tiles():
    """The spec's own example: index 1234067 is x001/x234/067; a partial
    tile names its width."""
    assert ref.tile_path(0, 1_234_067, 256) == "/log/tile/0/x001/x234/067"
    assert ref.tile_path(1, 0, 17) == "/log/tile/1/000.p/17"
    assert ref.tile_path("entries", 1000, 256) == "/log/tile/entries/x001/000"
    assert ref.entries_of(b"\x00\x02ab\x00\x00") == [b"ab", b""]
    with pytest.raises(ref.Refused):
        ref.entries_of(b"\x00\x05ab")


def test_the_reference_judges_the_file_from_its_command_line(capsys):
    assert ref.main(["--cases", str(FILE)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert len(said) == len(CASES) and all(line.startswith("PASS ") for line in said)


class FakeLog(BaseHTTPRequestHandler):
    """A site's /log/ endpoints over a list of leaves, as the contract says
    they answer (the site's own endpoints are tested beside their code)."""

    leaves: list[bytes] = LEAVES

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        q = {k: int(v[0]) for k, v in parse_qs(url.query).items() if v[0].isdigit()}
        hashes = [ref.leaf_hash(x) for x in self.leaves]
        size = len(hashes)
        answers = {
            "/log/key": lambda: f"{LOG.vkey()}\n{WITNESS.vkey()}\n",
            "/log/checkpoint": lambda: note(size, self.leaves, LOG, WITNESS),
            "/log/leaf": lambda: {"leaf": b64(self.leaves[q["index"]])},
            "/log/proof/inclusion": lambda: {
                "proof": [b64(h) for h in path(q["index"], hashes[: q["size"]])]
            },
            "/log/proof/consistency": lambda: {
                "proof": [b64(h) for h in proof(q["from"], hashes[: q["to"]])]
            },
        }
        # The first tiles (this log stays under 256 leaves: partial ones).
        answers[f"/log/tile/0/000.p/{size}"] = lambda: b"".join(hashes)
        answers[f"/log/tile/entries/000.p/{size}"] = lambda: b"".join(
            len(x).to_bytes(2, "big") + x for x in self.leaves
        )
        try:
            if q.get("index", 0) >= size:
                raise KeyError("past the newest checkpoint")
            answer = answers[url.path]()
        except KeyError:
            self.send_response(400)
            self.end_headers()
            return
        if isinstance(answer, dict):
            answer = json.dumps(answer)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(answer if isinstance(answer, bytes) else answer.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeLog)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()
    FakeLog.leaves = LEAVES


def test_the_reference_passes_a_site_that_keeps_its_log_and_fails_one_that_forks(site, tmp_path):
    base = f"http://127.0.0.1:{site.server_port}"
    kept = tmp_path / "checkpoint.txt"
    FakeLog.leaves = LEAVES[:8]
    assert ref.main([base, "--keep", str(kept)]) == 0
    assert kept.read_text().startswith("casino.local/log\n8\n")
    FakeLog.leaves = LEAVES  # grown: the kept tree of 8 is its start
    results, newest = ref.check_site(base, kept.read_text())
    assert all(passed for _, passed, _ in results), results
    passed = [(n, p) for n, p, _ in results]
    assert ("consistency with the kept checkpoint", True) in passed and ("tiles", True) in passed
    assert newest and "\n13\n" in newest
    assert "witness.casino.local/w1" in results[1][2]
    # Leaves 5-12 rewritten: the kept tree of 8 is not the start of this one.
    FakeLog.leaves = LEAVES[:5] + FORKED[5:13]
    results, newest = ref.check_site(base, kept.read_text())
    failed = {name: detail for name, passed, detail in results if not passed}
    assert list(failed) == ["consistency with the kept checkpoint"]
    assert newest is None


# --- the round page's Python snippet -------------------------------------------------


def snippet(**log: object) -> str:
    """The round page's snippet for the shared file's genuine coup."""
    (coup,) = [c for c in ROUNDS if c["name"] == "genuine coup"]
    facts = {"server_seed": None, "server_seed_hash": None, "client_seed": None, **coup["round"]}
    return snippet_text(**facts, **log)  # type: ignore[arg-type]


def snippet_functions() -> dict[str, Any]:
    """The snippet's functions, as a player's interpreter defines them."""
    namespace: dict[str, Any] = {"__name__": "verify_round"}
    exec(compile(snippet(), "verify_round.py", "exec"), namespace)  # noqa: S102 (our own program)
    return namespace


SNIPPET = snippet_functions()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_snippet_judges_each_case_of_the_shared_file(case):
    args = [case[k] for k in ("key", "note", "leaf_b64", "index", "size", "inclusion")]
    args += [case["old_note"], case["consistency"]]
    if case["expect"] == "ok":
        fields = SNIPPET["check_proofs"](*args)
        assert str(fields["nonce"]) == ref.parse_leaf(base64.b64decode(case["leaf_b64"]))["nonce"]
    else:
        with pytest.raises(SNIPPET["Refused"]):
            SNIPPET["check_proofs"](*args)


def test_the_snippets_ed25519_is_rfc_8032s():
    """RFC 8032 §7.1, test 2: one byte signed with its secret key."""
    public = bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
    signature = bytes.fromhex(
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
    )
    assert SNIPPET["ed25519_verify"](public, b"\x72", signature)
    assert not SNIPPET["ed25519_verify"](public, b"\x73", signature)
    assert not SNIPPET["ed25519_verify"](public, b"\x72", signature[:-1] + b"\x01")


def run_snippet(text: str, where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=where,
    )


def test_the_snippet_checks_the_rounds_leaf_keeps_the_checkpoint_and_catches_a_fork(site, tmp_path):
    (coup,) = [c for c in ROUNDS if c["name"] == "genuine coup"]
    mine = (
        f"casino-commitment/1\ncommitment {coup['round']['server_seed_hash']}\n"
        f"nonce {coup['round']['nonce']}\ngame baccarat\ntable classic\nplayer {'ab' * 16}\n"
    ).encode()
    text = snippet(
        log_url=f"http://127.0.0.1:{site.server_port}/log", log_key=LOG.vkey(), log_index=4
    )
    FakeLog.leaves = [*LEAVES[:4], mine, *LEAVES[5:8]]
    first = run_snippet(text, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "log: leaf 4 holds this commitment, in the signed tree of 8" in first.stdout
    assert (tmp_path / "casino-log-checkpoint.txt").read_text().startswith("casino.local/log\n8\n")
    FakeLog.leaves = [*LEAVES[:4], mine, *LEAVES[5:13]]
    grown = run_snippet(text, tmp_path)
    assert grown.returncode == 0, grown.stdout
    assert "that tree extends the checkpoint kept" in grown.stdout
    FakeLog.leaves = [*LEAVES[:4], mine, *FORKED[5:13]]  # rewritten after leaf 4
    forked = run_snippet(text, tmp_path)
    assert forked.returncode == 1
    assert "the log forked" in forked.stdout and forked.stdout.strip().endswith("DOES NOT MATCH")
    # Leaf 4 holds another commitment, shown to a player with nothing kept.
    FakeLog.leaves = [*LEAVES[:13]]
    (tmp_path / "new").mkdir()
    other = run_snippet(text, tmp_path / "new")
    assert other.returncode == 1 and "holds another commitment" in other.stdout
