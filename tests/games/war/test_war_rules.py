"""Casino War dealing and settlement (games.war.rules), SPEC sections 5 and 8."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.cards import Card, parse_cards
from games.war.rules import (
    DEFAULT_PAYS,
    WarRound,
    first_cards_tied,
    play_war,
    rank_value,
    settle_war,
)


def test_rank_values_ace_high_suits_ignored() -> None:
    expected = dict(zip("23456789TJQKA", range(2, 15), strict=True))
    for rank, value in expected.items():
        for suit in "SHDC":
            assert rank_value(Card(rank, suit)) == value


def test_war_round_fields_in_contract_order() -> None:
    assert list(WarRound.__dataclass_fields__) == [
        "player_card",
        "dealer_card",
        "tied",
        "decision",
        "war_player_card",
        "war_dealer_card",
        "result",
    ]


def test_higher_card_wins_lower_loses_decision_ignored() -> None:
    win = play_war(parse_cards("AS KH 2C"), "war")
    assert win == WarRound(Card("A", "S"), Card("K", "H"), False, None, None, None, "win")
    lose = play_war(parse_cards("2S 3S"), None)
    assert (lose.result, lose.tied, lose.decision) == ("lose", False, None)
    assert play_war(parse_cards("TS 9S"), None).result == "win"  # 10 beats 9
    assert play_war(parse_cards("TS JS"), None).result == "lose"  # J beats 10


def test_a_tie_needs_a_decision() -> None:
    with pytest.raises(ValueError, match="decision"):
        play_war(parse_cards("7S 7H 2C 3C 4C 5C 6C"), None)
    with pytest.raises(ValueError):
        play_war(parse_cards("7S 7H"), "fold")
    assert first_cards_tied(parse_cards("7S 7H"))
    assert not first_cards_tied(parse_cards("7S 8H"))


def test_surrender_takes_no_more_cards() -> None:
    shoe = iter(parse_cards("QS QD 2C"))
    rnd = play_war(shoe, "surrender")
    assert rnd == WarRound(
        Card("Q", "S"), Card("Q", "D"), True, "surrender", None, None, "surrender"
    )
    assert [str(c) for c in shoe] == ["2C"]


@pytest.mark.parametrize(
    ("cards", "result"),
    [
        ("5S 5H 2C 3C 4C KS 9D", "war_win"),
        ("5S 5H 2C 3C 4C 9S KD", "war_lose"),
        ("5S 5H 2C 3C 4C 9S 9D", "war_tie"),
    ],
)
def test_war_burns_three_then_deals_player_then_dealer(cards: str, result: str) -> None:
    shoe = iter(parse_cards(cards + " AH"))
    rnd = play_war(shoe, "war")
    deal = parse_cards(cards)
    assert rnd == WarRound(deal[0], deal[1], True, "war", deal[5], deal[6], result)
    assert [str(c) for c in shoe] == ["AH"]


def test_running_out_of_cards() -> None:
    with pytest.raises(ValueError):
        play_war(parse_cards("5S"), None)
    with pytest.raises(ValueError):
        play_war(parse_cards("5S 5H 2C 3C 4C KS"), "war")


def rnd(cards: str, decision: str | None = None) -> WarRound:
    return play_war(parse_cards(cards), decision)


def test_settle_win_lose() -> None:
    assert settle_war(rnd("AS KH"), 100, 0, DEFAULT_PAYS) == {"ante": 200, "raise": 0, "tie_bet": 0}
    assert settle_war(rnd("2S KH"), 100, 50, DEFAULT_PAYS) == {"ante": 0, "raise": 0, "tie_bet": 0}


def test_settle_surrender_gives_half_the_ante_back_floored() -> None:
    tie = rnd("QS QD", "surrender")
    assert settle_war(tie, 100, 0, DEFAULT_PAYS) == {"ante": 50, "raise": 0, "tie_bet": 0}
    assert settle_war(tie, 101, 0, DEFAULT_PAYS)["ante"] == 50  # floored, house's favour


def test_settle_war_outcomes() -> None:
    win = rnd("5S 5H 2C 3C 4C KS 9D", "war")
    lose = rnd("5S 5H 2C 3C 4C 9S KD", "war")
    tie = rnd("5S 5H 2C 3C 4C 9S 9D", "war")
    # War win: the ante pushes, the raise (equal to the ante) wins 1 to 1.
    assert settle_war(win, 100, 0, DEFAULT_PAYS) == {"ante": 100, "raise": 200, "tie_bet": 0}
    assert settle_war(lose, 100, 0, DEFAULT_PAYS) == {"ante": 0, "raise": 0, "tie_bet": 0}
    # Tie in war: as a war win, plus the (default 0) bonus on the ante.
    assert settle_war(tie, 100, 0, DEFAULT_PAYS) == {"ante": 100, "raise": 200, "tie_bet": 0}
    bonus = dict(DEFAULT_PAYS, war_tie_bonus=Decimal("1.5"))
    assert settle_war(tie, 100, 0, bonus) == {"ante": 250, "raise": 200, "tie_bet": 0}
    assert settle_war(tie, 101, 0, bonus)["ante"] == 101 + 151  # 151.5 floored


def test_tie_bet_pays_x11_whenever_the_first_two_cards_tie() -> None:
    for decision, cards in (("surrender", "7S 7H"), ("war", "7S 7H 2C 3C 4C 2S 9D")):
        assert settle_war(rnd(cards, decision), 100, 10, DEFAULT_PAYS)["tie_bet"] == 110
    assert settle_war(rnd("7S 8H"), 100, 10, DEFAULT_PAYS)["tie_bet"] == 0


def test_missing_pay_keys_default() -> None:
    assert settle_war(rnd("AS KH"), 100, 0, {}) == {"ante": 200, "raise": 0, "tie_bet": 0}
    assert settle_war(rnd("7S 7H", "surrender"), 100, 10, {"ante": Decimal("1.9")}) == {
        "ante": 50,
        "raise": 0,
        "tie_bet": 110,
    }
    assert settle_war(rnd("AS KH"), 101, 0, {"ante": Decimal("1.95")})["ante"] == 196
    assert settle_war(rnd("AS KH"), 100, 0) == {"ante": 200, "raise": 0, "tie_bet": 0}


def test_default_pays() -> None:
    assert DEFAULT_PAYS == {
        "ante": Decimal(2),
        "raise": Decimal(2),
        "tie_bet": Decimal(11),
        "war_tie_bonus": Decimal(0),
    }


def test_settle_refuses_bad_stakes() -> None:
    with pytest.raises(ValueError):
        settle_war(rnd("AS KH"), -1, 0, DEFAULT_PAYS)
