"""The commitment log's shared file of genuine and tampered proofs
(log_cases.json) against the independent reference verifier and the round
page's Python snippet; static/js/verify.js runs the same file under Node
(tests/js/log.test.mjs). Each accepts every genuine case and refuses every
tampered one, and the reference says why in the words a player would read."""

from __future__ import annotations

import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fairness import log_reference as ref
from tests.fairness.log_cases import FORKED, LEAVES, LOG, WITNESS, b64, build, note, path, proof

FILE = Path(__file__).with_name("log_cases.json")
CASES = json.loads(FILE.read_text(encoding="utf-8"))

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
        try:
            if q.get("index", 0) >= size:
                raise KeyError("past the newest checkpoint")
            answer = answers[url.path]()
        except KeyError:
            self.send_response(400)
            self.end_headers()
            return
        body = answer if isinstance(answer, str) else json.dumps(answer)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body.encode())

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
    assert ("consistency with the kept checkpoint", True) in [(n, p) for n, p, _ in results]
    assert newest and "\n13\n" in newest
    assert "witness.casino.local/w1" in results[1][2]
    # Leaves 5-12 rewritten: the kept tree of 8 is not the start of this one.
    FakeLog.leaves = LEAVES[:5] + FORKED[5:13]
    results, newest = ref.check_site(base, kept.read_text())
    failed = {name: detail for name, passed, detail in results if not passed}
    assert list(failed) == ["consistency with the kept checkpoint"]
    assert newest is None
