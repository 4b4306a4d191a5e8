"""Concurrent BETs on PostgreSQL, where row locks (not SQLite's single
writer) keep the wallet right. Run by `make test-engines` with DATABASE_URL."""

from __future__ import annotations

import os

import pytest

from games.errors import GameError
from games.models import LedgerEntry, Round, Table, Wallet
from games.services.baccarat import place_bet
from games.services.tables import save_table, table_snapshot
from tests.threads import at_once

# Decided at collection, before any database is set up: a skipped
# transactional test would still flush the SQLite test database.
pytestmark = [
    pytest.mark.engines,
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="needs PostgreSQL (DATABASE_URL); make test-engines runs it",
    ),
    pytest.mark.django_db(transaction=True),
]


def losing_table() -> Table:
    """A table whose TIE pays nothing: every TIE bet is lost, so the number
    of bets a balance covers does not depend on the cards."""
    table = Table.objects.get(slug="baccarat-social")
    before = table_snapshot(table)
    table.pays = {**table.pays, "tie": "0"}
    return save_table(table=table, actor=None, before=before)


def test_fifty_concurrent_bets_with_a_balance_for_ten_accept_exactly_ten(make_player):
    table = losing_table()
    user = make_player(chips=100)  # covers ten 10-chip bets

    results = at_once(
        50, lambda i: place_bet(user=user, table=table, bets={"tie": 1_000}, slip_key=f"slip-{i}")
    )

    accepted = [r for r in results if isinstance(r, Round)]
    refused = [r for r in results if isinstance(r, GameError)]
    unexpected = [r for r in results if not isinstance(r, Round | GameError)]
    assert unexpected == []
    assert len(accepted) == 10
    assert len(refused) == 40
    assert Wallet.objects.get(user=user).balance == 0
    assert Round.objects.filter(player=user).count() == 10
    assert LedgerEntry.objects.filter(wallet__user=user, kind="bet").count() == 10


def test_the_same_bet_replayed_twenty_times_in_parallel_is_charged_once(make_player):
    table = Table.objects.get(slug="baccarat-classic")
    user = make_player(chips=1_000)

    results = at_once(
        20,
        lambda i: place_bet(user=user, table=table, bets={"banker": 5_000}, slip_key="same-slip"),
    )

    assert all(isinstance(r, Round) for r in results), results
    assert len({r.pk for r in results}) == 1
    rnd = Round.objects.get(player=user)
    assert LedgerEntry.objects.filter(wallet__user=user, kind="bet").count() == 1
    assert Wallet.objects.get(user=user).balance == 100_000 - 5_000 + rnd.total_return
