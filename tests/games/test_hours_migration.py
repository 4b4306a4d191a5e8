"""The migration that brings in the tables' kept hours (0013) fills them from
the rounds already played: the rows the round's pipeline would have kept,
demo play left out, void rounds nowhere, an open War tie a player sat in."""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games.models import TableHour
from games.selectors.rollups import differences
from games.services import demo, repair
from tests.stored_results import settled_coup


def migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def test_it_fills_the_hours_the_rounds_say(transactional_db, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    visitor = demo.start_demo()
    now = timezone.now()
    settled_coup(alice, bets={"banker": 1_000, "tie": 100}, client_seed="m")
    settled_coup(
        alice, bets={"player": 500}, client_seed="m", created_at=now - dt.timedelta(days=2)
    )
    settled_coup(bob, bets={"player": 2_000}, client_seed="m", slug="baccarat-social")
    settled_coup(bob, bets={"banker": 300}, client_seed="m", status="open")
    void, _ = settled_coup(bob, bets={"banker": 700}, client_seed="m")
    repair.refund(repair.Problem(void.pk, "bob", "checked by a test", -700))
    settled_coup(visitor, bets={"banker": 1_000}, client_seed="m")
    kept = sorted(tuple(row.values())[1:] for row in TableHour.objects.values())
    assert len(kept) == 4  # Alice's two hours, Bob's hours at two tables; no demo row

    try:
        migrate([("games", "0012_kept_totals")])
        migrate([("games", "0013_dashboard_hours")])
        assert sorted(tuple(row.values())[1:] for row in TableHour.objects.values()) == kept
        assert differences() == []
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
