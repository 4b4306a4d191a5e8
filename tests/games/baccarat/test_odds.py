"""Exact baccarat odds, RTP and the squeeze navigator (games.baccarat.odds)."""

from __future__ import annotations

import inspect
import itertools
import time
from decimal import Decimal
from fractions import Fraction

import pytest

from games.baccarat.odds import Navigator, exact_odds, navigator, rtp, squeeze_steps
from games.baccarat.rules import CLASSIC_PAYS, SOCIAL_PAYS, play_coup
from games.cards import Card, parse_cards

REP = ["T", "A", "2", "3", "4", "5", "6", "7", "8", "9"]  # a rank for each point value

# SPEC section 3 tableau, by hand (Banker two-card total -> Player third card points).
BANKER_DRAWS_ON = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def brute_force_odds(decks: int) -> tuple[Fraction, Fraction, Fraction]:
    """Straightforward ordered enumeration, written independently of the module."""
    c = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    wins = {"player": 0, "banker": 0, "tie": 0}

    def score(pf: int, bf: int, w: int) -> None:
        wins["player" if pf > bf else "banker" if bf > pf else "tie"] += w

    for p1, b1, p2, b2 in itertools.product(range(10), repeat=4):
        w = 1
        for k in (p1, b1, p2, b2):
            w *= c[k]
            c[k] -= 1
        if w:
            pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
            rest = n - 4
            if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                score(pt, bt, w * rest * (rest - 1))
            elif pt >= 6:
                for y in range(10):
                    score(pt, (bt + y) % 10, w * c[y] * (rest - 1))
            else:
                for x in range(10):
                    wx = w * c[x]
                    if not wx:
                        continue
                    c[x] -= 1
                    pf = (pt + x) % 10
                    if x in BANKER_DRAWS_ON[bt]:
                        for y in range(10):
                            score(pf, (bt + y) % 10, wx * c[y])
                    else:
                        score(pf, bt, wx * (rest - 1))
                    c[x] += 1
        for k in (p1, b1, p2, b2):
            c[k] += 1
    den = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    assert sum(wins.values()) == den
    return (
        Fraction(wins["player"], den),
        Fraction(wins["banker"], den),
        Fraction(wins["tie"], den),
    )


def test_exact_odds_eight_decks_published_figures() -> None:
    odds = exact_odds(8)
    assert round(float(odds.banker), 6) == 0.458597
    assert round(float(odds.player), 6) == 0.446247
    assert round(float(odds.tie), 6) == 0.095156
    assert odds.player_pair == odds.banker_pair == Fraction(31, 415)
    assert odds.player + odds.banker + odds.tie == 1
    assert all(
        isinstance(getattr(odds, f), Fraction)
        for f in ("player", "banker", "tie", "player_pair", "banker_pair")
    )


def test_exact_odds_one_deck_matches_a_brute_force_enumeration() -> None:
    odds = exact_odds(1)
    assert (odds.player, odds.banker, odds.tie) == brute_force_odds(1)
    assert odds.player_pair == Fraction(3, 51)


@pytest.mark.parametrize("decks", range(1, 9))
def test_exact_odds_every_deck_count_is_a_distribution(decks: int) -> None:
    odds = exact_odds(decks)
    assert odds.player + odds.banker + odds.tie == 1
    assert odds.banker > odds.player > odds.tie > 0
    assert odds.player_pair == Fraction(4 * decks - 1, 52 * decks - 1)


@pytest.mark.parametrize("decks", [0, 9, 2.0])
def test_exact_odds_refuses_other_deck_counts(decks: object) -> None:
    with pytest.raises(ValueError):
        exact_odds(decks)  # type: ignore[arg-type]


def test_classic_rtp_is_the_seed_001_figures() -> None:
    r = rtp(CLASSIC_PAYS, 8)
    assert round(float(r["banker"]) * 100, 2) == 98.94
    assert round(float(r["player"]) * 100, 2) == 98.76
    assert round(float(r["tie"]) * 100, 2) == 85.64
    assert r["player_pair"] == r["banker_pair"] == Fraction(31, 415) * 12
    assert all(isinstance(v, Fraction) for v in r.values())


def test_rtp_counts_a_tie_as_returning_the_stake() -> None:
    odds = exact_odds(1)
    r = rtp(SOCIAL_PAYS, 1)
    assert r["player"] == 2 * odds.player + odds.tie
    assert r["banker"] == Fraction(195, 100) * odds.banker + odds.tie
    assert r["tie"] == 8 * odds.tie
    assert r["player_pair"] == 10 * Fraction(3, 51)
    assert rtp({"tie": Decimal("9")}, 8) == {"tie": 9 * exact_odds(8).tie}


# ---------------------------------------------------------------- navigator


def brute_force_navigator(
    decks: int, shown: list[Card], known: list[int | None], unknown_slots: int
) -> dict[int, tuple[Fraction, Fraction, Fraction]]:
    """Outcome chances per value of the peeled card by enumerating every deal.

    ``known`` lists the deal order P1, B1, P2, B2, P3/B3... as point values
    with None at the peeled card; ``unknown_slots`` more cards follow.  Every
    continuation is weighted by drawing without replacement and played with
    ``play_coup`` (which ignores the cards it does not need).
    """
    c = [16 * decks] + [4 * decks] * 9
    for card in shown:
        c[pts(card)] -= 1
    out = {}
    for v in range(10):
        if not c[v]:
            continue
        c[v] -= 1
        totals = {"player": 0, "banker": 0, "tie": 0}
        for rest in itertools.product(range(10), repeat=unknown_slots):
            w = 1
            for k in rest:
                w *= c[k]
                c[k] -= 1
            for k in rest:
                c[k] += 1
            if not w:
                continue
            values = [v if x is None else x for x in known] + list(rest)
            coup = play_coup(Card(REP[x], "S") for x in values)
            totals[coup.winner] += w
        c[v] += 1
        s = sum(totals.values())
        out[v] = tuple(Fraction(totals[k], s) for k in ("player", "banker", "tie"))
    return out


def pts(card: Card) -> int:
    return 0 if card.rank in "TJQK" else 1 if card.rank == "A" else int(card.rank)


def as_table(nav: Navigator) -> dict[int, tuple[Fraction, Fraction, Fraction]]:
    return {v: (o.player, o.banker, o.tie) for v, o in nav.outcomes.items()}


@pytest.mark.parametrize("decks", [1, 8])
def test_navigator_player_second_card_matches_brute_force(decks: int) -> None:
    p1, b1 = Card.parse("4H"), Card.parse("QS")
    nav = navigator(decks, [p1], [b1], "player")
    # Deal order P1, B1, P2 (peeled), then B2, P3, B3 unknown.
    expected = brute_force_navigator(decks, [p1, b1], [pts(p1), pts(b1), None], 3)
    assert as_table(nav) == expected
    assert (nav.side, nav.card) == ("player", 2)


def test_navigator_banker_second_card_matches_brute_force() -> None:
    p1, p2, b1 = parse_cards("7C 9D 5H")
    nav = navigator(1, [p1, p2], [b1], "banker")
    expected = brute_force_navigator(1, [p1, p2, b1], [pts(p1), pts(b1), pts(p2), None], 2)
    assert as_table(nav) == expected
    assert (nav.side, nav.card) == ("banker", 2)


def test_navigator_player_third_card_matches_brute_force() -> None:
    shown = parse_cards("AS 2H 3D 3C")  # P1 B1 P2 B2: Player 4, Banker 5
    nav = navigator(2, [shown[0], shown[2]], [shown[1], shown[3]], "player")
    expected = brute_force_navigator(2, shown, [1, 2, 3, 3, None], 1)
    assert as_table(nav) == expected
    assert nav.card == 3 and nav.pair_ranks == () and nav.pair_chance == 0


def test_navigator_takes_the_shoes_earlier_cards_out_as_the_brute_force_does() -> None:
    """At a live table the shoe's earlier coups were shown to everybody: a
    one-deck shoe that has shown three 9s, two 8s and a ten holds one 9."""
    p1, b1 = parse_cards("9C KH")
    earlier = parse_cards("9D 9H 9S 8C 8D TS")
    nav = navigator(1, [p1], [b1], "player", seen=earlier)
    expected = brute_force_navigator(1, [p1, b1, *earlier], [pts(p1), pts(b1), None], 3)
    assert as_table(nav) == expected
    assert as_table(nav) != as_table(navigator(1, [p1], [b1], "player"))
    assert nav.unseen == 52 - 2 - 6
    assert nav.outcomes[0].count == 16 - 2 and nav.outcomes[8].count == 2
    assert 9 not in nav.outcomes  # every 9 is out: the peeled card cannot be one
    assert (nav.pair_ranks, nav.pair_chance) == ((), 0)  # nor can it pair the 9C


def test_navigator_refuses_a_card_seen_more_often_than_the_shoe_holds_it() -> None:
    with pytest.raises(ValueError, match="shown 2 times"):
        navigator(1, parse_cards("9C"), parse_cards("KH"), "player", seen=parse_cards("9C"))


def test_navigator_banker_win_numbers_when_a_natural_decides() -> None:
    """Player T K = 0 (draws), Banker shows 9: a 0 or a 9 gives the Banker 9 / 8,
    a natural the Player's 0 cannot beat; anything else leaves the Player a
    chance (e.g. Banker 7 loses to a Player third card 8 or 9)."""
    nav = navigator(8, parse_cards("TH KS"), parse_cards("9S"), "banker")
    assert nav.win_numbers == (0, 9)
    assert nav.numbers == (0, 9)
    assert nav.outcomes[0].banker == 1 and nav.outcomes[9].banker == 1
    assert 0 < nav.outcomes[8].player < 1


def test_navigator_banker_third_card_is_forced() -> None:
    """Player 6 stands; Banker 2 draws: final 7, 8 or 9 (cards 5, 6, 7) beats 6,
    a 4 ties, anything else loses."""
    nav = navigator(8, parse_cards("6H TD"), parse_cards("2C TS"), "banker")
    assert nav.card == 3
    assert nav.win_numbers == (5, 6, 7)
    assert nav.outcomes[4].tie == 1
    for v in (0, 1, 2, 3, 8, 9):
        assert nav.outcomes[v].player == 1


def test_navigator_player_third_card_against_a_standing_banker() -> None:
    """Player 5 draws, Banker 7 stands: 3 or 4 makes 8 or 9 and wins for sure; 2 ties."""
    nav = navigator(8, parse_cards("2S 3D"), parse_cards("TH 7C"), "player")
    assert nav.chance_numbers == (3, 4)
    assert nav.numbers == (3, 4)
    assert nav.outcomes[3].player == nav.outcomes[4].player == 1
    assert nav.outcomes[2].tie == 1


def test_navigator_player_second_card_hand_worked_one_deck() -> None:
    """P1 = 9, B1 = K.  If the peeled card is a ten (0), the Player has a natural 9;
    only a 9 as B2 (3 of the 49 unseen) ties.  If it is a 9, the Player has 8: an 8
    as B2 ties (4 left), a 9 wins for the Banker (2 left)."""
    nav = navigator(1, parse_cards("9C"), parse_cards("KH"), "player")
    assert nav.unseen == 50
    assert nav.outcomes[0].count == 15 and nav.outcomes[9].count == 3
    assert (nav.outcomes[0].player, nav.outcomes[0].tie) == (Fraction(46, 49), Fraction(3, 49))
    assert nav.outcomes[0].banker == 0
    assert (nav.outcomes[9].player, nav.outcomes[9].banker, nav.outcomes[9].tie) == (
        Fraction(43, 49),
        Fraction(2, 49),
        Fraction(4, 49),
    )
    assert {0, 9} <= set(nav.chance_numbers)
    assert nav.pair_ranks == ("9",)
    assert nav.pair_chance == Fraction(3, 50)


def test_navigator_pair_ranks_for_the_banker_second_card() -> None:
    nav = navigator(1, parse_cards("9C 9H"), parse_cards("9S"), "banker")
    assert nav.pair_ranks == ("9",)
    assert nav.pair_chance == Fraction(1, 49)
    assert 9 in nav.outcomes and nav.outcomes[9].count == 1  # only 9D is unseen


def test_navigator_leaves_out_values_with_no_unseen_card() -> None:
    # One deck: 4 nines exist; with three shown, only one remains, then none.
    nav = navigator(1, parse_cards("9C 9H"), parse_cards("9S"), "banker")
    assert nav.outcomes[9].count == 1
    nav2 = navigator(1, parse_cards("AS"), parse_cards("AH"), "player")
    assert nav2.outcomes[1].count == 2
    assert set(nav2.outcomes) == set(range(10))


def test_navigator_never_takes_the_hidden_card() -> None:
    """Only shown cards are parameters (this coup's, and the shoe's earlier
    ones), and two coups that differ only in the hidden card give the same
    navigator."""
    assert list(inspect.signature(navigator).parameters) == [
        "decks",
        "player_cards",
        "banker_cards",
        "side",
        "seen",
    ]
    a = play_coup(parse_cards("4H QS 2D 5C 7S 3H"))
    b = play_coup(parse_cards("4H QS 9D 5C 7S 3H"))  # a different Player 2nd card
    (pa, ba, hidden_a), *_ = squeeze_steps(a, "player")
    (pb, bb, hidden_b), *_ = squeeze_steps(b, "player")
    assert (pa, ba) == (pb, bb) and hidden_a != hidden_b
    assert navigator(8, pa, ba, "player") == navigator(8, pb, bb, "player")


def test_squeeze_steps_follow_the_reveal_order() -> None:
    coup = play_coup(parse_cards("AS 2H 3D 4C 6S 7H"))  # both sides draw
    steps = squeeze_steps(coup, "player")
    assert [(list(map(str, p)), list(map(str, b)), str(h)) for p, b, h in steps] == [
        (["AS"], ["2H"], "3D"),
        (["AS", "3D"], ["2H", "4C"], "6S"),
    ]
    steps = squeeze_steps(coup, "banker")
    assert [(list(map(str, p)), list(map(str, b)), str(h)) for p, b, h in steps] == [
        (["AS", "3D"], ["2H"], "4C"),
        (["AS", "3D", "6S"], ["2H", "4C"], "7H"),
    ]
    for side in ("player", "banker"):
        for shown_p, shown_b, _hidden in squeeze_steps(coup, side):
            navigator(8, shown_p, shown_b, side)  # every step is a valid position


@pytest.mark.parametrize(
    ("player", "banker", "side"),
    [
        ("AS", "", "player"),  # B1 not shown yet
        ("AS 2S", "3H", "player"),  # Player already has two, Banker one
        ("6S TS", "2H 3H", "player"),  # Player 6 stands: no third card
        ("9S TS", "2H 3H", "player"),  # natural
        ("AS", "2H", "banker"),  # P2 not shown yet
        ("6S TS", "7H TH", "banker"),  # Banker 7 stands
        ("2S 3S", "2H 4H", "banker"),  # Player draws first: P3 must be shown
        ("2S 3S 8D", "3H TH", "banker"),  # Banker 3 stands on a Player 8
        ("AS", "2H", "tie"),
    ],
)
def test_navigator_refuses_positions_that_cannot_be_squeezed(
    player: str, banker: str, side: str
) -> None:
    with pytest.raises(ValueError):
        navigator(8, parse_cards(player), parse_cards(banker), side)


def test_navigator_refuses_impossible_shown_cards() -> None:
    with pytest.raises(ValueError):
        navigator(1, parse_cards("AS"), parse_cards("AS"), "player")


def test_navigator_is_fast() -> None:
    p1, b1 = parse_cards("4H QS")
    times = []
    for _ in range(31):
        t0 = time.perf_counter()
        navigator(8, [p1], [b1], "player")
        times.append(time.perf_counter() - t0)
    times.sort()
    assert times[15] < 0.01  # ~0.3 ms on a laptop; generous for a loaded machine
