"""The lobby's glance at each Baccarat table: the player's latest results
there as a small big road (laid out by the pure core's ``big_road``, the
same as the table's) and how many PLAYER, BANKER and TIE wins they hold.

One bounded query per Baccarat table (``roads.recent_rounds``: a ``LIMIT``
on the ``(player, table, -seq)`` index), whatever the player's history."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import User

from games.baccarat import roads as road_core
from games.models import Game, Table
from games.selectors.roads import ROWS, recent_rounds

LOBBY_ROUNDS = 48  # eight bead-plate columns
LOBBY_COLS = 12


@dataclass(frozen=True)
class LobbyRoad:
    cells: list[road_core.BigRoadCell]  # the latest LOBBY_COLS columns, from column 0
    cols: int
    rows: int
    rounds: int  # results counted below (at most LOBBY_ROUNDS)
    player: int
    banker: int
    tie: int


def lobby_road(*, user: User, table: Table) -> LobbyRoad:
    rounds = recent_rounds(user=user, table=table, limit=LOBBY_ROUNDS)
    cells = road_core.big_road(rounds)
    last = max((c.col for c in cells), default=-1)
    offset = max(0, last - LOBBY_COLS + 1)
    shown = [c._replace(col=c.col - offset) for c in cells if c.col >= offset]
    winners = [r.winner for r in rounds]
    return LobbyRoad(
        cells=shown,
        cols=LOBBY_COLS,
        rows=ROWS,
        rounds=len(rounds),
        player=winners.count("player"),
        banker=winners.count("banker"),
        tie=winners.count("tie"),
    )


def lobby_roads(*, user: User, tables: Iterable[Table]) -> dict[int, LobbyRoad]:
    """Table pk -> its road, for the Baccarat tables the player has played."""
    found = {}
    for table in tables:
        if table.game == Game.BACCARAT:
            road = lobby_road(user=user, table=table)
            if road.rounds:
                found[table.pk] = road
    return found
