"""A round's writes (wallet.post_round): the profile's next seed, the round,
the chips and the ledger rows, stored together or not at all. On
PostgreSQL they are one statement; elsewhere one after another, with the
same rows.

Runs on whatever database the suite has (the engine stage: PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.errors import InsufficientChips
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.sealing import TOKEN_PREFIX
from games.selectors.rollups import differences
from games.services import baccarat, rounds
from games.services.wallet import Posting, post_round

pytestmark = [pytest.mark.engines, pytest.mark.django_db]

CHIP = 100


def _table() -> Table:
    return Table.objects.get(slug="baccarat-classic")


def _stored_seed(profile: Profile) -> str:
    table = connection.ops.quote_name(Profile._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT next_server_seed FROM {table} WHERE id = %s", [profile.pk])  # noqa: S608
        return cursor.fetchone()[0]


def test_a_round_stores_its_seed_its_chips_and_its_ledger_rows_in_order(make_player):
    player = make_player(chips=1_000)
    before = Profile.objects.get(user=player)
    placed = baccarat.play(
        user=player,
        table=_table(),
        bets={"player": 10 * CHIP, "tie": 10 * CHIP, "banker_pair": 10 * CHIP},
        slip_key="statement-1",
    )
    rnd = Round.objects.get(pk=placed.round.pk)
    assert rnd.balance_before == 100_000
    assert rnd.total_bet == 30 * CHIP

    # Every posting is a ledger row of this round, debits first, each with
    # the balance after it, ending at the wallet's balance.
    entries = list(LedgerEntry.objects.filter(round=rnd).order_by("id"))
    kinds = [e.kind for e in entries]
    assert kinds[:3] == [LedgerEntry.Kind.BET] * 3
    assert all(k == LedgerEntry.Kind.PAYOUT for k in kinds[3:])
    running = rnd.balance_before
    for entry in entries:
        running += entry.amount
        assert entry.balance_after == running
        assert entry.wallet_id == player.wallet.pk
    assert -sum(e.amount for e in entries if e.amount < 0) == rnd.total_bet
    assert sum(e.amount for e in entries if e.amount > 0) == rnd.total_return
    assert Wallet.objects.get(user=player).balance == running == rnd.balance_after == placed.balance

    # The seed used is the one committed to before; the next one is new,
    # and stored only sealed.
    after = Profile.objects.get(user=player)
    assert rnd.server_seed == before.next_server_seed
    assert rnd.nonce == before.nonce
    assert after.nonce == before.nonce + 1
    assert after.next_server_seed != before.next_server_seed
    assert _stored_seed(after).startswith(TOKEN_PREFIX)


def test_a_debit_the_wallet_cannot_cover_stores_nothing(make_player):
    """Had the balance changed under the lock (it cannot), the UPDATE still
    refuses: no round, no ledger row, no chips and no seed moved."""
    player = make_player(chips=50)
    first = baccarat.play(
        user=player, table=_table(), bets={"player": 1 * CHIP}, slip_key="statement-2"
    ).round
    wallet = Wallet.objects.get(user=player)
    profile = Profile.objects.get(user=player)
    rounds_before = Round.objects.count()
    entries_before = LedgerEntry.objects.count()

    again = Round.objects.get(pk=first.pk)
    again.pk = None
    again._state.adding = True
    again.slip_key = "statement-3"
    again.seq = first.seq + 1
    profile.next_server_seed = "ab" * 32
    profile.nonce += 1
    with pytest.raises(InsufficientChips), transaction.atomic():
        post_round(
            wallet_id=wallet.pk,
            balance=wallet.balance + 1,  # what a stale read would claim
            postings=[Posting(LedgerEntry.Kind.BET, -(wallet.balance + 1), "baccarat player")],
            round=again,
            with_round=rounds.seeds_update(profile, game="baccarat", table="baccarat-classic"),
        )

    assert Round.objects.count() == rounds_before
    assert not Round.objects.filter(slip_key="statement-3").exists()
    assert LedgerEntry.objects.count() == entries_before
    assert Wallet.objects.get(user=player).balance == wallet.balance
    stored = Profile.objects.get(user=player)
    assert stored.nonce == profile.nonce - 1
    assert stored.next_server_seed != "ab" * 32


def test_on_postgresql_a_rounds_writes_are_one_statement(make_player):
    if connection.vendor != "postgresql":
        pytest.skip("data-modifying WITH is PostgreSQL's: elsewhere the writes go one by one")
    player = make_player(chips=100)
    table = _table()
    with CaptureQueriesContext(connection) as captured:
        baccarat.play(user=player, table=table, bets={"banker": 5 * CHIP}, slip_key="statement-4")
    writes = [
        q["sql"]
        for q in captured
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "WITH"))
    ]
    assert len(writes) == 1, writes
    assert "games_ledgerentry" in writes[0] and "games_round" in writes[0]
    # The player's day and the table's hour are kept by the same statement, and right.
    assert "games_playerday" in writes[0] and "games_tablehour" in writes[0]
    assert differences() == []
