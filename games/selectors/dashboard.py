"""The operator's numbers: exact RTP and house edge of a paytable (shown live
while it is edited), per-table takings with their theoretical hold, and the
same figures over time (``table_series``: one point per hour or day of a
chosen period) for the dashboard's charts.

Reads only. The odds come from the pure core (``games.baccarat.odds``,
``games.war.odds``); they are exact ``Fraction``s and are turned into
percentages only for display. The takings are read from the kept hours
(``TableHour``, written by each round's transaction: games/services/rollups.py),
a window of hours whatever the table's history, demo play left out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import TruncDay, TruncHour
from django.db.models.functions.datetime import TruncBase
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.baccarat.odds import rtp
from games.models import Table, TableHour, TableVersion
from games.presets import BACCARAT_AREAS, WAR_AREAS, WAR_PAYS
from games.war.odds import exact_edge

# The multipliers an operator edits, per game, in the order they are shown.
PAY_KEYS: dict[str, tuple[str, ...]] = {
    "baccarat": BACCARAT_AREAS,
    "war": tuple(WAR_PAYS),
}
# The areas a player stakes on, each with its own MIN and MAX.
LIMIT_AREAS: dict[str, tuple[str, ...]] = {
    "baccarat": BACCARAT_AREAS,
    "war": WAR_AREAS,
}
# The war "tie in war bonus" is an extra multiple of the ante, so 0 is a
# normal value there; every other multiplier returns the stake included.
EXTRA_PAY_KEYS = frozenset({"war_tie_bonus"})

_CENT = Decimal("0.01")
MULTIPLIER_CEILING = Decimal(100_000)


def percent(value: Fraction | None) -> str:
    """An exact fraction as a percentage with two decimals, rounded half up: "98.94%"."""
    if value is None:
        return ""
    exact = Decimal(value.numerator) * 100 / Decimal(value.denominator)
    return f"{exact.quantize(_CENT, rounding=ROUND_HALF_UP)}%"


@dataclass(frozen=True)
class PayFigure:
    """What one multiplier does to the house, for the table's deck count.

    Baccarat areas have an RTP (return per unit staked, stake included) and
    its house edge. War multipliers all feed the ante's edge, quoted per ante
    for a player who always goes to war (and, beside the ante, one who always
    surrenders); the tie bonus bet has its own RTP.
    """

    key: str
    multiplier: Decimal | None
    rtp: Fraction | None = None
    edge: Fraction | None = None
    surrender_edge: Fraction | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def rtp_percent(self) -> str:
        return percent(self.rtp)

    @property
    def edge_percent(self) -> str:
        return percent(self.edge)

    @property
    def surrender_edge_percent(self) -> str:
        return percent(self.surrender_edge)

    @property
    def warn(self) -> bool:
        return bool(self.warnings)


def parse_multiplier(raw: object) -> Decimal | None:
    """A typed multiplier, or None when it is blank, not a number, negative or
    past what the table form takes (under 100,000: nine digits, four of them
    decimals); a 35-digit one broke the panel's percentages."""
    if raw is None:
        return None
    try:
        value = Decimal(str(raw).strip())
    except (InvalidOperation, ValueError):
        return None
    if not value.is_finite() or value < 0 or value >= MULTIPLIER_CEILING:
        return None
    return value


@lru_cache(maxsize=64)
def _baccarat_rtp(pays: tuple[tuple[str, Decimal], ...], decks: int) -> dict[str, Fraction]:
    # exact_odds is fast (~10 ms) but the live view runs on every keystroke
    # pause and the dashboard once per version: remember recent answers.
    return rtp(dict(pays), decks)


@lru_cache(maxsize=64)
def _war_edge(pays: tuple[tuple[str, Decimal], ...], decks: int) -> dict[str, Fraction]:
    return exact_edge(decks, dict(pays))


def _stake_warning(key: str, multiplier: Decimal | None) -> list[str]:
    if multiplier is None or key in EXTRA_PAY_KEYS or multiplier >= 1:
        return []
    return [
        _("x%(multiplier)s returns less than the stake: a winning bet would lose chips.")
        % {"multiplier": multiplier}
    ]


def _over_warning() -> str:
    return _("RTP at or over %(limit)s: the house loses on this bet in the long run.") % {
        "limit": "100%"
    }


def pay_figures(*, game: str, pays: Mapping[str, object], decks: int) -> list[PayFigure]:
    """The live figures for every multiplier of ``game``'s paytable.

    ``pays`` may hold anything typed into the form; a blank or malformed
    multiplier gets a figure without numbers (and, in War, so do the
    multipliers whose edge depends on it).
    """
    keys = PAY_KEYS[game]
    parsed = {key: parse_multiplier(pays.get(key)) for key in keys}
    figures: list[PayFigure] = []
    if game == "baccarat":
        known = tuple((k, v) for k, v in parsed.items() if v is not None)
        rtps = _baccarat_rtp(known, decks)
        for key in keys:
            m = parsed[key]
            if m is None:
                figures.append(PayFigure(key, None, warnings=(_("Enter a multiplier."),)))
                continue
            value = rtps[key]
            warnings = _stake_warning(key, m)
            if value >= 1:
                warnings.append(_over_warning())
            figures.append(PayFigure(key, m, rtp=value, edge=1 - value, warnings=tuple(warnings)))
        return figures
    # War: the ante's edge depends on ante, raise and the war tie bonus together.
    if any(v is None for v in parsed.values()):
        for key in keys:
            missing = () if parsed[key] is not None else (_("Enter a multiplier."),)
            figures.append(PayFigure(key, parsed[key], warnings=missing))
        return figures
    edges = _war_edge(tuple(parsed.items()), decks)
    for key in keys:
        m = parsed[key]
        warnings = _stake_warning(key, m)
        if key == "tie_bet":
            edge = edges["tie_bet"]
            if edge <= 0:
                warnings.append(_over_warning())
            figures.append(PayFigure(key, m, rtp=1 - edge, edge=edge, warnings=tuple(warnings)))
            continue
        if edges["war"] <= 0 or (key == "ante" and edges["surrender"] <= 0):
            warnings.append(_over_warning())
        figures.append(
            PayFigure(
                key,
                m,
                edge=edges["war"],
                surrender_edge=edges["surrender"] if key == "ante" else None,
                warnings=tuple(warnings),
            )
        )
    return figures


def expected_loss(*, version: TableVersion, stakes: Mapping[str, int]) -> Fraction:
    """Chips (units) the house expects to keep from ``stakes`` under ``version``.

    Baccarat: each area's stake x (1 - RTP of that area). War: the ante at the
    edge of always going to war, the tie bonus bet at its own edge.
    """
    game = version.table.game
    pays = tuple(
        (k, v)
        for k, v in ((k, parse_multiplier(v)) for k, v in version.pays.items())
        if v is not None
    )
    loss = Fraction(0)
    if game == "baccarat":
        rtps = _baccarat_rtp(pays, version.decks)
        for area, stake in stakes.items():
            if stake and area in rtps:
                loss += stake * (1 - rtps[area])
        return loss
    edges = _war_edge(pays, version.decks)
    loss += (stakes.get("ante") or 0) * edges["war"]
    loss += (stakes.get("tie_bet") or 0) * edges["tie_bet"]
    return loss


class Holds:
    """Actual and theoretical hold of a stretch of play (``bet``,
    ``returned`` and ``theoretical_loss`` in units), for the takings table
    and the chart points alike."""

    bet: int
    returned: int
    theoretical_loss: Fraction

    @property
    def actual_hold(self) -> Fraction | None:
        return 1 - Fraction(self.returned, self.bet) if self.bet else None

    @property
    def theoretical_hold(self) -> Fraction | None:
        return self.theoretical_loss / self.bet if self.bet else None

    @property
    def actual_hold_percent(self) -> str:
        return percent(self.actual_hold)

    @property
    def theoretical_hold_percent(self) -> str:
        return percent(self.theoretical_hold)


@dataclass(frozen=True)
class TableTakings(Holds):
    """One table's rounds over a period: amounts in units."""

    table: Table
    rounds: int = 0
    bet: int = 0
    returned: int = 0
    players: int = 0
    theoretical_loss: Fraction = Fraction(0)

    @property
    def net(self) -> int:
        return self.bet - self.returned


def takings(*, since: dt.datetime, table: Table | None = None) -> list[TableTakings]:
    """Every table's (or the one given) settled rounds from the UTC hour of
    ``since`` on: counts, sums, actual hold, theoretical hold and distinct
    players (who sat in: settled or open rounds)."""
    figures = _figures(_hours(table).filter(hour__gte=_hour_of(since)), ("table_id",))
    return [TableTakings(table=t, **figures.get((t.pk,), {})) for t in _tables(table)]


def _figures(hours: QuerySet[TableHour], by: tuple[str, ...]) -> dict[tuple[Any, ...], Any]:
    """The takings' figures of kept hours grouped ``by`` (the table, or the
    table and a bucket), as keyword arguments of ``TableTakings`` or
    ``SeriesPoint``: the sums grouped per version too in the database (its
    stakes by area weigh the version's theoretical hold), and the distinct
    players apart, two grouped queries whatever the table's history."""
    stakes = {area: Sum(f"on_{area}") for area in TableHour.AREAS}
    by_version = list(
        hours.values(*by, "version_id").annotate(
            n=Sum("rounds"), bet=Sum("staked"), ret=Sum("returned"), **stakes
        )
    )
    versions = TableVersion.objects.select_related("table").in_bulk(
        {row["version_id"] for row in by_version}
    )
    out: dict[tuple[Any, ...], Any] = {}

    def at(row: Mapping[str, Any]) -> dict[str, Any]:
        zero = {"rounds": 0, "bet": 0, "returned": 0, "players": 0, "theoretical_loss": Fraction()}
        return out.setdefault(tuple(row[key] for key in by), zero)

    for row in by_version:
        sums = at(row)
        sums["rounds"] += row["n"] or 0
        sums["bet"] += row["bet"] or 0
        sums["returned"] += row["ret"] or 0
        sums["theoretical_loss"] += expected_loss(
            version=versions[row["version_id"]],
            stakes={area: row[area] or 0 for area in TableHour.AREAS},
        )
    seated = hours.filter(seated__gt=0).values(*by).annotate(p=Count("player_id", distinct=True))
    for row in seated:
        at(row)["players"] = row["p"]
    return out


def _hour_of(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)


def _hours(table: Table | None) -> QuerySet[TableHour]:
    return TableHour.objects.all() if table is None else TableHour.objects.filter(table=table)


def _tables(table: Table | None) -> QuerySet[Table]:
    tables = Table.objects.order_by("position", "id")
    return tables if table is None else tables.filter(pk=table.pk)


@dataclass(frozen=True)
class LivePaytable:
    """The live RTP panel's content for what is typed in the table form."""

    game: str
    decks: int | None
    figures: list[PayFigure]
    error: str = ""

    @property
    def warnings(self) -> list[tuple[str, str]]:
        return [(f.key, w) for f in self.figures for w in f.warnings]

    @property
    def war_edges(self) -> PayFigure | None:
        """The ante's figure in War (edges going to war and surrendering)."""
        if self.game != "war":
            return None
        return next((f for f in self.figures if f.key == "ante" and f.edge is not None), None)


def live_paytable(*, game: str, decks: object, pays: Mapping[str, object]) -> LivePaytable:
    """Figures for a paytable as typed: ``decks`` and ``pays`` are raw form
    values; nothing here raises on bad input, it explains it instead."""
    try:
        deck_count = int(str(decks).strip())
    except (TypeError, ValueError):
        deck_count = 0
    if not 1 <= deck_count <= 8:
        figures = [PayFigure(key, parse_multiplier(pays.get(key))) for key in PAY_KEYS[game]]
        return LivePaytable(game, None, figures, _("Decks must be a whole number from 1 to 8."))
    return LivePaytable(game, deck_count, pay_figures(game=game, pays=pays, decks=deck_count))


# --- the figures over time, for the dashboard's charts ----------------------------


@dataclass(frozen=True)
class Period:
    """A choice of the dashboard: how far back, cut into hours or days."""

    key: str
    label: str | Promise
    buckets: int
    unit: str  # "hour" | "day"


PERIODS: dict[str, Period] = {
    p.key: p
    for p in (
        Period("24h", gettext_lazy("Last 24 hours"), 24, "hour"),
        Period("7d", gettext_lazy("Last 7 days"), 7, "day"),
        Period("30d", gettext_lazy("Last 30 days"), 30, "day"),
    )
}
DEFAULT_PERIOD = "24h"


@dataclass(frozen=True)
class SeriesPoint(Holds):
    """One hour or day of one table: settled rounds and their money, players
    who sat in (settled or open rounds), amounts in units."""

    start: dt.datetime
    end: dt.datetime
    hours: Fraction  # the hours the rate is over: the bucket's, or today's so far
    rounds: int = 0
    bet: int = 0
    returned: int = 0
    players: int = 0
    theoretical_loss: Fraction = Fraction(0)

    @property
    def rounds_per_hour(self) -> Fraction:
        return Fraction(self.rounds) / self.hours if self.hours else Fraction(0)

    @property
    def rounds_per_hour_text(self) -> str:
        return f"{Decimal(self.rounds_per_hour.numerator) / self.rounds_per_hour.denominator:.1f}"


@dataclass(frozen=True)
class TableSeries:
    table: Table
    points: list[SeriesPoint]


def bucket_starts(period: Period, now: dt.datetime) -> list[dt.datetime]:
    """The buckets' start times, oldest first; the last one holds ``now``.

    Hours are whole UTC hours; days are the site time zone's calendar days
    (a day across a clock change is 23 or 25 hours long)."""
    if period.unit == "hour":
        top = now.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
        return [top - dt.timedelta(hours=period.buckets - 1 - i) for i in range(period.buckets)]
    today = timezone.localdate(now)
    days = [today - dt.timedelta(days=period.buckets - 1 - i) for i in range(period.buckets)]
    return [timezone.make_aware(dt.datetime.combine(day, dt.time.min)) for day in days]


def _bucket_end(period: Period, start: dt.datetime) -> dt.datetime:
    if period.unit == "hour":
        return start + dt.timedelta(hours=1)
    next_day = timezone.localdate(start) + dt.timedelta(days=1)
    return timezone.make_aware(dt.datetime.combine(next_day, dt.time.min))


def table_series(
    *, period: str = DEFAULT_PERIOD, now: dt.datetime | None = None, table: Table | None = None
) -> list[TableSeries]:
    """Per table (or the one given), one point per hour or day of ``period``.

    Grouped in the database by table, bucket and (for the theoretical hold)
    paytable version over the kept hours, as ``takings`` does for a whole
    period. A day is the site zone's: whole UTC hours while that zone is a
    whole number of hours from UTC (settings use UTC)."""
    chosen = PERIODS[period]
    now = now or timezone.now()
    starts = bucket_starts(chosen, now)
    ends = [_bucket_end(chosen, start) for start in starts]
    bucket: TruncBase
    if chosen.unit == "hour":
        bucket = TruncHour("hour", tzinfo=dt.UTC)
    else:
        bucket = TruncDay("hour", tzinfo=timezone.get_current_timezone())
    hours = _hours(table).filter(hour__gte=_hour_of(starts[0]), hour__lt=ends[-1])
    figures = _figures(hours.annotate(bucket=bucket), ("table_id", "bucket"))
    out = []
    for t in _tables(table):
        points = []
        for start, end in zip(starts, ends, strict=True):
            # A rate over the time the bucket has run (today so far), at
            # least an hour, so the first minutes of a day do not read as a rush.
            elapsed = max(min(end, now) - start, min(end - start, dt.timedelta(hours=1)))
            points.append(
                SeriesPoint(
                    start=start,
                    end=end,
                    hours=Fraction(round(elapsed.total_seconds()), 3600),
                    **figures.get((t.pk, start), {}),
                )
            )
        out.append(TableSeries(table=t, points=points))
    return out


def period_takings(
    *, period: str = DEFAULT_PERIOD, now: dt.datetime | None = None, table: Table | None = None
) -> list[TableTakings]:
    """``takings`` over the same range as ``table_series``'s buckets, of
    every table or the one given."""
    chosen = PERIODS[period]
    now = now or timezone.now()
    return takings(since=bucket_starts(chosen, now)[0], table=table)
