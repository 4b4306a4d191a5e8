"""Reads behind the baccarat roads: a bounded window of a player's latest
rounds at a table, laid out by ``games.baccarat.roads``.

The screen only ever shows the latest columns, so only the latest rounds are
read: one ``LIMIT`` query on the ``(player, table, -seq)`` index, never a
count or a scan of the whole history. A player with 100,000 rounds costs the
same as one with 100.

The window starts on a bead-plate column boundary (``seq - 1`` a multiple of
6), so a round keeps its row in the bead plate while the window moves on;
the window moves a whole column at a time. The big road of the window is
laid out from the window's first round; it is computed over several times
more rounds than it shows, so the columns on screen are far from that start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.contrib.auth.models import User

from games.baccarat import roads as road_core
from games.models import Round, Table

ROWS = road_core.ROWS

# The table screen: bead plate and big road side by side, phone friendly.
TABLE_ROUNDS = 120  # 20 bead-plate columns read
TABLE_BEAD_COLS = 12
TABLE_BIG_COLS = 24
# The details view: larger roads and the derived roads.
DETAIL_ROUNDS = 360
DETAIL_BEAD_COLS = 20
DETAIL_BIG_COLS = 40
DETAIL_DERIVED_COLS = 30
# The score history: the panel beside the table, and the details view.
HISTORY_ROUNDS = 20
DETAIL_HISTORY_ROUNDS = 60
LAST_N = 60


class RoadRound(NamedTuple):
    """What the roads and the score history read from a stored round."""

    seq: int
    winner: str
    player_pair: bool
    banker_pair: bool
    player_total: int
    banker_total: int


@dataclass(frozen=True)
class Road:
    """One road cut to its latest ``cols`` columns (cells re-numbered from 0)."""

    cells: list[Any]
    cols: int


@dataclass(frozen=True)
class ScoreLine:
    seq: int
    winner: str
    player_total: int
    banker_total: int
    player_pair: bool
    banker_pair: bool


@dataclass(frozen=True)
class RoadWindow:
    rounds: int  # rounds in the window (not the player's whole history)
    bead_plate: Road
    big_road: Road
    percentages: dict[str, int]
    history: list[ScoreLine]  # the latest rounds' totals, newest first
    last_n: int = LAST_N
    derived: dict[str, Road] = field(default_factory=dict)
    ask: dict[str, dict[str, Any]] = field(default_factory=dict)


def recent_rounds(*, user: User, table: Table, limit: int) -> list[RoadRound]:
    """At most ``limit`` latest rounds (oldest first), starting on a bead column.

    ``limit`` must be a multiple of 6.
    """
    if limit % ROWS:
        raise ValueError("the window must be whole bead-plate columns")
    rows = list(
        Round.objects.filter(player=user, table=table)
        .order_by("-seq")
        .values_list(
            "seq",
            "winner",
            "player_pair",
            "banker_pair",
            "detail__player_total",
            "detail__banker_total",
        )[:limit]
    )
    if not rows:
        return []
    last = rows[0][0]
    # The first seq of the column holding the latest round, then whole columns back.
    start = last - (last - 1) % ROWS - (limit - ROWS)
    return [
        RoadRound(seq, winner, pp, bp, int(pt or 0), int(bt or 0))
        for seq, winner, pp, bp, pt, bt in reversed(rows)
        if seq >= start and winner
    ]


def _history(rounds: Sequence[RoadRound], limit: int) -> list[ScoreLine]:
    return [
        ScoreLine(r.seq, r.winner, r.player_total, r.banker_total, r.player_pair, r.banker_pair)
        for r in reversed(rounds[-limit:])
    ]


def _cut(cells: Sequence[Any], cols: int) -> Road:
    """The latest ``cols`` columns of a road, re-numbered from column 0."""
    if not cells:
        return Road(cells=[], cols=cols)
    last = max(cell.col for cell in cells)
    offset = max(0, last - cols + 1)
    if not offset:
        return Road(cells=list(cells), cols=cols)
    return Road(
        cells=[cell._replace(col=cell.col - offset) for cell in cells if cell.col >= offset],
        cols=cols,
    )


def table_roads(*, user: User, table: Table) -> RoadWindow:
    """Bead plate, big road and LAST 60 GAMES for the table screen."""
    rounds = recent_rounds(user=user, table=table, limit=TABLE_ROUNDS)
    return RoadWindow(
        rounds=len(rounds),
        bead_plate=_cut(road_core.bead_plate(rounds), TABLE_BEAD_COLS),
        big_road=_cut(road_core.big_road(rounds), TABLE_BIG_COLS),
        percentages=road_core.last_n_percentages(rounds, LAST_N),
        history=_history(rounds, HISTORY_ROUNDS),
    )


def detail_roads(*, user: User, table: Table) -> RoadWindow:
    """Every road, larger, with the ask-PLAYER / ask-BANKER previews."""
    rounds = recent_rounds(user=user, table=table, limit=DETAIL_ROUNDS)
    roads = road_core.all_roads(rounds)
    ask = {}
    if rounds:
        ask = {side: road_core.ask(rounds, side) for side in ("player", "banker")}
    return RoadWindow(
        rounds=len(rounds),
        bead_plate=_cut(roads["bead_plate"], DETAIL_BEAD_COLS),
        big_road=_cut(roads["big_road"], DETAIL_BIG_COLS),
        percentages=road_core.last_n_percentages(rounds, LAST_N),
        history=_history(rounds, DETAIL_HISTORY_ROUNDS),
        derived={
            name: _cut(roads[name], DETAIL_DERIVED_COLS)
            for name in ("big_eye_boy", "small_road", "cockroach_pig")
        },
        ask=ask,
    )


def latest_round(*, user: User, table: Table) -> Round | None:
    """The player's last round at the table (what the board shows on arrival)."""
    return Round.objects.filter(player=user, table=table).order_by("-seq").first()
