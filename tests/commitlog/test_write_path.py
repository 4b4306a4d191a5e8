"""Every commitment is a leaf of the public log before it is shown: a new
account's first, and each round's next; the integrator places them with no
gap and signs the tree; a leaf that cannot be stored refuses the round."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from commitlog import integrator
from commitlog.keys import log_key, pseudonym
from commitlog.models import Checkpoint, Leaf, LogState
from games import tlog
from games.cards import server_seed_hash
from games.models import Profile, Round, Table, Wallet
from games.services import baccarat
from tests.threads import at_once

CHIP = 100


@pytest.fixture
def classic(db) -> Table:
    return Table.objects.get(slug="baccarat-classic")


def shown_commitment(user) -> str:
    """The hash the table shows for the player's next round."""
    profile = Profile.objects.get(user=user)
    return server_seed_hash(bytes.fromhex(profile.next_server_seed))


def leaf_of(commitment: str) -> Leaf:
    return Leaf.objects.get(commitment=commitment)


def test_it_logs_a_new_accounts_first_commitment(make_player):
    user = make_player()
    leaf = leaf_of(shown_commitment(user))
    assert bytes(leaf.data).decode() == (
        "casino-commitment/1\n"
        f"commitment {shown_commitment(user)}\n"
        "nonce 0\ngame -\ntable -\n"
        f"player {pseudonym(user.pk)}\n"
    )
    assert user.username not in bytes(leaf.data).decode()
    assert leaf.leaf_index is None  # until the integrator places it


def test_each_round_logs_the_commitment_of_the_next(make_player, classic):
    user = make_player(chips=1_000)
    before = shown_commitment(user)
    rnd = baccarat.place_bet(user=user, table=classic, bets={"banker": 10 * CHIP}, slip_key="a")
    assert rnd.server_seed_hash == before  # played on a logged commitment
    leaf = leaf_of(shown_commitment(user))
    lines = bytes(leaf.data).decode().splitlines()
    assert lines[2:5] == ["nonce 1", "game baccarat", "table baccarat-classic"]
    assert Leaf.objects.filter(leaf_index__isnull=True).count() == 2


def test_a_round_whose_leaf_cannot_be_stored_is_refused_and_charges_nothing(make_player, classic):
    user = make_player(chips=1_000)
    shown = shown_commitment(user)
    with connection.cursor() as cursor:  # the log's table is gone: every leaf insert fails
        cursor.execute("ALTER TABLE commitlog_leaf RENAME TO commitlog_leaf_away")
    with pytest.raises(Exception, match="commitlog_leaf"):
        baccarat.place_bet(user=user, table=classic, bets={"banker": 10 * CHIP}, slip_key="b")
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE commitlog_leaf_away RENAME TO commitlog_leaf")
    assert Wallet.objects.get(user=user).balance == 1_000 * CHIP
    assert not Round.objects.filter(player=user).exists()
    assert shown_commitment(user) == shown  # the unlogged next seed was never kept


def test_the_integrator_places_leaves_without_a_gap_and_signs_the_tree(make_player, classic):
    users = [make_player(chips=1_000) for _ in range(3)]
    for n, user in enumerate(users):
        baccarat.place_bet(user=user, table=classic, bets={"player": CHIP * 10}, slip_key=f"s{n}")
    checkpoint = integrator.integrate()
    assert checkpoint is not None
    leaves = list(Leaf.objects.order_by("leaf_index").values_list("leaf_index", "data"))
    assert [i for i, _ in leaves] == list(range(6))
    opened = tlog.open_checkpoint(checkpoint.note, log_key())
    assert opened.size == 6
    assert opened.root == tlog.root_from_leaf_hashes([tlog.leaf_hash(bytes(d)) for _, d in leaves])
    assert integrator.integrate() is None  # nothing pending: no new checkpoint
    baccarat.place_bet(user=users[0], table=classic, bets={"player": CHIP * 10}, slip_key="t")
    assert integrator.integrate().size == 7
    call_command("audit_log")


def test_the_audit_notices_a_rewritten_leaf(make_player):
    for _ in range(3):
        make_player()
    integrator.integrate()
    leaf = Leaf.objects.get(leaf_index=1)
    leaf.data = bytes(leaf.data).replace(b"nonce 0", b"nonce 9")
    leaf.save(update_fields=["data"])
    with pytest.raises(CommandError, match="Leaf 1 was rewritten"):
        call_command("audit_log")


@pytest.mark.engines
@pytest.mark.django_db(transaction=True)
def test_two_integrators_at_once_make_one_tree_without_a_gap(make_player):
    for _ in range(40):
        make_player()

    def integrate(_: int) -> None:
        for _ in range(8):
            integrator.integrate(batch=3)

    assert at_once(2, integrate, seconds=60) == [None, None]
    indexes = sorted(Leaf.objects.values_list("leaf_index", flat=True))
    assert indexes == list(range(40))
    assert LogState.objects.get(pk=1).size == 40
    sizes = list(Checkpoint.objects.order_by("size").values_list("size", flat=True))
    assert sizes[-1] == 40 and len(sizes) == len(set(sizes))
    call_command("audit_log")
