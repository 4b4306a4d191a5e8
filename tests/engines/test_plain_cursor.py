"""The cursor a round's plain statements run on (games.rows.plain_cursor):
without Django's cursor wrapper on PostgreSQL, yet in the same transaction,
with Django's errors, refused in a broken transaction, and still counted
when a test counts queries (so the query-count bounds stay honest).

Runs on whatever database the suite has (the engine stage: PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Wallet
from games.rows import plain_cursor
from games.services import rounds

pytestmark = [pytest.mark.engines, pytest.mark.django_db]


def test_a_duplicate_row_raises_djangos_integrity_error_and_rolls_back(make_player):
    """The slip key's race is caught as Django's IntegrityError
    (rounds.place_round); nothing of the failed block stays."""
    player = make_player(chips=10)
    wallet = Wallet.objects.get(user=player)
    table = connection.ops.quote_name(Wallet._meta.db_table)
    with pytest.raises(IntegrityError), transaction.atomic():
        with plain_cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET balance = 0 WHERE id = %s", [wallet.pk])  # noqa: S608
        with plain_cursor() as cursor:  # a second wallet for the same player
            cursor.execute(
                f"INSERT INTO {table} (user_id, balance, updated_at) VALUES (%s, 1, %s)",  # noqa: S608
                [player.pk, timezone.now()],
            )
    wallet.refresh_from_db()
    assert wallet.balance == 1_000


def test_a_broken_transaction_refuses_the_next_statement(make_player):
    player = make_player(chips=10)
    with transaction.atomic():
        connection.needs_rollback = True
        with pytest.raises(transaction.TransactionManagementError):
            rounds.lock_wallet(player)


def test_its_statements_are_counted_when_queries_are_watched(make_player):
    player = make_player(chips=10)
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        locked = rounds.lock_wallet(player)
    assert locked.balance == 1_000
    assert any("games_wallet" in q["sql"] and "user_id" in q["sql"] for q in captured)


def test_a_bad_statement_is_djangos_database_error():
    with pytest.raises(DatabaseError), transaction.atomic(), plain_cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM games_wallet")
