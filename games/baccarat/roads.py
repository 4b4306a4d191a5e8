"""Baccarat roads (scoreboards): bead plate, big road and the three derived roads.

Pure core (no Django), exactly SPEC section 4: grids of 6 rows, cells
``(col, row)`` 0-based. Inputs are any sequence of objects with ``.winner``,
``.player_pair`` and ``.banker_pair``. The layout rules (streaks, dragon
tails, derived-road colours) are written out in docs/roads.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol


class RoundLike(Protocol):
    """What the roads read from a round."""

    @property
    def winner(self) -> str: ...

    @property
    def player_pair(self) -> bool: ...

    @property
    def banker_pair(self) -> bool: ...


class Result(NamedTuple):
    """A minimal round for the roads (handy in tests and for stored history)."""

    winner: str
    player_pair: bool = False
    banker_pair: bool = False


class BeadCell(NamedTuple):
    col: int
    row: int
    winner: str
    player_pair: bool
    banker_pair: bool


class BigRoadCell(NamedTuple):
    col: int
    row: int
    winner: str | None  # None only for the leading-ties cell before any win
    ties: int
    player_pair: bool
    banker_pair: bool


class DerivedCell(NamedTuple):
    col: int
    row: int
    colour: str  # "red" | "blue"


ROWS = 6
DERIVED: dict[str, int] = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
_WINNERS = ("player", "banker", "tie")


def bead_plate(results: Sequence[RoundLike]) -> list[BeadCell]:
    """Every round, ties included, down each column of 6 then the next column."""
    new = tuple.__new__
    return [
        new(BeadCell, (i // ROWS, i % ROWS, r.winner, bool(r.player_pair), bool(r.banker_pair)))
        for i, r in enumerate(results)
    ]


def _place(kinds: Sequence[object]) -> tuple[list[int], list[int]]:
    """Big-road style columns and rows of a stream of kinds (sides or colours).

    Occupancy is a set of ``col * 8 + row`` integers (rows are < 8), which is
    cheaper to hash than (col, row) tuples.
    """
    taken: set[int] = set()
    add = taken.add
    cols: list[int] = []
    rows: list[int] = []
    add_col = cols.append
    add_row = rows.append
    last: object = None
    col = row = start = 0
    turned = False
    bottom = ROWS - 1
    for kind in kinds:
        if kind == last:
            if not turned and row < bottom and col * 8 + row + 1 not in taken:
                row += 1
            else:
                turned = True
                col += 1
                while col * 8 + row in taken:
                    col += 1
        elif last is None:
            col = row = start = 0
            turned = False
        else:
            col = start + 1
            while col * 8 in taken:
                col += 1
            row = 0
            start = col
            turned = False
        last = kind
        add(col * 8 + row)
        add_col(col)
        add_row(row)
    return cols, rows


def _check(winner: str) -> None:
    if winner not in _WINNERS:
        raise ValueError(f"a round's winner must be one of {_WINNERS}, got {winner!r}")


def big_road(results: Sequence[RoundLike]) -> list[BigRoadCell]:
    """One cell per PLAYER/BANKER win; ties are counted on the latest cell."""
    cells: list[list] = []  # [winner, ties, player_pair, banker_pair]
    for r in results:
        w = r.winner
        if w == "tie":
            if not cells:
                cells.append([None, 0, False, False])
            cell = cells[-1]
            cell[1] += 1
            if r.player_pair:
                cell[2] = True
            if r.banker_pair:
                cell[3] = True
        elif w == "player" or w == "banker":
            if cells and cells[-1][0] is None:
                # The first win fills the leading-ties cell at (0, 0).
                cell = cells[-1]
                cell[0] = w
                if r.player_pair:
                    cell[2] = True
                if r.banker_pair:
                    cell[3] = True
            else:
                cells.append([w, 0, bool(r.player_pair), bool(r.banker_pair)])
        else:
            _check(w)
    if cells and cells[0][0] is None:
        # Only a road of nothing but ties still has a cell without a winner.
        return [BigRoadCell(0, 0, *cells[0])]
    cols, rows = _place([c[0] for c in cells])
    new = tuple.__new__
    return [
        new(BigRoadCell, (col, row, w, ties, pp, bp))
        for col, row, (w, ties, pp, bp) in zip(cols, rows, cells, strict=True)
    ]


def _streaks(results: Sequence[RoundLike]) -> tuple[list[tuple[int, int]], list[int]]:
    """(streak, depth) of every PLAYER/BANKER win, and the final streak lengths."""
    positions: list[tuple[int, int]] = []
    append = positions.append
    lengths: list[int] = []
    last = None
    c = -1
    depth = 0
    for r in results:
        w = r.winner
        if w == last:
            depth += 1
        elif w == "tie":
            continue
        else:
            _check(w)
            if c >= 0:
                lengths.append(depth + 1)
            c += 1
            depth = 0
            last = w
        append((c, depth))
    if c >= 0:
        lengths.append(depth + 1)
    return positions, lengths


def _colour(c: int, r: int, k: int, lengths: Sequence[int]) -> str | None:
    """Colour of the derived-road entry for the win at streak ``c``, depth ``r``."""
    if c < k or (c == k and r == 0):
        return None
    if r == 0:
        return "red" if lengths[c - 1] == lengths[c - 1 - k] else "blue"
    return "blue" if lengths[c - k] == r else "red"


def _derived_colours(
    positions: Sequence[tuple[int, int]], lengths: Sequence[int], k: int
) -> list[str]:
    """Colours of the derived road with offset ``k``, in order.

    Streaks c-k, c-1 and c-1-k are complete when a win in streak c is read,
    so their final lengths are their lengths at that time.
    """
    out: list[str] = []
    append = out.append
    for c, r in positions:
        if c < k or (c == k and r == 0):
            continue
        if r == 0:
            append("red" if lengths[c - 1] == lengths[c - 1 - k] else "blue")
        else:
            append("blue" if lengths[c - k] == r else "red")
    return out


def _lay_out(colours: Sequence[str]) -> list[DerivedCell]:
    new = tuple.__new__
    cols, rows = _place(colours)
    return [new(DerivedCell, cell) for cell in zip(cols, rows, colours, strict=True)]


def _derived(results: Sequence[RoundLike], k: int) -> list[DerivedCell]:
    positions, lengths = _streaks(results)
    return _lay_out(_derived_colours(positions, lengths, k))


def big_eye_boy(results: Sequence[RoundLike]) -> list[DerivedCell]:
    """Derived road with k=1."""
    return _derived(results, 1)


def small_road(results: Sequence[RoundLike]) -> list[DerivedCell]:
    """Derived road with k=2."""
    return _derived(results, 2)


def cockroach_pig(results: Sequence[RoundLike]) -> list[DerivedCell]:
    """Derived road with k=3."""
    return _derived(results, 3)


def all_roads(results: Sequence[RoundLike]) -> dict[str, list]:
    """All five roads at once, sharing the streak computation (for the details view).

    Keys: "bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig".
    """
    positions, lengths = _streaks(results)
    out: dict[str, list] = {"bead_plate": bead_plate(results), "big_road": big_road(results)}
    for name, k in DERIVED.items():
        out[name] = _lay_out(_derived_colours(positions, lengths, k))
    return out


def ask(results: Sequence[RoundLike], winner: str) -> dict[str, DerivedCell | None]:
    """What each derived road would add if the next round were won by ``winner``.

    Keys "big_eye_boy", "small_road", "cockroach_pig"; None where that road
    would get no entry (too early, or ``winner == "tie"``).
    """
    _check(winner)
    positions, lengths = _streaks(results)
    out: dict[str, DerivedCell | None] = dict.fromkeys(DERIVED)
    if winner == "tie":
        return out
    last = None
    for result in reversed(results):
        if result.winner != "tie":
            last = result.winner
            break
    new_lengths = list(lengths)
    if winner == last:
        new_lengths[-1] += 1
    else:
        new_lengths.append(1)
    c, r = len(new_lengths) - 1, new_lengths[-1] - 1
    for name, k in DERIVED.items():
        colour = _colour(c, r, k, new_lengths)
        if colour is None:
            continue
        colours = _derived_colours(positions, lengths, k)
        colours.append(colour)
        out[name] = _lay_out(colours)[-1]
    return out


class Ask(NamedTuple):
    """The mark one more round won by a side would add to each road.

    The bead plate always gets a cell; the big road gets none for a tie (the
    tie is a slash on the latest cell); a derived road gets none when it has
    not started yet (or for a tie). Coordinates are those of the whole road,
    as the road functions above would give them for the history plus that
    round.
    """

    bead_plate: BeadCell
    big_road: BigRoadCell | None
    big_eye_boy: DerivedCell | None
    small_road: DerivedCell | None
    cockroach_pig: DerivedCell | None


def _next_place(
    cells: Sequence[BigRoadCell] | Sequence[DerivedCell],
    kinds: Sequence[object],
    kind: object,
    taken: set[int],
) -> tuple[int, int]:
    """Where ``_place`` would put one more entry of ``kind`` after ``cells``.

    ``_place``'s state is read back from its output: the latest streak starts
    where the run of equal kinds at the end starts, and that streak has turned
    into a dragon tail exactly when its latest cell is right of its start.
    """
    if not cells:
        return 0, 0
    last = kinds[-1]
    col, row = cells[-1][0], cells[-1][1]
    i = len(kinds) - 1
    while i and kinds[i - 1] == last:
        i -= 1
    start = cells[i][0]
    if kind == last:
        if col == start and row < ROWS - 1 and col * 8 + row + 1 not in taken:
            return col, row + 1
        col += 1
        while col * 8 + row in taken:
            col += 1
        return col, row
    col = start + 1
    while col * 8 in taken:
        col += 1
    return col, 0


def _taken(cells: Sequence[BigRoadCell] | Sequence[DerivedCell]) -> set[int]:
    return {c[0] * 8 + c[1] for c in cells}


def _asks(
    results: Sequence[RoundLike],
    roads: dict[str, list],
    lengths: Sequence[int],
    winners: Sequence[str],
) -> dict[str, Ask]:
    n = len(results)
    big = roads["big_road"]
    last = None
    for result in reversed(results):
        if result.winner != "tie":
            last = result.winner
            break
    # Each road's occupancy and kinds, shared by the sides asked about.
    big_kinds = [c.winner for c in big]
    big_taken = _taken(big)
    derived = {name: (roads[name], [c.colour for c in roads[name]]) for name in DERIVED}
    derived_taken = {name: _taken(cells) for name, (cells, _) in derived.items()}
    out: dict[str, Ask] = {}
    for winner in winners:
        _check(winner)
        bead = BeadCell(n // ROWS, n % ROWS, winner, False, False)
        if winner == "tie":
            out[winner] = Ask(bead, None, None, None, None)
            continue
        if big and big[-1].winner is None:
            # Only ties so far: the first win fills their cell at (0, 0).
            big_cell = BigRoadCell(0, 0, winner, 0, False, False)
        else:
            col, row = _next_place(big, big_kinds, winner, big_taken)
            big_cell = BigRoadCell(col, row, winner, 0, False, False)
        new_lengths = list(lengths)
        if winner == last:
            new_lengths[-1] += 1
        else:
            new_lengths.append(1)
        c, r = len(new_lengths) - 1, new_lengths[-1] - 1
        marks: list[DerivedCell | None] = []
        for name, k in DERIVED.items():
            colour = _colour(c, r, k, new_lengths)
            if colour is None:
                marks.append(None)
                continue
            cells, kinds = derived[name]
            col, row = _next_place(cells, kinds, colour, derived_taken[name])
            marks.append(DerivedCell(col, row, colour))
        out[winner] = Ask(bead, big_cell, *marks)
    return out


def ask_cells(results: Sequence[RoundLike], winner: str) -> Ask:
    """The cell each of the five roads would add if the next round went to
    ``winner`` (the "Ask P" / "Ask B" buttons): same as laying out
    ``results`` plus that round and taking each road's new cell."""
    return roads_with_ask(results, (winner,))[1][winner]


def roads_with_ask(
    results: Sequence[RoundLike], winners: Sequence[str] = ("player", "banker")
) -> tuple[dict[str, list], dict[str, Ask]]:
    """``all_roads`` and, for each of ``winners``, its ``ask_cells``, in one
    pass over the history (what the table screen shows after every round)."""
    positions, lengths = _streaks(results)
    roads: dict[str, list] = {"bead_plate": bead_plate(results), "big_road": big_road(results)}
    for name, k in DERIVED.items():
        roads[name] = _lay_out(_derived_colours(positions, lengths, k))
    return roads, _asks(results, roads, lengths, winners)


def last_n_percentages(results: Sequence[RoundLike], n: int = 60) -> dict[str, int]:
    """PLAYER / BANKER / TIE shares of the last ``n`` rounds, in whole percent.

    Each share is rounded half up on its own, so the three may not sum to 100
    (as the seed warns); pairs are not counted; all 0 when there is no round.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    recent = list(results)[-n:]
    total = len(recent)
    counts = dict.fromkeys(_WINNERS, 0)
    for r in recent:
        _check(r.winner)
        counts[r.winner] += 1
    if not total:
        return counts
    return {w: (200 * k + total) // (2 * total) for w, k in counts.items()}
