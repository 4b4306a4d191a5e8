"""The five roads beside the felt, their Ask P / Ask B marks and the score
history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.urls import get_script_prefix

from games.presenters.baccarat.board import TEMPLATE
from games.presenters.common import (
    fragment_memo,
)
from games.selectors.roads import RoadWindow

# ---------------------------------------------------------------- roads


BEAD_MARKS = {"player": "P", "banker": "B", "tie": "T"}


class RoadCell(NamedTuple):
    """One mark of a road, ready for the template (road_cells.html#cell):
    its classes, its grid area ("row / col", 1-based), its letter or tie
    count. The values come from fixed vocabularies (no user text), so the
    partial prints them unescaped."""

    css: str
    area: str
    mark: str
    ties: int


ASK_MARKS = {"player": "P", "banker": "B"}


class RoadMark(NamedTuple):
    """What a road cell shows, as the key of its rendered HTML: the road
    ("bead_plate", "big_road" or "derived"), the side of an ask mark ("" for
    a mark of the road) and the roads module's cell (cut to the window)."""

    road: str
    ask: str
    cell: Any


def road_cell(mark: RoadMark) -> RoadCell:
    """A road's mark, or the hidden mark one more PLAYER or BANKER win would
    add (shown, blinking, while "Ask P" / "Ask B" is pressed: static/js/roads.js).

    Ask marks' classes start with ``ask-mark``, never ``bead`` or ``ring``, so
    they are not counted as marks of the road."""
    road, side, c = mark
    area = f"{c.row + 1} / {c.col + 1}"
    if side:
        prefix = f"ask-mark ask-mark-{side}"
        if road == "bead_plate":
            return RoadCell(f"{prefix} ask-bead w-{side}", area, ASK_MARKS[side], 0)
        if road == "big_road":
            return RoadCell(f"{prefix} ask-ring w-{side}", area, "", 0)
        return RoadCell(f"{prefix} d-{c.colour}", area, "", 0)
    if road == "bead_plate":
        return RoadCell(f"bead w-{c.winner}{_pairs(c)}", area, BEAD_MARKS[c.winner], 0)
    if road == "big_road":
        return RoadCell(f"ring w-{c.winner or 'none'}{_pairs(c)}", area, "", c.ties)
    return RoadCell(f"d-{c.colour}", area, "", 0)


# A screen shows several hundred cells at every round's end, nearly all of
# them shown the round before: each distinct cell is rendered once. There are
# a few thousand (grid positions x colours, pairs and tie counts).
road_html = fragment_memo("baccarat/road_cells.html", "cell", "c", maxsize=32768, view=road_cell)
# The same at every round's end but for the language (and the site's script
# prefix, in its URL): reversing the URL alone cost more than the rest of it.
history_head = fragment_memo(TEMPLATE, "history_head", "script_prefix", maxsize=16)


def history_line(key: tuple[int, str, int, int]) -> dict[str, str]:
    """A score history line as the template reads it: text (a number would
    go through localize(), several times the cost of a string)."""
    seq, winner, player_total, banker_total = key
    return {
        "seq": str(seq),
        "winner": winner,
        "player_total": str(player_total),
        "banker_total": str(banker_total),
    }


# The score history shows the latest rounds at every round's end: all but
# the newest line were drawn the round before.
history_lines_html = fragment_memo(
    TEMPLATE, "history_line", "line", maxsize=16384, view=history_line
)


def _pairs(cell: Any) -> str:
    return (" pp" if cell.player_pair else "") + (" bp" if cell.banker_pair else "")


def road_marks(window: RoadWindow, name: str, cells: Sequence[Any]) -> list[RoadMark]:
    """A road's marks in order, then its hidden ask marks (PLAYER, BANKER)."""
    road = name if name in ("bead_plate", "big_road") else "derived"
    marks = [RoadMark(road, "", cell) for cell in cells]
    for side, asked in window.ask.items():
        cell = asked.get(name)
        if cell is not None:
            marks.append(RoadMark(road, side, cell))
    return marks


@dataclass(frozen=True, slots=True)
class AskButton:
    """An Ask button and the derived marks it would add (shown on the button)."""

    side: str
    marks: tuple[tuple[str, str], ...]  # (road class: eye | small | roach, colour)


DERIVED_CLASSES = (("big_eye_boy", "eye"), ("small_road", "small"), ("cockroach_pig", "roach"))
ask_buttons_html = fragment_memo(TEMPLATE, "ask_button", "b", maxsize=256)


class RoadsView:
    """A road window laid out for the template: each road's marks followed by
    its hidden ask marks."""

    def __init__(self, window: RoadWindow) -> None:
        self.window = window
        self.rounds = window.rounds
        self.percentages = window.percentages
        self.history = window.history
        # A line is the same from round to round but for the newest: each
        # distinct line is drawn once (history_lines_html).
        self.history_html = history_lines_html(
            (line.seq, line.winner, line.player_total, line.banker_total) for line in window.history
        )
        self.ask = window.ask
        self.bead_plate = window.bead_plate
        self.big_road = window.big_road
        self.derived = window.derived
        # Each road's grid content: its marks, then its ask marks.
        self.bead_html = road_html(road_marks(window, "bead_plate", window.bead_plate.cells))
        self.big_html = road_html(road_marks(window, "big_road", window.big_road.cells))
        self.big_eye_boy_html = self._derived("big_eye_boy")
        self.small_road_html = self._derived("small_road")
        self.cockroach_pig_html = self._derived("cockroach_pig")
        # Two buttons with at most three marks each: a few dozen distinct
        # ones, each drawn once (ask_buttons_html).
        self.ask_html = ask_buttons_html(
            AskButton(
                side,
                tuple(
                    (css, marks[name].colour)
                    for name, css in DERIVED_CLASSES
                    if marks.get(name) is not None
                ),
            )
            for side, marks in window.ask.items()
        )

    @property
    def history_head(self) -> str:
        """The score history panel's head (its close button)."""
        return history_head([get_script_prefix()])

    def _derived(self, name: str) -> str:
        road = self.window.derived.get(name)
        if road is None:
            return ""
        return road_html(road_marks(self.window, name, road.cells))
