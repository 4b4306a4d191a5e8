"""The witness cosigns the site's checkpoint only when it extends the last
one it cosigned; a forked log (another tree of the same size, a smaller
tree, a proof that does not hold) is refused and the reason said."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client

from commitlog import integrator, witness
from commitlog.models import Cosignature
from games import tlog

LOG = tlog.Signer.from_seed("casino.local/log", bytes(range(32)))


def site_client(client: Client):
    """The witness's HTTP, through the test client: only public endpoints."""

    def fetch(path: str) -> bytes:
        response = client.get(path)
        assert response.status_code == 200, response.content
        return response.content

    def post(path: str, body: bytes) -> bytes:
        response = client.post(path, body, content_type="text/plain")
        assert response.status_code == 200, response.content
        return response.content

    return fetch, post


@pytest.fixture
def registered(tmp_path, settings):
    """A witness whose key the site has registered."""
    path = tmp_path / "witness.json"
    state = witness.load(path, name="witness.example/w1")
    settings.CASINO_LOG_WITNESSES_FILE.write_text(state.signer.verifier.text() + "\n")
    return state, path


def test_it_cosigns_the_sites_checkpoints_and_the_site_serves_the_line(
    client, make_player, registered
):
    state, path = registered
    fetch, post = site_client(client)
    make_player()
    integrator.integrate()
    assert witness.witness_once(state, path, fetch, post, now=1_700_000_000).endswith(" 1 entries")
    for _ in range(3):
        make_player()
    integrator.integrate()
    witness.witness_once(state, path, fetch, post, now=1_700_000_010)  # after a consistency proof
    note = client.get("/log/checkpoint").content.decode()
    keys = client.get("/log/key").content.decode().splitlines()
    log_key, witness_key = (tlog.parse_verifier_key(k) for k in keys)
    checkpoint = tlog.open_checkpoint(note, log_key)
    parsed = tlog.parse_note(note)
    mine = [s for s in parsed.signatures if s.name == witness_key.name]
    assert tlog.verify_cosignature(parsed.body, mine[0], witness_key) == 1_700_000_010
    assert (checkpoint.size, json.loads(path.read_text())["size"]) == (4, 4)


def test_a_cosignature_by_an_unregistered_or_lying_witness_is_not_kept(
    client, make_player, registered
):
    make_player()
    integrator.integrate()
    note = client.get("/log/checkpoint").content.decode()
    stranger = tlog.Signer.from_seed("witness.example/w1", bytes(32), tlog.ALG_COSIGNATURE_V1)
    body = tlog.parse_note(note).body
    forged = note + tlog.cosign(body, stranger, 1).line()
    assert client.post("/log/cosignature", forged, content_type="text/plain").status_code == 400
    state, _path = registered
    other_body = body.replace("\n1\n", "\n2\n")
    wrong = note + tlog.cosign(other_body, state.signer, 1).line()
    answer = client.post("/log/cosignature", wrong, content_type="text/plain")
    assert answer.status_code == 400 and "does not verify" in answer.json()["error"]
    assert not Cosignature.objects.exists()


class ForkedSite:
    """A site that shows the witness one tree, then another."""

    def __init__(self, note: str, proof: list[bytes] | None = None) -> None:
        self.note, self.proof, self.posted = note, proof or [], []

    def fetch(self, path: str) -> bytes:
        if path == "/log/key":
            return (LOG.verifier.text() + "\n").encode()
        if path == "/log/checkpoint":
            return self.note.encode()
        return json.dumps({"proof": [tlog.b64(h) for h in self.proof]}).encode()

    def post(self, path: str, body: bytes) -> bytes:
        self.posted.append(body)
        return b"{}"


def tree(n: int, salt: bytes = b"") -> tuple[list[bytes], str]:
    hashes = [tlog.leaf_hash(salt + i.to_bytes(2, "big")) for i in range(n)]
    root = tlog.root_from_leaf_hashes(hashes)
    return hashes, tlog.sign_checkpoint(tlog.Checkpoint("casino.local/log", n, root), LOG)


@pytest.fixture
def cosigned_five(tmp_path):
    path = tmp_path / "w.json"
    state = witness.load(path, name="witness.example/w1")
    _hashes, note = tree(5)
    site = ForkedSite(note)
    witness.witness_once(state, path, site.fetch, site.post, now=1)
    assert len(site.posted) == 1
    return state, path


@pytest.mark.parametrize(
    ("shown", "why"),
    [
        (lambda: ForkedSite(tree(5, b"other")[1]), "another tree of 5 entries: it forked"),
        (lambda: ForkedSite(tree(4)[1]), "a log never shrinks"),
        (lambda: ForkedSite(tree(8, b"other")[1], [bytes(32)] * 3), "not proven to extend"),
        (
            lambda: ForkedSite(tree(8)[1].replace("\n8\n", "\n9\n")),
            "does not open under the log's key",
        ),
    ],
    ids=["same-size-other-root", "smaller-tree", "bad-consistency-proof", "bad-signature"],
)
def test_it_refuses_a_forked_log_and_says_why(cosigned_five, shown, why):
    state, path = cosigned_five
    site = shown()
    with pytest.raises(witness.Refused, match=why):
        witness.witness_once(state, path, site.fetch, site.post, now=2)
    assert site.posted == []
    assert json.loads(path.read_text())["size"] == 5  # still the tree it cosigned


def test_it_cosigns_a_tree_that_extends_with_a_true_proof(cosigned_five):
    state, path = cosigned_five
    hashes, note = tree(8)
    nodes = {(lv, i): h for lv, i, h in tlog.append_leaves(0, [], hashes)[0]}
    proof = tlog.consistency_proof(5, 8, lambda lv, i: nodes[lv, i])
    site = ForkedSite(note, proof)
    witness.witness_once(state, path, site.fetch, site.post, now=3)
    assert len(site.posted) == 1


def test_the_command_prints_a_registrable_key(tmp_path, capsys):
    call_command("witness", state=tmp_path / "w.json", key=True)
    key = tlog.parse_verifier_key(capsys.readouterr().out.strip())
    assert key.alg == tlog.ALG_COSIGNATURE_V1 and key.name == "witness.local/casino"


def test_the_fair_page_lists_the_keys_the_log_serves(db, client, registered):
    """A player compares the keys on the fair page with /log/key's: the
    log's own and every registered witness's, word for word."""
    served = client.get("/log/key").content.decode().splitlines()
    page = client.get("/fair/").content.decode()
    assert len(served) == 2
    log, witness_key = served
    assert f'<code data-testid="log-key">{log}</code>' in page
    assert f"<code>{witness_key}</code>" in page
