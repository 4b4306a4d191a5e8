"""The kept totals: a round's share of its player's day and session and of
its table's hour, written by the same transaction that stores or changes
the round.

Three totals, so no page, no bet and no operator's figure sums rounds:

- ``PlayerDay``: per player, day in the player's own time zone, game and
  result (win, lose, push, open, void), the rounds, stakes, returns and
  open War raises. A loss limit's period, the play-safe page, the statement
  and the history's totals read at most a month of days of these rows
  (``selectors.rollups``); a void round counts as a round, not as money.
- ``Profile.session_net``: returns less stakes of the rounds created since
  the session started (``session_started_at``); a login starts it at 0.
- ``TableHour``: per table, paytable version, UTC hour and player, the
  settled rounds, their stakes (per area) and returns, and the rounds sat
  in (settled or waiting): the operator dashboard's figures
  (``selectors.dashboard``) read a window of hours. Demo play is left out.

Every change to a round moves its share: ``place_round`` adds a new round's,
a War decision swaps the open round's for the settled one's, a repair's void
takes it away. A round's day is its ``created_at``'s date in the player's
zone, its hour the ``created_at``'s UTC hour. A change of zone rebuilds the
player's days (``rebuild_days``): the only write that reads the player's
rounds, made from the play-safe page (which refuses it while a loss limit
is set). ``manage.py audit_rollups``
recomputes everything from the rounds and names any difference.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Model

from games.models import PlayerDay, Profile, Round, TableHour
from games.rows import plain_cursor
from games.selectors.rollups import (
    HOUR_COLUMNS,
    Totals,
    recomputed_days,
    recomputed_hours,
    recomputed_session_nets,
    zone_named,
)


@dataclass(frozen=True)
class AtTable:
    """What one round adds to its table's hour row (of its version and
    player): a settled round counts with its money and stakes per area
    (``TableHour.AREAS``), a War tie waiting for its decision only as a
    round sat in, a void round not at all."""

    rounds: int = 0
    staked: int = 0
    returned: int = 0
    seated: int = 0
    on_areas: tuple[int, ...] = (0,) * len(TableHour.AREAS)

    def minus(self, other: AtTable) -> AtTable:
        return AtTable(
            rounds=self.rounds - other.rounds,
            staked=self.staked - other.staked,
            returned=self.returned - other.returned,
            seated=self.seated - other.seated,
            on_areas=tuple(a - b for a, b in zip(self.on_areas, other.on_areas, strict=True)),
        )

    def negated(self) -> AtTable:
        return AtTable().minus(self)


@dataclass(frozen=True, kw_only=True)
class Share(Totals):
    """What one round adds to its day's row (the row of its game and
    result), to its session's net and to its table's hour."""

    game: str
    result: str  # win, lose, push; open: a War tie waiting; void: refunded
    rounds: int = 1
    at_table: AtTable = field(default_factory=AtTable)

    def negated(self) -> Share:
        return replace(
            self,
            rounds=-self.rounds,
            staked=-self.staked,
            returned=-self.returned,
            open_raise=-self.open_raise,
            at_table=self.at_table.negated(),
        )


def share(rnd: Round) -> Share:
    """A round's share as it stands: a void round counts as a round, not as
    money (every bet was refunded); a War tie waiting for its decision counts
    its ante as the raise it may stake."""
    if rnd.status == Round.Status.VOID:
        return Share(game=rnd.game, result=VOID)
    if rnd.status == Round.Status.OPEN:
        raise_ = int(rnd.bets.get("ante", 0))
        return Share(
            game=rnd.game,
            result=OPEN,
            staked=rnd.total_bet,
            returned=rnd.total_return,
            open_raise=raise_,
            at_table=AtTable(seated=1),
        )
    at_table = AtTable(
        rounds=1,
        staked=rnd.total_bet,
        returned=rnd.total_return,
        seated=1,
        on_areas=tuple(int(rnd.bets.get(area, 0)) for area in TableHour.AREAS),
    )
    return Share(
        game=rnd.game,
        result=rnd.outcome,
        staked=rnd.total_bet,
        returned=rnd.total_return,
        at_table=at_table,
    )


OPEN, VOID = "open", "void"

Statement = tuple[str, list[Any]]


def record(rnd: Round, *, before: Share | None, profile: Profile | None = None) -> None:
    """Move a stored round's totals from ``before`` (its ``share`` before the
    change; None: a round just stored) to what it is now (a War decision, a
    void), in the transaction that changed it. ``profile`` is the player's
    when the caller has it (its zone and demo flag are read otherwise)."""
    after = share(rnd)
    if after == before:
        return
    if profile is None:
        profile = Profile.objects.only("time_zone", "demo").get(user_id=rnd.player_id)
    statements = [_day_upsert(rnd, after, profile)]
    at_table = after.at_table
    net = after.net
    if before is not None:
        statements.append(_day_upsert(rnd, before.negated(), profile))
        at_table = at_table.minus(before.at_table)
        net -= before.net
    if at_table != AtTable() and not profile.demo:
        statements.append(_hour_upsert(rnd, at_table))
    if net:
        table = connection.ops.quote_name(Profile._meta.db_table)
        term, values = session_term(rnd, net)
        statements.append(
            (f"UPDATE {table} SET {term} WHERE user_id = %s", [*values, rnd.player_id])  # noqa: S608 - names are ours
        )
    for sql, values in statements:
        with plain_cursor() as cursor:
            cursor.execute(sql, values)


def new_round_statements(rnd: Round, profile: Profile) -> list[Statement]:
    """What a new round adds to its player's day and (unless it is demo
    play) its table's hour, as statements the round's own
    (``wallet.post_round``) runs; its session's share goes in the profile's
    UPDATE (``session_term``)."""
    counted = share(rnd)
    statements = [_day_upsert(rnd, counted, profile)]
    if not profile.demo:
        statements.append(_hour_upsert(rnd, counted.at_table))
    return statements


def session_term(rnd: Round, net: int) -> Statement:
    """The SET term of a profile UPDATE that moves the session's net by
    ``net`` when the round belongs to the session in force: created at or
    after its start (a login in between starts a new session at 0, without
    the round)."""
    return (
        "session_net = session_net + CASE WHEN session_started_at <= %s THEN %s ELSE 0 END",
        [connection.ops.adapt_datetimefield_value(rnd.created_at), net],
    )


def _day_upsert(rnd: Round, change: Share, profile: Profile) -> Statement:
    """One upsert of the row of the round's day, game and result."""
    day = rnd.created_at.astimezone(zone_named(profile.time_zone)).date()
    key = {
        "player_id": rnd.player_id,
        "day": connection.ops.adapt_datefield_value(day),
        "game": change.game,
        "result": change.result,
    }
    counts = {
        "rounds": change.rounds,
        "staked": change.staked,
        "returned": change.returned,
        "open_raise": change.open_raise,
    }
    return _adding_upsert(PlayerDay, key, counts)


def _hour_upsert(rnd: Round, change: AtTable) -> Statement:
    """One upsert of the row of the round's UTC hour, table, version and player."""
    hour = rnd.created_at.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
    key = {
        "hour": connection.ops.adapt_datetimefield_value(hour),
        "table_id": rnd.table_id,
        "version_id": rnd.version_id,
        "player_id": rnd.player_id,
    }
    values = [change.rounds, change.staked, change.returned, change.seated, *change.on_areas]
    return _adding_upsert(TableHour, key, dict(zip(HOUR_COLUMNS, values, strict=True)))


def _adding_upsert(model: type[Model], key: dict[str, Any], counts: dict[str, int]) -> Statement:
    """The INSERT of ``model``'s row at ``key`` (its unique columns) with
    ``counts``, or the ``counts`` added to the row already there: one
    statement, on PostgreSQL and SQLite alike."""
    table = connection.ops.quote_name(model._meta.db_table)
    columns = [*key, *counts]
    sums = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in counts)
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) "  # noqa: S608 - names are ours
        f"VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sums}"
    )
    return (sql, [*key.values(), *counts.values()])


def rebuild_days(*, user: User) -> None:
    """The player's day rows again from their rounds, in the zone the profile
    has now (a change of zone moves every local midnight). The caller holds
    the profile's lock; the player's rounds take it too, so none is missed."""
    PlayerDay.objects.filter(player=user).delete()
    PlayerDay.objects.bulk_create(recomputed_days(player_ids=[user.pk]), batch_size=500)


@transaction.atomic
def rebuild_all() -> None:
    """Every kept total again from the rounds (``audit_rollups --rebuild``,
    and rounds stored in bulk beside the pipeline). Run with the site
    stopped: a round committing meanwhile could be counted twice or missed."""
    PlayerDay.objects.all().delete()
    PlayerDay.objects.bulk_create(recomputed_days(), batch_size=1_000)
    TableHour.objects.all().delete()
    TableHour.objects.bulk_create(recomputed_hours(), batch_size=1_000)
    Profile.objects.exclude(session_net=0).update(session_net=0)
    for player_id, net in recomputed_session_nets().items():
        Profile.objects.filter(user_id=player_id).update(session_net=net)
