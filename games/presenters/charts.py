"""The dashboard's charts, drawn as SVG by a template
(``admin/games/dashboard.html``): no charting library, no script.

A chart is a grid of equal slots, one per hour or day; a line or bar sits in
the middle of its slot. Numbers arrive as floats for drawing and as the
text the figures table prints, so a point's tooltip and the table's cell
read the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from django.utils import timezone
from django.utils.translation import gettext as _

from games.selectors.dashboard import SeriesPoint, TableSeries

WIDTH = 640
HEIGHT = 180
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 10, 26
BAR_SHARE = 0.7  # of a slot's width


@dataclass(frozen=True)
class Datum:
    """One slot's value: ``value`` None draws nothing (a gap in a line)."""

    label: str
    value: float | None
    text: str


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    label: str
    text: str
    height: float = 0.0  # bars: from y down to the zero line
    left: float = 0.0  # bars: the bar's left edge


@dataclass(frozen=True)
class Series:
    name: str
    css: str
    marks: list[Mark]
    segments: list[str] = field(default_factory=list)  # polyline "x,y x,y" runs


@dataclass(frozen=True)
class Chart:
    title: str
    kind: str  # "line" | "bar"
    series: list[Series]
    y_ticks: list[tuple[float, str]]
    x_ticks: list[tuple[float, str]]
    zero_y: float
    slot: float
    bar_width: float
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    top: int = TOP
    bottom_edge: int = HEIGHT - BOTTOM


def nice_step(span: float, ticks: int = 4) -> float:
    """A step of 1, 2 or 5 times a power of ten giving about ``ticks`` steps."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _tick_text(value: float, step: float, unit: str) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}{unit}"


def make_chart(
    *,
    title: str,
    kind: str,
    series: Sequence[tuple[str, str, Sequence[Datum]]],
    unit: str = "",
    x_every: int = 1,
) -> Chart:
    """Lay out ``series`` (name, css class, one Datum per slot) on one grid.

    The y axis always shows zero and rounds out to whole ticks; ``x_every``
    labels every n-th slot (counted from the last, which is "now")."""
    values = [d.value for _, _, data in series for d in data if d.value is not None]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high = low + 1
    step = nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    slots = max((len(data) for _, _, data in series), default=0) or 1
    slot = plot_w / slots

    def x_of(i: int) -> float:
        return round(LEFT + (i + 0.5) * slot, 1)

    def y_of(v: float) -> float:
        return round(TOP + (high - v) / (high - low) * plot_h, 1)

    zero = y_of(0.0)
    laid = []
    for name, css, data in series:
        marks: list[Mark] = []
        segments: list[str] = []
        run: list[str] = []
        for i, d in enumerate(data):
            if d.value is None:
                if run:
                    segments.append(" ".join(run))
                run = []
                continue
            y = y_of(d.value)
            marks.append(
                Mark(
                    x=x_of(i),
                    y=min(y, zero),
                    label=d.label,
                    text=d.text,
                    height=round(abs(zero - y), 1),
                    left=round(x_of(i) - slot * BAR_SHARE / 2, 1),
                )
            )
            run.append(f"{x_of(i)},{y}")
        if run:
            segments.append(" ".join(run))
        laid.append(Series(name, css, marks, segments))
    ticks = []
    n = round((high - low) / step)
    for k in range(n + 1):
        v = low + k * step
        ticks.append((y_of(v), _tick_text(v, step, unit)))
    labels = series[0][2] if series else []
    x_ticks = [
        (x_of(i), d.label) for i, d in enumerate(labels) if (len(labels) - 1 - i) % x_every == 0
    ]
    return Chart(
        title=title,
        kind=kind,
        series=laid,
        y_ticks=ticks,
        x_ticks=x_ticks,
        zero_y=zero,
        slot=round(slot, 1),
        bar_width=round(slot * BAR_SHARE, 1),
    )


# --- the dashboard's three charts per table ------------------------------------------


@dataclass(frozen=True)
class TableCharts:
    """One table's charts and the figures they draw, row by row."""

    series: TableSeries
    hold: Chart
    rate: Chart
    players: Chart
    rows: list[tuple[str, SeriesPoint]]  # (slot label, its figures)


def _percent_value(value: Fraction | None) -> float | None:
    return None if value is None else float(value * 100)


def slot_label(point: SeriesPoint, unit: str) -> str:
    local = timezone.localtime(point.start)
    return local.strftime("%H:00") if unit == "hour" else local.strftime("%m-%d")


def table_charts(series: TableSeries, *, unit: str) -> TableCharts:
    points = series.points
    labels = [slot_label(p, unit) for p in points]
    x_every = 3 if unit == "hour" else (1 if len(points) <= 7 else 5)
    hold = make_chart(
        title=_("Hold: actual against theoretical"),
        kind="line",
        unit="%",
        x_every=x_every,
        series=[
            (
                _("Theoretical hold"),
                "theoretical",
                [
                    Datum(lbl, _percent_value(p.theoretical_hold), p.theoretical_hold_percent)
                    for lbl, p in zip(labels, points, strict=True)
                ],
            ),
            (
                _("Actual hold"),
                "actual",
                [
                    Datum(lbl, _percent_value(p.actual_hold), p.actual_hold_percent)
                    for lbl, p in zip(labels, points, strict=True)
                ],
            ),
        ],
    )
    rate = make_chart(
        title=_("Rounds per hour"),
        kind="bar",
        x_every=x_every,
        series=[
            (
                _("Rounds per hour"),
                "rate",
                [
                    Datum(lbl, float(p.rounds_per_hour), p.rounds_per_hour_text)
                    for lbl, p in zip(labels, points, strict=True)
                ],
            )
        ],
    )
    players = make_chart(
        title=_("Active players"),
        kind="bar",
        x_every=x_every,
        series=[
            (
                _("Active players"),
                "players",
                [
                    Datum(lbl, float(p.players), str(p.players))
                    for lbl, p in zip(labels, points, strict=True)
                ],
            )
        ],
    )
    return TableCharts(series, hold, rate, players, list(zip(labels, points, strict=True)))
