"""Roads (games.baccarat.roads): grids drawn by hand from SPEC section 4."""

from __future__ import annotations

import random
import time

import pytest

from games.baccarat.roads import (
    BeadCell,
    BigRoadCell,
    DerivedCell,
    Result,
    all_roads,
    ask,
    bead_plate,
    big_eye_boy,
    big_road,
    cockroach_pig,
    last_n_percentages,
    small_road,
)

NAMES = {"B": "banker", "P": "player", "T": "tie"}


def results(text: str) -> list[Result]:
    """'B P T b p' style: B/P/T winners; suffix '+p' / '+b' / '+pb' for pairs."""
    out = []
    for token in text.split():
        winner, _, pairs = token.partition("+")
        out.append(Result(NAMES[winner], "p" in pairs, "b" in pairs))
    return out


def streaks(*spec: tuple[str, int]) -> list[Result]:
    return [Result(NAMES[w]) for w, n in spec for _ in range(n)]


def grid(drawing: str) -> set[tuple[int, int, str]]:
    """Hand-drawn grid: one text line per row (row 0 first), '.' for empty."""
    rows = [line.strip() for line in drawing.strip().splitlines()]
    return {(c, r, ch) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch != "."}


def big_grid(cells: list[BigRoadCell]) -> set[tuple[int, int, str]]:
    return {(c.col, c.row, (c.winner or "-")[0].upper()) for c in cells}


def derived_grid(cells: list[DerivedCell]) -> set[tuple[int, int, str]]:
    return {(c.col, c.row, "R" if c.colour == "red" else "U") for c in cells}


# ---------------------------------------------------------------- bead plate


def test_bead_plate_goes_down_six_then_next_column_ties_included() -> None:
    cells = bead_plate(results("T B+b P B T+pb P P B"))
    assert cells[0] == BeadCell(0, 0, "tie", False, False)
    assert cells[1] == BeadCell(0, 1, "banker", False, True)
    assert cells[4] == BeadCell(0, 4, "tie", True, True)
    assert cells[5] == BeadCell(0, 5, "player", False, False)
    assert cells[6] == BeadCell(1, 0, "player", False, False)
    assert cells[7] == BeadCell(1, 1, "banker", False, False)
    assert BeadCell._fields == ("col", "row", "winner", "player_pair", "banker_pair")


def test_empty_roads() -> None:
    assert bead_plate([]) == big_road([]) == big_eye_boy([]) == []
    assert small_road([]) == cockroach_pig([]) == []


# ---------------------------------------------------------------- big road


def test_big_road_fields_in_contract_order() -> None:
    assert BigRoadCell._fields == ("col", "row", "winner", "ties", "player_pair", "banker_pair")
    assert DerivedCell._fields == ("col", "row", "colour")


def test_leading_ties_sit_on_the_first_cell_until_a_win_fills_it() -> None:
    assert big_road(results("T T+b")) == [BigRoadCell(0, 0, None, 2, False, True)]
    assert big_road(results("T T+p B T P")) == [
        BigRoadCell(0, 0, "banker", 3, True, False),
        BigRoadCell(1, 0, "player", 0, False, False),
    ]


def test_ties_and_their_pairs_go_on_the_latest_cell() -> None:
    assert big_road(results("B B+p T+b T P")) == [
        BigRoadCell(0, 0, "banker", 0, False, False),
        BigRoadCell(0, 1, "banker", 2, True, True),
        BigRoadCell(1, 0, "player", 0, False, False),
    ]


def test_a_change_of_side_starts_right_of_the_previous_streak_start() -> None:
    cells = big_road(results("B B P B B B P P B P"))
    assert big_grid(cells) == grid(
        """
        BPBPBP
        B.BP..
        ..B...
        """
    )
    assert [(c.col, c.row) for c in cells] == [
        (0, 0), (0, 1), (1, 0), (2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (4, 0), (5, 0),
    ]  # fmt: skip


def test_a_seven_long_streak_turns_right_at_the_bottom() -> None:
    cells = big_road(streaks(("B", 7), ("P", 2)))
    assert big_grid(cells) == grid(
        """
        BP
        BP
        B.
        B.
        B.
        BB
        """
    )
    assert (cells[6].col, cells[6].row) == (1, 5)


def test_a_tail_under_a_tail() -> None:
    cells = big_road(streaks(("B", 8), ("P", 7), ("B", 1)))
    assert big_grid(cells) == grid(
        """
        BPB.
        BP..
        BP..
        BP..
        BPPP
        BBB.
        """
    )
    # The Player streak meets the Banker tail at (1, 5) and turns right on row 4.
    assert [(c.col, c.row) for c in cells[8:15]] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 4),
        (3, 4),
    ]


def test_a_streak_whose_start_cell_is_taken_starts_further_right() -> None:
    """A staircase of tails: each streak is blocked one row higher than the previous
    one, until a streak turns right on row 0 and the next start cell (6, 0) is taken."""
    cells = big_road(streaks(("B", 7), ("P", 6), ("B", 5), ("P", 4), ("B", 3), ("P", 2), ("B", 1)))
    assert big_grid(cells) == grid(
        """
        BPBPBPPB
        BPBPBB..
        BPBPP...
        BPBB....
        BPP.....
        BB......
        """
    )
    assert (cells[-1].col, cells[-1].row) == (7, 0)
    assert len({(c.col, c.row) for c in cells}) == len(cells) == 28


def test_big_road_refuses_unknown_winners() -> None:
    with pytest.raises(ValueError):
        big_road([Result("dragon")])


# ---------------------------------------------------------------- derived roads

# B B P B B B P P B P -> streaks 0..5 of lengths 2, 1, 3, 2, 1, 1.  By hand
# (c = streak, r = depth; k = 1, 2, 3):
#   win  (c,r)  big eye boy            small road             cockroach pig
#   3    (1,0)  -                      -                      -
#   4    (2,0)  len1=1 vs len0=2 blue  -                      -
#   5    (2,1)  L=len1=1 == r  blue    L=len0=2 >= 2  red     -
#   6    (2,2)  L=1 < 2        red     L=2 == 2       blue    -
#   7    (3,0)  len2=3 vs len1 blue    len2 vs len0=2 blue    -
#   8    (3,1)  L=len2=3 >= 2  red     L=len1=1 == 1  blue    L=len0=2 >= 2  red
#   9    (4,0)  len3=2 vs len2 blue    len3 vs len1=1 blue    len3=2 vs len0=2 red
#   10   (5,0)  len4=1 vs len3 blue    len4 vs len2=3 blue    len4=1 vs len1=1 red
SEQUENCE = "B B P T B+p B B P P+b T B P"


def test_big_eye_boy_first_cells() -> None:
    cells = big_eye_boy(results(SEQUENCE))
    assert cells == [
        DerivedCell(0, 0, "blue"),
        DerivedCell(0, 1, "blue"),
        DerivedCell(1, 0, "red"),
        DerivedCell(2, 0, "blue"),
        DerivedCell(3, 0, "red"),
        DerivedCell(4, 0, "blue"),
        DerivedCell(4, 1, "blue"),
    ]


def test_small_road_first_cells() -> None:
    assert small_road(results(SEQUENCE)) == [
        DerivedCell(0, 0, "red"),
        DerivedCell(1, 0, "blue"),
        DerivedCell(1, 1, "blue"),
        DerivedCell(1, 2, "blue"),
        DerivedCell(1, 3, "blue"),
        DerivedCell(1, 4, "blue"),
    ]


def test_cockroach_pig_first_cells() -> None:
    assert cockroach_pig(results(SEQUENCE)) == [
        DerivedCell(0, 0, "red"),
        DerivedCell(0, 1, "red"),
        DerivedCell(0, 2, "red"),
    ]


def test_big_eye_boy_can_start_at_the_second_row_of_the_second_streak() -> None:
    # B P P: streak 1 depth 1; L = len(streak 0) = 1 == r -> blue.  B P P P: L < r -> red.
    assert big_eye_boy(results("B P")) == []
    assert big_eye_boy(results("B P P")) == [DerivedCell(0, 0, "blue")]
    assert big_eye_boy(results("B P P P")) == [DerivedCell(0, 0, "blue"), DerivedCell(1, 0, "red")]
    # B B P P: L = 2 >= r + 1 = 2 -> red.
    assert big_eye_boy(results("B B P P")) == [DerivedCell(0, 0, "red")]


def test_derived_roads_have_dragon_tails_too() -> None:
    """Alternating wins: every streak has length 1, so every entry is red."""
    chop = results("B P " * 5)  # 10 streaks of one
    assert derived_grid(big_eye_boy(chop)) == grid(  # entries from streak 2 on: 8
        """
        R..
        R..
        R..
        R..
        R..
        RRR
        """
    )
    assert len(small_road(chop)) == 7
    assert [(c.col, c.row) for c in small_road(chop)][-2:] == [(0, 5), (1, 5)]
    assert derived_grid(cockroach_pig(chop)) == grid("R\nR\nR\nR\nR\nR")


def test_all_roads_agrees_with_the_single_functions() -> None:
    rng = random.Random(7)
    res = [
        Result(rng.choice(["player", "banker", "banker", "tie"]), rng.random() < 0.1)
        for _ in range(500)
    ]
    roads = all_roads(res)
    assert roads["bead_plate"] == bead_plate(res)
    assert roads["big_road"] == big_road(res)
    assert roads["big_eye_boy"] == big_eye_boy(res)
    assert roads["small_road"] == small_road(res)
    assert roads["cockroach_pig"] == cockroach_pig(res)


def test_no_two_cells_share_a_place_in_long_random_roads() -> None:
    rng = random.Random(11)
    res = [Result(rng.choice(["player", "banker", "tie"])) for _ in range(3000)]
    for cells in all_roads(res).values():
        places = [(c.col, c.row) for c in cells]
        assert len(set(places)) == len(places)
        assert all(0 <= row < 6 for _, row in places)


# ---------------------------------------------------------------- ask


def test_ask_predictions_hand_worked() -> None:
    res = results(SEQUENCE)
    # Next PLAYER: streak 5 depth 1.  k=1: L = len4 = 1 == r -> blue, under (4, 1).
    # k=2: L = len3 = 2 >= 2 -> red, new column right of the blue streak at 1 -> (2, 0).
    # k=3: L = len2 = 3 >= 2 -> red, under (0, 2).
    assert ask(res, "player") == {
        "big_eye_boy": DerivedCell(4, 2, "blue"),
        "small_road": DerivedCell(2, 0, "red"),
        "cockroach_pig": DerivedCell(0, 3, "red"),
    }
    # Next BANKER: streak 6 depth 0.  k=1: len5 = 1 == len4 = 1 -> red, new column 5.
    # k=2: len5 = 1 vs len3 = 2 -> blue, under (1, 4).  k=3: len5 vs len2 = 3 -> blue, (1, 0).
    assert ask(res, "banker") == {
        "big_eye_boy": DerivedCell(5, 0, "red"),
        "small_road": DerivedCell(1, 5, "blue"),
        "cockroach_pig": DerivedCell(1, 0, "blue"),
    }


def test_ask_is_none_where_a_road_has_not_started() -> None:
    assert ask(results("B"), "player") == dict.fromkeys(
        ("big_eye_boy", "small_road", "cockroach_pig")
    )
    assert ask(results("B P"), "player")["big_eye_boy"] == DerivedCell(0, 0, "blue")
    assert ask(results("B P"), "player")["small_road"] is None
    assert ask([], "banker") == dict.fromkeys(("big_eye_boy", "small_road", "cockroach_pig"))
    assert set(ask(results("B P B"), "tie").values()) == {None}


def test_ask_agrees_with_appending_the_result() -> None:
    rng = random.Random(3)
    res: list[Result] = []
    for _ in range(200):
        for winner in ("player", "banker"):
            got = ask(res, winner)
            grown = [*res, Result(winner)]
            for name, road in (
                ("big_eye_boy", big_eye_boy),
                ("small_road", small_road),
                ("cockroach_pig", cockroach_pig),
            ):
                before, after = road(res), road(grown)
                assert got[name] == (after[-1] if len(after) > len(before) else None)
        res.append(Result(rng.choice(["player", "banker", "tie"])))


# ---------------------------------------------------------------- LAST 60 GAMES


def test_last_n_percentages_rounds_each_share_and_may_not_sum_to_100() -> None:
    assert last_n_percentages(results("P B T")) == {"player": 33, "banker": 33, "tie": 33}
    assert last_n_percentages([]) == {"player": 0, "banker": 0, "tie": 0}
    # 1 of 8 = 12.5% rounds half up to 13; 7 of 8 = 87.5% -> 88: sum 101.
    assert last_n_percentages(results("T " + "B " * 7)) == {"player": 0, "banker": 88, "tie": 13}


def test_last_n_percentages_only_counts_the_last_n_rounds_and_not_pairs() -> None:
    res = results("P+pb " * 10 + "B " * 60)
    assert last_n_percentages(res) == {"player": 0, "banker": 100, "tie": 0}
    assert last_n_percentages(res, n=70) == {"player": 14, "banker": 86, "tie": 0}


# ---------------------------------------------------------------- speed


def test_ten_thousand_rounds_all_five_roads_quickly() -> None:
    rng = random.Random(1)
    res = [Result(rng.choice(["player", "banker", "banker", "tie"])) for _ in range(10_000)]
    # CPU time of this process: the load of other processes (a second test
    # worker, a benchmark) does not count against the roads.
    t0 = time.process_time()
    bead_plate(res)
    big_road(res)
    big_eye_boy(res)
    small_road(res)
    cockroach_pig(res)
    assert time.process_time() - t0 < 1.0  # ~50 ms on a laptop
