"""The log's public endpoints, read as a player's verifier reads them: every
proof they give checks against the signed checkpoint with the pure core;
forged or huge indexes and sizes, and malformed tiles, get a 400 in words."""

from __future__ import annotations

import base64

import pytest
from django.test import Client

from commitlog import integrator
from commitlog.models import Leaf
from games import tlog
from games.models import Round, Table
from games.services import baccarat


def b64(text: str) -> bytes:
    return base64.b64decode(text)


@pytest.fixture
def log_of(make_player):
    """A log of ``n`` leaves (one per new account), integrated and signed."""

    def make(n: int) -> tlog.Checkpoint:
        for _ in range(n):
            make_player()
        integrator.integrate()
        return opened(Client())

    return make


def opened(client: Client) -> tlog.Checkpoint:
    key = tlog.parse_verifier_key(client.get("/log/key").content.decode().splitlines()[0])
    response = client.get("/log/checkpoint")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    return tlog.open_checkpoint(response.content.decode(), key)


def test_every_leafs_inclusion_proof_checks_against_the_signed_checkpoint(client, log_of):
    checkpoint = log_of(5)
    assert checkpoint.size == 5
    for index in range(5):
        data = b64(client.get(f"/log/leaf?index={index}").json()["leaf"])
        proof = client.get(f"/log/proof/inclusion?index={index}&size=5").json()["proof"]
        tlog.verify_inclusion(
            tlog.leaf_hash(data), index, 5, [b64(p) for p in proof], checkpoint.root
        )


def test_a_later_checkpoint_proves_it_extends_an_earlier_one(client, log_of, make_player):
    old = log_of(3)
    for _ in range(4):
        make_player()
    integrator.integrate()
    new = opened(client)
    proof = client.get(f"/log/proof/consistency?from={old.size}&to={new.size}").json()["proof"]
    tlog.verify_consistency(old.size, new.size, old.root, new.root, [b64(p) for p in proof])


@pytest.mark.parametrize(
    "url",
    [
        "/log/leaf?index=3",  # past the newest checkpoint
        "/log/leaf?index=-1",
        "/log/leaf?index=1e3",
        "/log/leaf?index=" + "9" * 400,  # a huge index
        "/log/leaf",
        "/log/proof/inclusion?index=0&size=4",  # a size past the checkpoint
        "/log/proof/inclusion?index=3&size=3",  # an index outside the tree it names
        "/log/proof/inclusion?index=18446744073709551615&size=3",
        "/log/proof/consistency?from=2&to=1",
        "/log/proof/consistency?from=0&to=3",
        "/log/proof/consistency?from=1&to=9",
        "/log/tile/0/001",  # a full tile not there yet
        "/log/tile/0/000.p/4",  # wider than the tree
        "/log/tile/0/000.p/0",
        "/log/tile/0/000.p/07",
        "/log/tile/64/000",
        "/log/tile/0/1",
        "/log/tile/x/000",
        "/log/tile/entries/000.p/256",
    ],
)
def test_forged_indexes_sizes_and_tiles_are_refused_in_words(client, log_of, url):
    log_of(3)
    response = client.get(url)
    assert response.status_code == 400
    assert response.json()["error"]


def test_tiles_are_the_c2sp_ones_and_full_ones_are_cached_for_good(client, log_of):
    log_of(3)
    leaves = [bytes(d) for d in Leaf.objects.order_by("leaf_index").values_list("data", flat=True)]
    tile = client.get("/log/tile/0/000.p/3")
    assert tile.status_code == 200 and tile["Content-Type"] == "application/octet-stream"
    assert tile.content == b"".join(tlog.leaf_hash(d) for d in leaves)
    assert "immutable" not in tile["Cache-Control"]
    bundle = client.get("/log/tile/entries/000.p/3").content
    assert bundle == tlog.entry_bundle(leaves)


def test_a_full_tile_is_immutable(client, make_player, settings):
    hashes = [tlog.leaf_hash(i.to_bytes(2, "big")) for i in range(256)]
    nodes, _peaks = tlog.append_leaves(0, [], hashes)
    from commitlog.models import Checkpoint, LogState, Node  # noqa: PLC0415

    Node.objects.bulk_create([Node(level=lv, index=i, hash=h) for lv, i, h in nodes])
    LogState.objects.update_or_create(pk=1, defaults={"size": 256})
    Checkpoint.objects.create(size=256, root=tlog.root_from_leaf_hashes(hashes), note="-")
    tile = client.get("/log/tile/0/000")
    assert tile.content == b"".join(hashes)
    assert tile["Cache-Control"] == "public, max-age=31536000, immutable"
    level1 = client.get("/log/tile/1/000.p/1")
    assert level1.content == tlog.root_from_leaf_hashes(hashes)


def test_the_round_page_names_its_leaf(client, make_player):
    user = make_player(chips=100)
    table = Table.objects.get(slug="baccarat-classic")
    rnd = baccarat.place_bet(user=user, table=table, bets={"banker": 1000}, slip_key="k")
    client.force_login(user)
    page = client.get(f"/history/round/{rnd.pk}/")
    assert page.context["log_index"] is None  # logged, not yet integrated
    integrator.integrate()
    page = client.get(f"/history/round/{rnd.pk}/")
    index = page.context["log_index"]
    data = b64(page.context["log_leaf_b64"])
    assert f"commitment {Round.objects.get(pk=rnd.pk).server_seed_hash}\n".encode() in data
    assert b64(client.get(f"/log/leaf?index={index}").json()["leaf"]) == data


def test_the_log_answers_without_an_account_and_takes_no_other_method(client, log_of):
    log_of(1)
    assert client.get("/log/checkpoint").status_code == 200
    assert client.post("/log/checkpoint").status_code == 405
    assert client.post("/log/leaf?index=0").status_code == 405
