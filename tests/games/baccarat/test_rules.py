"""Baccarat drawing rules and settlement (games.baccarat.rules), table-driven from SPEC section 3."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.baccarat.rules import (
    AREAS,
    CLASSIC_PAYS,
    SOCIAL_PAYS,
    Coup,
    play_coup,
    points,
    settle,
)
from games.cards import Card, parse_cards

# A card worth each number of points (0 is a ten).
CARD_FOR = {0: "T", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}

# SPEC section 3, written out by hand: Banker's two-card total (rows) against
# the points of the Player's third card (columns 0..9); D = Banker draws.
# "0-2 draw; 3 draws unless it is 8; 4 draws on 2-7; 5 draws on 4-7;
#  6 draws on 6-7; 7 stands."
BANKER_TABLE = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
    7: "SSSSSSSSSS",
}


def two_cards_for(total: int) -> tuple[str, str]:
    """Two ranks making ``total`` without being a pair (so pairs stay out of the way)."""
    if total == 0:
        return "T", "K"
    if total == 1:
        return "A", "K"
    return CARD_FOR[total], "K"


def deal(p: tuple[str, str], b: tuple[str, str], *more: str) -> Coup:
    """Deal P1, B1, P2, B2 then ``more`` (ranks; suits are irrelevant)."""
    ranks = [p[0], b[0], p[1], b[1], *more]
    return play_coup(Card(r, "SHDC"[i % 4]) for i, r in enumerate(ranks))


def test_points_of_every_rank() -> None:
    expected = dict(zip("A23456789TJQK", [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], strict=True))
    for rank, value in expected.items():
        assert points(Card(rank, "S")) == value


@pytest.mark.parametrize(
    ("banker_total", "third"),
    [(bt, p3) for bt in range(8) for p3 in range(10)],
)
def test_every_cell_of_the_banker_third_card_table(banker_total: int, third: int) -> None:
    player = ("T", "5")  # Player 5: draws
    coup = deal(player, two_cards_for(banker_total), CARD_FOR[third], "9")
    assert len(coup.player) == 3
    draws = BANKER_TABLE[banker_total][third] == "D"
    assert len(coup.banker) == (3 if draws else 2)
    assert coup.player_total == (5 + third) % 10
    assert coup.banker_total == ((banker_total + 9) % 10 if draws else banker_total)
    assert not coup.natural


@pytest.mark.parametrize(
    ("pt", "bt"),
    [(pt, bt) for pt in range(10) for bt in range(10)],
)
def test_naturals_stands_and_draws_for_every_pair_of_two_card_totals(pt: int, bt: int) -> None:
    """Natural 8/9 on either side: both stand.  Player draws 0-5, stands 6-7.
    When the Player stood, the Banker draws 0-5 and stands 6-7."""
    coup = deal(two_cards_for(pt), two_cards_for(bt), "T", "T")
    natural = pt >= 8 or bt >= 8
    assert coup.natural is natural
    if natural:
        assert (len(coup.player), len(coup.banker)) == (2, 2)
        assert (coup.player_total, coup.banker_total) == (pt, bt)
    else:
        assert len(coup.player) == (3 if pt <= 5 else 2)
        if pt >= 6:
            assert len(coup.banker) == (3 if bt <= 5 else 2)
    want = "player" if coup.player_total > coup.banker_total else "banker"
    if coup.player_total == coup.banker_total:
        want = "tie"
    assert coup.winner == want


def test_a_natural_stands_even_against_a_drawing_total() -> None:
    coup = play_coup(parse_cards("9S 2H KD TC 5S 5H"))  # Player 9, Banker 2
    assert coup.natural and coup.winner == "player"
    assert len(coup.player) == len(coup.banker) == 2


def test_both_naturals_equal_tie() -> None:
    coup = play_coup(parse_cards("9S 9H KD KC"))
    assert (coup.winner, coup.natural, coup.player_total, coup.banker_total) == (
        "tie",
        True,
        9,
        9,
    )


def test_play_coup_takes_only_the_cards_it_needs() -> None:
    shoe = iter(parse_cards("9S 2H KD TC 5S 5H"))
    play_coup(shoe)
    assert [str(c) for c in shoe] == ["5S", "5H"]
    shoe = iter(parse_cards("2S 3H 2D 3C 4S 4H 7C"))  # P 4 draws 4 -> 8, B 6 stands on 4
    coup = play_coup(shoe)
    assert [str(c) for c in coup.player] == ["2S", "2D", "4S"]
    assert [str(c) for c in coup.banker] == ["3H", "3C"]
    assert [str(c) for c in shoe] == ["4H", "7C"]


def test_deal_order_is_player_banker_player_banker_then_thirds() -> None:
    coup = play_coup(parse_cards("AS 2H 3D 4C 5S 6H"))  # P 4 draws 5 -> 9; B 6 stands on 5
    assert [str(c) for c in coup.player] == ["AS", "3D", "5S"]
    assert [str(c) for c in coup.banker] == ["2H", "4C"]
    assert coup.cards_in_deal_order == tuple(parse_cards("AS 2H 3D 4C 5S"))
    coup = play_coup(parse_cards("AS 2H 3D 4C 6S 7H"))  # P 4 draws 6 -> 0; B 6 draws on 6
    assert [str(c) for c in coup.banker] == ["2H", "4C", "7H"]
    assert (coup.player_total, coup.banker_total, coup.winner) == (0, 3, "banker")


def test_too_few_cards() -> None:
    with pytest.raises(ValueError):
        play_coup(parse_cards("AS 2H 3D"))
    with pytest.raises(ValueError):
        play_coup(parse_cards("AS 2H 3D 4C"))  # the Player needs a third card


@pytest.mark.parametrize(
    ("player", "banker", "player_pair", "banker_pair"),
    [
        ("TH TS", "2C 3C", True, False),
        ("TH JH", "QC KC", False, False),  # 10, J, Q, K are four different ranks
        ("JH JS", "KD KC", True, True),
        ("5C 5D", "5H 6H", True, False),
        ("AS 2S", "9D 9C", False, True),
        ("QS KS", "TD JD", False, False),
    ],
)
def test_pairs_use_ranks_not_points(
    player: str, banker: str, player_pair: bool, banker_pair: bool
) -> None:
    p, b = parse_cards(player), parse_cards(banker)
    coup = play_coup([p[0], b[0], p[1], b[1], *parse_cards("TC TD")])
    assert (coup.player_pair, coup.banker_pair) == (player_pair, banker_pair)


def test_third_cards_never_make_a_pair() -> None:
    coup = play_coup(parse_cards("2S 3S 2H 3H 2D 3D"))  # P 2-2, B 3-3; P draws
    assert coup.player_pair and coup.banker_pair
    coup = play_coup(parse_cards("2S 3S 3H 4H 2D 3D"))  # thirds equal the first cards
    assert not coup.player_pair and not coup.banker_pair


def test_coup_is_frozen_with_fields_in_contract_order() -> None:
    assert list(Coup.__dataclass_fields__) == [
        "player",
        "banker",
        "player_total",
        "banker_total",
        "winner",
        "natural",
        "player_pair",
        "banker_pair",
    ]
    coup = play_coup(parse_cards("9S 2H KD TC"))
    with pytest.raises(AttributeError):
        coup.winner = "banker"  # type: ignore[misc]
    assert isinstance(coup.player, tuple) and isinstance(coup.banker, tuple)


# ---------------------------------------------------------------- settle

BANKER_WIN = play_coup(parse_cards("2S 9H 3D KC TS"))  # P 5 v B 9 natural
PLAYER_WIN = play_coup(parse_cards("9S 2H KD TC"))  # P 9 natural vs B 2
TIE_WITH_PAIRS = play_coup(parse_cards("4S 4H 4D 4C"))  # 8 v 8 natural tie, both pairs


def test_fixture_coups() -> None:
    assert BANKER_WIN.winner == "banker"
    assert PLAYER_WIN.winner == "player"
    assert TIE_WITH_PAIRS.winner == "tie"
    assert TIE_WITH_PAIRS.player_pair and TIE_WITH_PAIRS.banker_pair


@pytest.mark.parametrize(("stake", "back"), [(10, 19), (20, 39), (30, 58), (100, 195), (0, 0)])
def test_seed_001_banker_pays_x195_floored_to_the_unit(stake: int, back: int) -> None:
    """Seed 001: 0.10 -> 0.19, 0.20 -> 0.39, 0.30 -> 0.58 (1 chip = 100 units)."""
    assert settle(BANKER_WIN, {"banker": stake}, CLASSIC_PAYS) == {"banker": back}


def test_win_and_lose_per_area() -> None:
    bets = {"player": 100, "tie": 100, "player_pair": 100, "banker_pair": 100}
    assert settle(PLAYER_WIN, bets, SOCIAL_PAYS) == {
        "player": 200,
        "tie": 0,
        "player_pair": 0,
        "banker_pair": 0,
    }
    assert settle(BANKER_WIN, {"player": 100, "banker": 0}, SOCIAL_PAYS) == {
        "player": 0,
        "banker": 0,
    }


def test_a_tie_pushes_player_and_banker_and_pays_tie() -> None:
    assert settle(TIE_WITH_PAIRS, {"player": 300, "tie": 100}, SOCIAL_PAYS) == {
        "player": 300,
        "tie": 800,
    }
    assert settle(TIE_WITH_PAIRS, {"banker": 300, "tie": 100}, CLASSIC_PAYS) == {
        "banker": 300,
        "tie": 900,
    }


def test_pair_bets_settle_on_their_own_also_on_a_tie() -> None:
    bets = {"player_pair": 100, "banker_pair": 200}
    assert settle(TIE_WITH_PAIRS, bets, CLASSIC_PAYS) == {"player_pair": 1200, "banker_pair": 2400}
    assert settle(TIE_WITH_PAIRS, bets, SOCIAL_PAYS) == {"player_pair": 1000, "banker_pair": 2000}
    tie_no_pairs = play_coup(parse_cards("3S 5H 5D 3C"))  # 8 v 8, no pairs
    assert tie_no_pairs.winner == "tie"
    assert settle(tie_no_pairs, bets, CLASSIC_PAYS) == {"player_pair": 0, "banker_pair": 0}


def test_settle_accepts_other_multiplier_types_exactly() -> None:
    pays = {"banker": 1.95, "player": "2", "tie": 8, "player_pair": Decimal("11.5")}
    assert settle(BANKER_WIN, {"banker": 30}, pays) == {"banker": 58}
    assert settle(TIE_WITH_PAIRS, {"player_pair": 3}, pays) == {"player_pair": 34}


def test_settle_refuses_unknown_areas_and_bad_stakes() -> None:
    with pytest.raises(ValueError):
        settle(PLAYER_WIN, {"dragon": 100}, SOCIAL_PAYS)
    with pytest.raises(ValueError):
        settle(PLAYER_WIN, {"player": -1}, SOCIAL_PAYS)


def test_presets() -> None:
    assert AREAS == ("player", "banker", "tie", "player_pair", "banker_pair")
    assert SOCIAL_PAYS == {
        "player": Decimal(2),
        "banker": Decimal("1.95"),
        "tie": Decimal(8),
        "player_pair": Decimal(10),
        "banker_pair": Decimal(10),
    }
    assert CLASSIC_PAYS == {
        "player": Decimal(2),
        "banker": Decimal("1.95"),
        "tie": Decimal(9),
        "player_pair": Decimal(12),
        "banker_pair": Decimal(12),
    }
    assert all(isinstance(v, Decimal) for v in [*SOCIAL_PAYS.values(), *CLASSIC_PAYS.values()])
