"""Ask P / Ask B (games.baccarat.roads.ask_cells): the cell each road would
add for one more PLAYER or BANKER win, checked against the road functions
themselves for the same history plus that round."""

from __future__ import annotations

import random

import pytest

from games.baccarat.roads import (
    Ask,
    BeadCell,
    BigRoadCell,
    DerivedCell,
    Result,
    all_roads,
    ask,
    ask_cells,
    roads_with_ask,
)

NAMES = {"B": "banker", "P": "player", "T": "tie"}
DERIVED = ("big_eye_boy", "small_road", "cockroach_pig")


def results(text: str) -> list[Result]:
    return [Result(NAMES[w]) for w in text.split()]


def appended(history: list[Result], winner: str) -> Ask:
    """The answer worked out the long way: lay out history + one round and
    take what each road gained (every older cell must be unchanged)."""
    before = all_roads(history)
    after = all_roads([*history, Result(winner)])
    new: dict[str, object] = {}
    for name, cells in after.items():
        old = before[name]
        if name == "big_road" and winner == "tie":
            # A tie is a slash on the latest cell: no new place is taken.
            assert [c[:3] for c in cells] == [c[:3] for c in old] or (not old and len(cells) == 1)
            new[name] = None
            continue
        if name == "big_road" and old and old[0].winner is None:
            # Only ties so far: the first win fills their cell.
            assert len(cells) == 1
            new[name] = cells[0]._replace(ties=0)
            continue
        assert cells[: len(old)] == old, name
        assert len(cells) - len(old) in (0, 1), name
        new[name] = cells[-1] if len(cells) > len(old) else None
    return Ask(**new)


def streaky(rng: random.Random, n: int) -> list[Result]:
    """Histories with long streaks and ties, so dragon tails happen often."""
    out: list[Result] = []
    side = "banker"
    for _ in range(n):
        roll = rng.random()
        if roll < 0.1:
            out.append(Result("tie"))
            continue
        if roll < 0.4:
            side = "player" if side == "banker" else "banker"
        out.append(Result(side))
    return out


def test_the_first_round_goes_to_the_first_cell_of_each_grid() -> None:
    got = ask_cells([], "player")
    assert got == Ask(
        BeadCell(0, 0, "player", False, False),
        BigRoadCell(0, 0, "player", 0, False, False),
        None,
        None,
        None,
    )


def test_a_win_after_only_ties_fills_their_cell_and_the_bead_plate_goes_on() -> None:
    got = ask_cells(results("T T"), "banker")
    assert got.bead_plate == BeadCell(0, 2, "banker", False, False)
    assert got.big_road[:3] == (0, 0, "banker")
    assert got == appended(results("T T"), "banker")


def test_same_side_goes_down_and_other_side_opens_the_next_column() -> None:
    history = results("B B P")
    assert ask_cells(history, "player").big_road[:2] == (1, 1)
    assert ask_cells(history, "banker").big_road[:2] == (2, 0)
    # The seventh round opens the bead plate's second column.
    assert ask_cells(results("B B P P B T"), "player").bead_plate[:2] == (1, 0)


def test_a_seventh_win_in_a_row_turns_right_into_a_dragon_tail() -> None:
    history = results("P B B B B B B")
    assert ask_cells(history, "banker").big_road[:2] == (2, 5)
    history.append(Result("banker"))
    assert ask_cells(history, "banker").big_road[:2] == (3, 5)
    # The other side starts right of where the tailed streak started.
    assert ask_cells(history, "player").big_road[:2] == (2, 0)


def test_a_streak_under_a_tail_turns_early() -> None:
    # A long BANKER tail on row 5, then a PLAYER streak in the next column
    # runs into the tail's cell at (2, 5) and turns at row 4.
    history = results("P " + "B " * 8 + "P P P P P")
    assert ask_cells(history, "player").big_road[:2] == (3, 4)
    assert ask_cells(history, "player") == appended(history, "player")


def test_a_streak_whose_start_cell_is_taken_is_asked_further_right() -> None:
    # The staircase of tails in test_roads: PLAYER's last streak turned right
    # on row 0 into (6, 0), so BANKER's next streak would start at (7, 0).
    history = [
        Result(NAMES[w])
        for w, n in (("B", 7), ("P", 6), ("B", 5), ("P", 4), ("B", 3), ("P", 2))
        for _ in range(n)
    ]
    assert ask_cells(history, "banker").big_road[:2] == (7, 0)
    assert ask_cells(history, "player").big_road[:2] == (7, 0)
    for winner in ("player", "banker"):
        assert ask_cells(history, winner) == appended(history, winner)


def test_derived_roads_get_their_next_mark_or_nothing_before_they_start() -> None:
    assert ask_cells(results("B"), "player")[2:] == (None, None, None)
    got = ask_cells(results("B P"), "player")
    assert got.big_eye_boy == DerivedCell(0, 0, "blue")
    assert got.small_road is None and got.cockroach_pig is None
    history = results("B B P P B B P")
    for winner in ("player", "banker"):
        mine = ask_cells(history, winner)
        theirs = ask(history, winner)
        assert (mine.big_eye_boy, mine.small_road, mine.cockroach_pig) == tuple(
            theirs[name] for name in DERIVED
        )


def test_a_tie_adds_only_a_bead() -> None:
    got = ask_cells(results("B P P"), "tie")
    assert got == Ask(BeadCell(0, 3, "tie", False, False), None, None, None, None)


def test_an_unknown_side_is_refused() -> None:
    with pytest.raises(ValueError, match="winner must be one of"):
        ask_cells(results("B"), "dragon")


@pytest.mark.parametrize("seed", range(12))
def test_ask_cells_agree_with_laying_out_one_more_round(seed: int) -> None:
    rng = random.Random(seed)
    history = streaky(rng, rng.randrange(0, 400))
    for cut in sorted(rng.sample(range(len(history) + 1), min(25, len(history) + 1))):
        part = history[:cut]
        for winner in ("player", "banker", "tie"):
            assert ask_cells(part, winner) == appended(part, winner), (seed, cut, winner)


def test_roads_with_ask_is_all_roads_plus_both_asks() -> None:
    history = streaky(random.Random(99), 300)
    roads, asks = roads_with_ask(history)
    assert roads == all_roads(history)
    assert asks == {"player": ask_cells(history, "player"), "banker": ask_cells(history, "banker")}
