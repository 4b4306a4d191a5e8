"""Reads behind the baccarat roads: a bounded window of a player's latest
rounds at a table, laid out by ``games.baccarat.roads``.

The screen only ever shows the latest columns, so only the latest rounds are
read: one ``LIMIT`` query on the ``(player, table, -seq)`` index, never a
count or a scan of the whole history. A player with 100,000 rounds costs the
same as one with 100.

The table screen shows all five roads and, hidden until "Ask P" / "Ask B"
is pressed, the cell each road would add for one more PLAYER or BANKER win.
Each road is cut to its latest columns over the road *and* those two cells,
so an ask cell always lies inside the grid shown, in the same coordinates
as the road (when the next win would open a column past the window, the
window has already moved on by one column).

The window starts on a bead-plate column boundary (``seq - 1`` a multiple of
6), so a round keeps its row in the bead plate while the window moves on;
the window moves a whole column at a time. The big road of the window is
laid out from the window's first round; it is computed over several times
more rounds than it shows, so the columns on screen are far from that start.
"""

from __future__ import annotations

import datetime as dt
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from games.baccarat import roads as road_core
from games.models import Coup, Round, Table
from games.rows import plain_cursor

ROWS = road_core.ROWS

# The table screen: the five roads beside the felt (scaled to its width).
TABLE_ROUNDS = 120  # 20 bead-plate columns read
TABLE_BEAD_COLS = 12
TABLE_BIG_COLS = 24
TABLE_EYE_COLS = 30
TABLE_SMALL_COLS = 15  # small road and cockroach pig, side by side
TABLE_COLS = {
    "bead_plate": TABLE_BEAD_COLS,
    "big_road": TABLE_BIG_COLS,
    "big_eye_boy": TABLE_EYE_COLS,
    "small_road": TABLE_SMALL_COLS,
    "cockroach_pig": TABLE_SMALL_COLS,
}
SIDES = ("player", "banker")
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
    # side -> road name -> the cell one more win of that side would add, in
    # the cut road's coordinates (None: that road would get no mark).
    ask: dict[str, dict[str, Any]] = field(default_factory=dict)


# A stored round as the roads read it: (seq, winner, player_pair,
# banker_pair, player_total, banker_total), the totals as text or numbers.
Row = tuple[Any, ...]


def _latest_rows(*, player_id: int, table_id: int, limit: int) -> tuple[Row, ...]:
    """The player's ``limit`` latest rounds at the table, newest first.

    Plain SQL (as ``services.rounds.lock_wallet``): this runs at every round's
    end, and building and compiling the ORM's query each time cost about
    twice the statement itself. ``->>`` reads a total as text on PostgreSQL
    and as a number on SQLite (3.38+); both read as ints below.
    """
    rounds = connection.ops.quote_name(Round._meta.db_table)
    with plain_cursor() as cursor:
        cursor.execute(
            "SELECT seq, winner, player_pair, banker_pair,"  # noqa: S608 - names are ours
            " detail ->> 'player_total', detail ->> 'banker_total'"
            f" FROM {rounds} WHERE player_id = %s AND table_id = %s"
            " ORDER BY seq DESC LIMIT %s",
            [player_id, table_id, limit],
        )
        return tuple(cursor.fetchall())


def _from_rows(rows: Sequence[Row], limit: int) -> list[RoadRound]:
    """The window of ``rows`` (newest first): oldest first, from a bead column."""
    if limit % ROWS:
        raise ValueError("the window must be whole bead-plate columns")
    if not rows:
        return []
    last = rows[0][0]
    # The first seq of the column holding the latest round, then whole columns back.
    start = last - (last - 1) % ROWS - (limit - ROWS)
    return [
        RoadRound(seq, winner, bool(pp), bool(bp), int(pt or 0), int(bt or 0))
        for seq, winner, pp, bp, pt, bt in reversed(rows)
        if seq >= start and winner
    ]


def recent_rounds(*, user: User, table: Table, limit: int) -> list[RoadRound]:
    """At most ``limit`` latest rounds (oldest first), starting on a bead column.

    ``limit`` must be a multiple of 6."""
    if limit % ROWS:
        raise ValueError("the window must be whole bead-plate columns")
    return _from_rows(_latest_rows(player_id=user.pk, table_id=table.pk, limit=limit), limit)


# The rows the last result step of each (player, table) read or made, kept
# by this process: the next round's result is those rows and itself, when it
# follows them (its seq the next one), without reading them again. Rounds
# are never deleted and a stored round's road fields never change, so rows
# that end one before a round are the rows a read would give. Any other
# round between (another tab's, on another process) breaks the chain, and
# the rows are read.
_KEPT: OrderedDict[tuple[Any, ...], tuple[Row, ...]] = OrderedDict()
# Players x tables kept, the least recent dropped first: a player's rows are
# about 14 KB (120 rows of small ints, shared flags and a shared winner).
KEPT_MOST = 2048


def _compact(row: Row) -> Row:
    """A row as kept: numbers as ints, the winner's name shared."""
    seq, winner, pp, bp, pt, bt = row
    return (int(seq), sys.intern(winner or ""), bool(pp), bool(bp), int(pt or 0), int(bt or 0))


_kept_lock = threading.Lock()


def forget_kept_rounds() -> None:
    """Drop every kept row."""
    with _kept_lock:
        _KEPT.clear()


def rounds_through(rnd: Round, *, limit: int) -> list[RoadRound]:
    """The window ending with ``rnd``, a round just stored: from the rows
    kept at its player's previous round here when ``rnd`` follows them,
    else read."""
    # The player's sign-up time too: a test database hands a new player the
    # id (and the seqs) of one it rolled back.
    key = (rnd.player_id, rnd.player.date_joined, rnd.table_id)
    with _kept_lock:
        kept = _KEPT.pop(key, None)
    if kept and kept[0][0] == rnd.seq - 1:
        detail = rnd.detail or {}
        row = (
            rnd.seq,
            rnd.winner,
            rnd.player_pair,
            rnd.banker_pair,
            detail.get("player_total"),
            detail.get("banker_total"),
        )
        rows = (_compact(row), *kept[: limit - 1])
    else:
        read = _latest_rows(player_id=rnd.player_id, table_id=rnd.table_id, limit=limit)
        rows = tuple(_compact(row) for row in read)
    if rows and rows[0][0] == rnd.seq:  # nothing later stored yet: worth keeping
        with _kept_lock:
            _KEPT[key] = rows
            while len(_KEPT) > KEPT_MOST:
                _KEPT.popitem(last=False)
    return _from_rows(rows, limit)


def _history(rounds: Sequence[RoadRound], limit: int) -> list[ScoreLine]:
    return [
        ScoreLine(r.seq, r.winner, r.player_total, r.banker_total, r.player_pair, r.banker_pair)
        for r in reversed(rounds[-limit:])
    ]


def _cut_asked(cells: Sequence[Any], asked: Sequence[Any], cols: int) -> tuple[Road, list[Any]]:
    """A road cut to its latest ``cols`` columns, counted over the road and
    its ask cells together, all re-numbered from column 0 with one offset.

    An ask cell left of the window (a new streak after a dragon tail longer
    than the window) is dropped: that road shows no mark for it.
    """
    last = -1
    for cell in cells:
        if cell.col > last:
            last = cell.col
    for cell in asked:
        if cell is not None and cell.col > last:
            last = cell.col
    offset = max(0, last - cols + 1)
    if not offset:
        return Road(cells=list(cells), cols=cols), list(asked)
    # tuple.__new__ rather than _replace: this runs for every round's reveal.
    new = tuple.__new__
    kind: type[Any] = type(cells[0]) if cells else tuple
    return (
        Road(
            cells=[new(kind, (c[0] - offset, *c[1:])) for c in cells if c[0] >= offset],
            cols=cols,
        ),
        [
            new(type(c), (c[0] - offset, *c[1:])) if c is not None and c[0] >= offset else None
            for c in asked
        ],
    )


def _window(rounds: Sequence[RoadRound], cols: dict[str, int], history: int) -> RoadWindow:
    roads, asks = road_core.roads_with_ask(rounds, SIDES)
    cut: dict[str, Road] = {}
    ask: dict[str, dict[str, Any]] = {side: {} for side in SIDES}
    for name, width in cols.items():
        road, marks = _cut_asked(roads[name], [getattr(asks[side], name) for side in SIDES], width)
        cut[name] = road
        for side, mark in zip(SIDES, marks, strict=True):
            ask[side][name] = mark
    return RoadWindow(
        rounds=len(rounds),
        bead_plate=cut.pop("bead_plate"),
        big_road=cut.pop("big_road"),
        percentages=road_core.last_n_percentages(rounds, LAST_N),
        history=_history(rounds, history),
        derived=cut,
        ask=ask,
    )


def table_roads(
    *, user: User, table: Table, before_seq: int | None = None, through: Round | None = None
) -> RoadWindow:
    """The five roads with their ask cells, and LAST 60 GAMES, for the table
    screen (and the reveal's last step, every round). With ``before_seq``:
    without that round and later ones (a round whose reveal is unfinished).
    With ``through``, a round just stored: up to it (``rounds_through``)."""
    if through is not None:
        rounds = rounds_through(through, limit=TABLE_ROUNDS)
    else:
        rounds = recent_rounds(user=user, table=table, limit=TABLE_ROUNDS)
    if before_seq is not None:
        rounds = [r for r in rounds if r.seq < before_seq]
    return _window(rounds, TABLE_COLS, HISTORY_ROUNDS)


def detail_roads(*, user: User, table: Table) -> RoadWindow:
    """Every road, larger, with the ask-PLAYER / ask-BANKER previews (a
    live table's are its shoe's, the same for everybody at it)."""
    if table.live:
        rounds = _table_rounds(table, DETAIL_ROUNDS)
    else:
        rounds = recent_rounds(user=user, table=table, limit=DETAIL_ROUNDS)
    cols = {"bead_plate": DETAIL_BEAD_COLS, "big_road": DETAIL_BIG_COLS}
    cols.update(dict.fromkeys(road_core.DERIVED, DETAIL_DERIVED_COLS))
    return _window(rounds, cols, DETAIL_HISTORY_ROUNDS)


def latest_round(*, user: User, table: Table) -> Round | None:
    """The player's last round of their own at the table (what the board shows
    on arrival); a bet on a live coup there, before an operator made the
    table private again, is not one: it may hold no card."""
    own = Round.objects.filter(player=user, table=table, coup__isnull=True)
    return own.order_by("-seq").first()


# A live coup's cards slide onto the screens one after the other; its result
# (the totals, the winner, its mark on the roads) is shown once the last is
# in place, not before (games/presenters/live.py).
CARD_SECONDS = 0.6  # between two cards' slides
SLIDE_SECONDS = 0.6  # one card's slide (cards.css, --deal-time)


def result_shown_at(coup: Coup) -> dt.datetime | None:
    """When a dealt live coup's last card is in place on the screens (the
    cards of a squeezed coup were opened where they lay: at once)."""
    if coup.dealt_at is None or coup.squeeze:
        return coup.dealt_at
    player, banker = len(coup.detail.get("player", [])), len(coup.detail.get("banker", []))
    last_turn = max(2 * (player - 1), 2 * (banker - 1) + 1) * CARD_SECONDS
    return coup.dealt_at + dt.timedelta(seconds=last_turn + SLIDE_SECONDS)


def shown_coups(coups: Sequence[Coup], now: dt.datetime) -> list[Coup]:
    """The coups whose result is out at ``now`` (what the roads show)."""
    return [c for c in coups if (result_shown_at(c) or now) <= now]


def dealt_coups(shoe_id: int, *, limit: int) -> list[Coup]:
    """A live shoe's last ``limit`` dealt coups, oldest first."""
    recent = Coup.objects.filter(shoe_id=shoe_id, status=Coup.Status.DEALT).order_by("-number")
    return list(recent[:limit])[::-1]


def _coup_rounds(coups: Sequence[Coup]) -> list[RoadRound]:
    return [
        RoadRound(
            c.number,
            c.winner,
            c.player_pair,
            c.banker_pair,
            c.detail.get("player_total"),
            c.detail.get("banker_total"),
        )
        for c in coups
    ]


def coup_roads(coups: Sequence[Coup]) -> RoadWindow:
    """A live table's roads: the same five roads and history, read from its
    dealt coups (oldest first) instead of one player's rounds."""
    return _window(_coup_rounds(coups), TABLE_COLS, HISTORY_ROUNDS)


def _table_rounds(table: Table, limit: int) -> list[RoadRound]:
    """A live table's current shoe, as road rounds: the same for every player."""
    shoe_id = (
        Coup.objects.filter(table=table).order_by("-id").values_list("shoe_id", flat=True).first()
    )
    if not shoe_id:
        return []
    return _coup_rounds(shown_coups(dealt_coups(shoe_id, limit=limit), timezone.now()))
