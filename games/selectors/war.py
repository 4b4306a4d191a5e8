"""Reads behind the Casino War table: the player's rounds there, and the
waiting round's deadline the table's socket watches."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User

from games.models import Game, Round, Table


@dataclass(frozen=True)
class TableRounds:
    waiting: Round | None  # the round waiting for a tie decision, if any
    last_settled: Round | None  # what REPEAT repeats


def table_rounds(*, user: User, table: Table) -> TableRounds:
    """The waiting round and the last settled one, in one query: no new round
    starts while one waits, so a waiting round is always the latest."""
    latest = list(
        Round.objects.select_related("version")
        .filter(player=user, table=table, game=Game.WAR)
        .order_by("-id")[:2]
    )
    for rnd in latest:
        rnd.table = table
    waiting = latest[0] if latest and latest[0].status == Round.Status.OPEN else None
    settled = [r for r in latest if r.status == Round.Status.SETTLED]
    if settled or len(latest) < 2:
        return TableRounds(waiting, settled[0] if settled else None)
    return TableRounds(waiting, last_settled(user=user, table=table))


def last_settled(*, user: User, table: Table) -> Round | None:
    return (
        Round.objects.filter(player=user, table=table, game=Game.WAR, status=Round.Status.SETTLED)
        .order_by("-id")
        .first()
    )


def shown_round(*, user: User, table: Table, round_id: int) -> Round | None:
    """One of the player's rounds at this table (the page shows it after a reload)."""
    return Round.objects.filter(pk=round_id, player=user, table=table, game=Game.WAR).first()


def open_round(*, user: User, table: Table) -> Round | None:
    """The player's round at this table still waiting for a decision, if any."""
    return (
        Round.objects.select_related("version", "table")
        .filter(player=user, table=table, game=Game.WAR, status=Round.Status.OPEN)
        .order_by("-id")
        .first()
    )


def has_open_round(*, user: User, table: Table) -> bool:
    return Round.objects.filter(
        player=user, table=table, game=Game.WAR, status=Round.Status.OPEN
    ).exists()


def decision_deadline(*, user_id: int, table_slug: str) -> dt.datetime | None:
    """The deadline of the player's waiting round at this table (for the consumer)."""
    return (
        Round.objects.filter(
            player_id=user_id,
            table__slug=table_slug,
            game=Game.WAR,
            status=Round.Status.OPEN,
        )
        .order_by("-id")
        .values_list("decision_deadline", flat=True)
        .first()
    )
