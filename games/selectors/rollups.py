"""Reads of the kept totals (``services.rollups`` writes them), and their
recomputation from the rounds for ``manage.py audit_rollups``.

A window of a player's days (a loss limit's period, a statement month) is
read from its day rows: at most a month of them, whatever the history. The
dashboard's hours (``TableHour``) are read by ``selectors.dashboard``.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db.models import BigIntegerField, Case, Count, F, Q, Sum, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, TruncDate, TruncHour

from games.models import PlayerDay, Profile, Round, TableHour
from games.selectors.demo import real_rounds


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    """A player's zone by its stored name; UTC for one the database no longer knows."""
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


@dataclass(frozen=True)
class Totals:
    rounds: int = 0
    staked: int = 0
    returned: int = 0
    open_raise: int = 0

    @property
    def net(self) -> int:
        return self.returned - self.staked

    @property
    def net_loss(self) -> int:
        """What a loss limit counts: stakes (an open raise included) less
        returns, below 0 while the player is ahead."""
        return self.staked + self.open_raise - self.returned


def window_totals(
    player_id: int, windows: Mapping[str, tuple[dt.date, dt.date]]
) -> dict[str, Totals]:
    """Each window's totals (name: first day, the day after the last), void
    rounds left out, in one query over the rows of the widest window."""
    if not windows:
        return {}
    sums = {}
    counted = ~Q(result=PlayerDay.Result.VOID)
    for name, (first, end) in windows.items():
        days = Q(day__gte=first, day__lt=end) & counted
        for column in _COLUMNS:
            sums[f"{name}_{column}"] = Sum(column, filter=days)
    earliest = min(first for first, _end in windows.values())
    found = PlayerDay.objects.filter(player_id=player_id, day__gte=earliest).aggregate(**sums)
    return {
        name: Totals(*(found[f"{name}_{column}"] or 0 for column in _COLUMNS)) for name in windows
    }


_COLUMNS = ("rounds", "staked", "returned", "open_raise")
# A table hour's counted columns, in the order the round's upsert writes them.
HOUR_COLUMNS = ("rounds", "staked", "returned", "seated", *(f"on_{a}" for a in TableHour.AREAS))


def months(player_id: int) -> list[tuple[str, Totals]]:
    """Each month the player played ("YYYY-MM" in their zone), newest first,
    void rounds left out: a few rows per day played, never the rounds."""
    by_month: dict[str, list[int]] = {}
    rows = (
        PlayerDay.objects.filter(player_id=player_id)
        .exclude(result=PlayerDay.Result.VOID)
        .values_list("day", *_COLUMNS)
    )
    for day, *values in rows:
        kept = by_month.setdefault(f"{day:%Y-%m}", [0, 0, 0, 0])
        for i, value in enumerate(values):
            kept[i] += value
    return [(month, Totals(*by_month[month])) for month in sorted(by_month, reverse=True)]


def history_totals(
    player_id: int,
    *,
    game: str = "",
    first: dt.date | None = None,
    end: dt.date | None = None,
    result: str = "",
) -> Totals:
    """The rounds (void ones included), stakes and returns of the player's
    days from ``first`` to before ``end``, of one game and result when given."""
    rows = PlayerDay.objects.filter(player_id=player_id)
    if game:
        rows = rows.filter(game=game)
    if first is not None:
        rows = rows.filter(day__gte=first)
    if end is not None:
        rows = rows.filter(day__lt=end)
    if result:
        rows = rows.filter(result=result)
    found = rows.aggregate(*(Sum(column) for column in _COLUMNS))
    return Totals(*(found[f"{column}__sum"] or 0 for column in _COLUMNS))


# ------------------------------------------------------------------ recomputed


def recomputed_days(player_ids: Iterable[int] | None = None) -> list[PlayerDay]:
    """Every day row as the rounds say it should be (unsaved), players' own
    zones: one aggregate per zone in use."""
    profiles = Profile.objects.all()
    if player_ids is not None:
        profiles = profiles.filter(user_id__in=list(player_ids))
    zones = profiles.values_list("time_zone", flat=True).distinct().order_by()
    counted = ~Q(status=Round.Status.VOID)
    ante = Cast(KT("bets__ante"), BigIntegerField())
    result = Case(
        When(status=Round.Status.OPEN, then=Value(PlayerDay.Result.OPEN)),
        When(status=Round.Status.VOID, then=Value(PlayerDay.Result.VOID)),
        default=F("outcome"),
    )
    found = []
    for name in zones:
        players = profiles.filter(time_zone=name).values("user_id")
        rows = (
            Round.objects.filter(player_id__in=players)
            .annotate(local_day=TruncDate("created_at", tzinfo=zone_named(name)), kept=result)
            .values("player_id", "local_day", "game", "kept")
            .annotate(
                n=Count("id"),
                bet=Sum("total_bet", filter=counted),
                back=Sum("total_return", filter=counted),
                waiting=Sum(ante, filter=Q(status=Round.Status.OPEN)),
            )
            .order_by()
        )
        found += [
            PlayerDay(
                player_id=row["player_id"],
                day=row["local_day"],
                game=row["game"],
                result=row["kept"],
                rounds=row["n"],
                staked=row["bet"] or 0,
                returned=row["back"] or 0,
                open_raise=row["waiting"] or 0,
            )
            for row in rows
        ]
    return found


def recomputed_hours() -> list[TableHour]:
    """Every table hour row as the rounds say it should be (unsaved): demo
    play left out, void rounds nowhere."""
    settled = Q(status=Round.Status.SETTLED)
    stakes = {
        f"on_{area}": Sum(Cast(KT(f"bets__{area}"), BigIntegerField()), filter=settled)
        for area in TableHour.AREAS
    }
    rows = (
        real_rounds(Round.objects.filter(status__in=(Round.Status.SETTLED, Round.Status.OPEN)))
        .annotate(at=TruncHour("created_at", tzinfo=dt.UTC))
        .values("at", "table_id", "version_id", "player_id")
        .annotate(
            n=Count("id", filter=settled),
            bet=Sum("total_bet", filter=settled),
            back=Sum("total_return", filter=settled),
            sat=Count("id"),
            **stakes,
        )
        .order_by()
    )
    return [
        TableHour(
            hour=row["at"],
            table_id=row["table_id"],
            version_id=row["version_id"],
            player_id=row["player_id"],
            rounds=row["n"],
            staked=row["bet"] or 0,
            returned=row["back"] or 0,
            seated=row["sat"],
            **{column: row[column] or 0 for column in stakes},
        )
        for row in rows
    ]


def recomputed_session_nets() -> dict[int, int]:
    """Each profile's session net (by player id) as the rounds say it should be."""
    nets = (
        Round.objects.filter(
            player__profile__session_started_at__isnull=False,
            created_at__gte=F("player__profile__session_started_at"),
        )
        .exclude(status=Round.Status.VOID)
        .values("player_id")
        .annotate(back=Sum("total_return"), bet=Sum("total_bet"))
        .order_by()
    )
    return {row["player_id"]: (row["back"] or 0) - (row["bet"] or 0) for row in nets}


def differences() -> list[str]:
    """Every kept total that is not what the rounds say, in words."""
    wrong: list[str] = []
    want = {_key(d): d for d in recomputed_days()}
    kept = {_key(d): d for d in PlayerDay.objects.all()}
    for key in sorted(want.keys() | kept.keys()):
        has, should = _totals(kept.get(key)), _totals(want.get(key))
        if has != should:
            player, day, game, result = key
            wrong.append(
                f"player {player} day {day} {game} {result}: kept {has}, rounds say {should}"
            )
    want_hours = {_hour_key(h): h for h in recomputed_hours()}
    kept_hours = {_hour_key(h): h for h in TableHour.objects.all()}
    for slot in sorted(want_hours.keys() | kept_hours.keys()):
        counted, right = _hour_counts(kept_hours.get(slot)), _hour_counts(want_hours.get(slot))
        if counted != right:
            hour, table, version, player = slot
            off = "; ".join(
                f"{column} kept {counted[column]}, rounds say {right[column]}"
                for column in HOUR_COLUMNS
                if counted[column] != right[column]
            )
            wrong.append(
                f"table {table} version {version} hour {hour:%Y-%m-%d %H}:00 UTC "
                f"player {player}: {off}"
            )
    nets = recomputed_session_nets()
    for player, net in Profile.objects.values_list("user_id", "session_net").order_by("user_id"):
        if net != nets.get(player, 0):
            wrong.append(
                f"player {player} session net: kept {net}, rounds say {nets.get(player, 0)}"
            )
    return wrong


def _key(row: PlayerDay) -> tuple[int, dt.date, str, str]:
    return (row.player_id, row.day, row.game, row.result)


def _totals(row: PlayerDay | None) -> Totals:
    # A row left at zero (every round of the day voided) says what no row says.
    if row is None:
        return Totals()
    return Totals(row.rounds, row.staked, row.returned, row.open_raise)


def _hour_key(row: TableHour) -> tuple[dt.datetime, int, int, int]:
    return (row.hour, row.table_id, row.version_id, row.player_id)


def _hour_counts(row: TableHour | None) -> dict[str, int]:
    # A row left at zero (every round of the hour voided) says what no row says.
    return {column: getattr(row, column) if row else 0 for column in HOUR_COLUMNS}
