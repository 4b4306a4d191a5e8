from __future__ import annotations

# Cross-check of the pure core against a second, independent implementation.
#
# The reference functions below were written straight from SPEC sections 3-5
# and 8, without looking at the core, so a disagreement points at a misreading
# on one side.  Hypothesis drives both with many random inputs (derandomized,
# so CI is deterministic); odds are checked against brute-force enumeration.
import itertools
import math
import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.baccarat import odds as bodds
from games.baccarat import roads
from games.baccarat.rules import play_coup, points, settle
from games.cards import RANKS, SUITS, Card, new_shoe, shuffle
from games.war import odds as wodds
from games.war.rules import play_war, rank_value, settle_war

# ---------------------------------------------------------------- reference


class R(NamedTuple):
    winner: str
    player_pair: bool = False
    banker_pair: bool = False


def ref_layout(kinds: list[str]) -> list[tuple[int, int]]:
    """SPEC 4 layout: same kind goes down, change starts right of the previous
    start (first free row-0 column), blocked or row 5 -> dragon tail."""
    taken: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    prev = None
    col = row = start = 0
    tail = False
    for kind in kinds:
        if prev is None:
            col, row, start, tail = 0, 0, 0, False
        elif kind == prev:
            if not tail and row + 1 <= 5 and (col, row + 1) not in taken:
                row += 1
            else:
                tail = True
                col += 1
        else:
            c = start + 1
            while (c, 0) in taken:
                c += 1
            col, row, start, tail = c, 0, c, False
        assert (col, row) not in taken
        taken.add((col, row))
        out.append((col, row))
        prev = kind
    return out


def ref_bead(results):
    return [(i // 6, i % 6, r.winner, r.player_pair, r.banker_pair) for i, r in enumerate(results)]


def ref_big_road(results):
    pos = ref_layout([r.winner for r in results if r.winner != "tie"])
    cells: list[list] = []
    i = 0
    for res in results:
        if res.winner == "tie":
            if not cells:
                cells.append([0, 0, None, 0, False, False])
            cell = cells[-1]
            cell[3] += 1
        else:
            if cells and cells[-1][2] is None:
                cell = cells[-1]
                cell[2] = res.winner
            else:
                cell = [*pos[i], res.winner, 0, False, False]
                cells.append(cell)
            i += 1
        cell[4] = cell[4] or bool(res.player_pair)
        cell[5] = cell[5] or bool(res.banker_pair)
    return [tuple(c) for c in cells]


def ref_colours(results, k: int) -> list[str]:
    streaks: list[int] = []
    colours: list[str] = []
    prev = None
    for res in results:
        w = res.winner
        if w == "tie":
            continue
        if w == prev:
            streaks[-1] += 1
        else:
            streaks.append(1)
        prev = w
        c, r = len(streaks) - 1, streaks[-1] - 1
        if not (c > k or (c == k and r >= 1)):
            continue
        if r == 0:
            colours.append("red" if streaks[c - 1] == streaks[c - 1 - k] else "blue")
        else:
            length = streaks[c - k]
            colours.append("red" if length >= r + 1 else "blue" if length == r else "red")
    return colours


def ref_derived(results, k: int):
    colours = ref_colours(results, k)
    return [(c, r, colour) for (c, r), colour in zip(ref_layout(colours), colours, strict=True)]


DERIVED_K = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


def ref_ask(results, winner):
    out = {}
    for name, k in DERIVED_K.items():
        before = ref_derived(results, k)
        after = ref_derived([*results, R(winner)], k) if winner != "tie" else before
        assert after[: len(before)] == before  # a road only ever grows
        out[name] = after[-1] if len(after) > len(before) else None
    return out


def ref_percent(results, n=60):
    recent = list(results)[-n:]
    if not recent:
        return {"player": 0, "banker": 0, "tie": 0}
    cnt = Counter(r.winner for r in recent)
    # "rounded": half up (the core's documented choice; see report)
    return {
        w: math.floor(Fraction(100 * cnt[w], len(recent)) + Fraction(1, 2))
        for w in ("player", "banker", "tie")
    }


PTS = {r: (0 if r in "TJQK" else 1 if r == "A" else int(r)) for r in RANKS}


def ref_banker_draws(bt: int, third: int | None) -> bool:
    if third is None:
        return bt <= 5
    return {
        0: True,
        1: True,
        2: True,
        3: third != 8,
        4: 2 <= third <= 7,
        5: 4 <= third <= 7,
        6: 6 <= third <= 7,
        7: False,
    }[bt]


def ref_play(cards):
    it = iter(cards)
    p = [next(it)]
    b = [next(it)]
    p.append(next(it))
    b.append(next(it))

    def tot(h):
        return sum(PTS[c.rank] for c in h) % 10

    natural = tot(p) >= 8 or tot(b) >= 8
    if not natural:
        third = None
        if tot(p) <= 5:
            p.append(next(it))
            third = PTS[p[2].rank]
        if ref_banker_draws(tot(b), third):
            b.append(next(it))
    pt, bt = tot(p), tot(b)
    winner = "player" if pt > bt else "banker" if bt > pt else "tie"
    return (
        tuple(p),
        tuple(b),
        pt,
        bt,
        winner,
        natural,
        p[0].rank == p[1].rank,
        b[0].rank == b[1].rank,
    )


def ref_settle(coup, bets, pays):
    w = coup.winner
    out = {}
    for area, stake in bets.items():
        mult = Fraction(pays[area])
        if area in ("player", "banker"):
            ret = math.floor(stake * mult) if w == area else stake if w == "tie" else 0
        elif area == "tie":
            ret = math.floor(stake * mult) if w == "tie" else 0
        else:
            hit = coup.player_pair if area == "player_pair" else coup.banker_pair
            ret = math.floor(stake * mult) if hit else 0
        out[area] = ret
    return out


def ref_rank_value(card):
    return "23456789TJQKA".index(card.rank) + 2


def ref_play_war(cards, decision):
    it = iter(cards)
    p, d = next(it), next(it)
    if ref_rank_value(p) != ref_rank_value(d):
        return (p, d, False, None, None, "win" if ref_rank_value(p) > ref_rank_value(d) else "lose")
    if decision == "surrender":
        return (p, d, True, "surrender", None, None, "surrender")
    assert decision == "war"
    for _ in range(3):
        next(it)
    wp, wd = next(it), next(it)
    a, b = ref_rank_value(wp), ref_rank_value(wd)
    return (p, d, True, "war", wp, wd, "war_win" if a > b else "war_lose" if a < b else "war_tie")


WAR_DEFAULTS = {"ante": 2, "raise": 2, "tie_bet": 11, "war_tie_bonus": 0}


def ref_settle_war(result, tied, ante, tie_bet, pays):
    m = {k: Fraction(pays.get(k, v)) for k, v in WAR_DEFAULTS.items()}
    fl = math.floor
    a, rz = {
        "win": (fl(ante * m["ante"]), 0),
        "lose": (0, 0),
        "surrender": (fl(Fraction(ante, 2)), 0),
        "war_win": (ante, fl(ante * m["raise"])),
        "war_tie": (ante + fl(ante * m["war_tie_bonus"]), fl(ante * m["raise"])),
        "war_lose": (0, 0),
    }[result]
    return {"ante": a, "raise": rz, "tie_bet": fl(tie_bet * m["tie_bet"]) if tied else 0}


# ------------------------------------------------------------- strategies

winners = st.sampled_from(["player", "banker", "tie"])
result = st.builds(R, winners, st.booleans(), st.booleans())
# long runs make dragon tails, tails under tails and taken start cells common
runs = st.lists(
    st.tuples(st.sampled_from(["player", "banker", "tie"]), st.integers(1, 14)), max_size=40
).map(lambda rs: [R(w) for w, n in rs for _ in range(n)])
# alternating long streaks: tails under tails, and start cells taken by row-0 tails
alternating = st.lists(st.sampled_from([1, 2, 5, 6, 7, 9, 12]), max_size=25).map(
    lambda ns: [R(("banker", "player")[i % 2]) for i, n in enumerate(ns) for _ in range(n)]
)
mixed = st.one_of(st.lists(result, max_size=150), runs, alternating)
cards = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))


# ------------------------------------------------------------------- roads


def test_reference_layout_known_shapes() -> None:
    # Sanity of the reference itself on hand-checked shapes.
    assert ref_layout(["B"] * 8) == [(0, i) for i in range(6)] + [(1, 5), (2, 5)]
    # a tail under a tail, and a start cell taken by a row-0 tail
    road = ref_layout(["B"] * 8 + ["P"] * 7 + ["B"] * 3)
    assert road[8:15] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    assert road[15:] == [(2, 0), (2, 1), (2, 2)]


@given(mixed)
def test_bead_plate_matches_reference(results) -> None:
    assert [tuple(c) for c in roads.bead_plate(results)] == ref_bead(results)


@given(mixed)
def test_big_road_matches_reference(results) -> None:
    got = roads.big_road(results)
    assert [tuple(c) for c in got] == ref_big_road(results)
    assert [c._fields for c in got[:1]] in (
        [],
        [("col", "row", "winner", "ties", "player_pair", "banker_pair")],
    )


@given(mixed)
def test_derived_roads_match_reference(results) -> None:
    for name, k in DERIVED_K.items():
        got = getattr(roads, name)(results)
        assert [tuple(c) for c in got] == ref_derived(results, k), name
        assert all(c._fields == ("col", "row", "colour") for c in got)


@given(mixed, st.sampled_from(["player", "banker"]))
def test_ask_matches_reference(results, winner) -> None:
    got = roads.ask(results, winner)
    want = ref_ask(results, winner)
    assert {k: (tuple(v) if v else v) for k, v in got.items()} == want


@given(mixed, st.integers(1, 80))
def test_last_n_percentages_matches_reference(results, n) -> None:
    assert roads.last_n_percentages(results, n) == ref_percent(results, n)


def test_big_road_leading_ties_and_tie_pairs() -> None:
    rs = [R("tie", True, False), R("tie"), R("banker", False, True), R("tie", False, False)]
    assert [tuple(c) for c in roads.big_road(rs)] == [(0, 0, "banker", 3, True, True)]
    assert [tuple(c) for c in roads.big_road(rs[:2])] == [(0, 0, None, 2, True, False)]


# ---------------------------------------------------------------- baccarat


@given(st.lists(cards, min_size=6, max_size=6))
def test_play_coup_matches_reference(hand) -> None:
    coup = play_coup(hand)
    got = (
        coup.player,
        coup.banker,
        coup.player_total,
        coup.banker_total,
        coup.winner,
        coup.natural,
        coup.player_pair,
        coup.banker_pair,
    )
    assert got == ref_play(hand)
    assert all(points(c) == PTS[c.rank] for c in hand)
    # only the cards the coup needs are taken from an iterator
    rest = iter(hand)
    play_coup(rest)
    assert len(list(rest)) == 6 - len(coup.player) - len(coup.banker)


def test_play_coup_every_opening_total_and_third_card() -> None:
    # Every pair of two-card totals x every player third card x two banker thirds.
    by_points = {v: Card(r, "S") for r, v in PTS.items()}
    for pt, bt, third, last in itertools.product(range(10), range(10), range(10), (0, 5)):
        hand = [by_points[v] for v in (pt, bt, 0, 0, third, last)]
        coup = play_coup(hand)
        assert (coup.player, coup.banker, coup.player_total, coup.banker_total) == ref_play(hand)[
            :4
        ]


areas = ("player", "banker", "tie", "player_pair", "banker_pair")
pay_values = st.sampled_from(
    [Decimal("2"), Decimal("1.95"), Decimal("8"), Decimal("9"), Decimal("1.5"), Decimal("12.34")]
)


@given(
    st.lists(cards, min_size=6, max_size=6),
    st.dictionaries(st.sampled_from(areas), st.integers(1, 10**6), min_size=1),
    st.fixed_dictionaries({a: pay_values for a in areas}),
)
def test_settle_matches_reference(hand, bets, pays) -> None:
    coup = play_coup(hand)
    got = settle(coup, bets, pays)
    want = ref_settle(coup, bets, pays)
    assert {a: got[a] for a in bets} == want
    assert all(v == 0 for a, v in got.items() if a not in bets)


def test_settle_seed_001_flooring() -> None:
    coup = play_coup([Card.parse(s) for s in ["2S", "9H", "3S", "KH", "TD", "TC"]])
    assert coup.winner == "banker"
    pays = {"banker": Decimal("1.95")}
    assert settle(coup, {"banker": 10}, pays)["banker"] == 19
    assert settle(coup, {"banker": 30}, pays)["banker"] == 58


# ------------------------------------------------------------------ odds


def brute_force_baccarat(decks: int) -> dict[str, Fraction]:
    """Every ordered deal by point class, counted exactly: a deal of m cards
    with class multiplicities contributes prod(counts) / (N)_m."""
    n = 52 * decks
    counts = [16 * decks] + [4 * decks] * 9
    wins: dict[str, list[int]] = {w: [0, 0, 0, 0, 0, 0, 0] for w in ("player", "banker", "tie")}

    def finish(pt, bt, weight, m):
        w = "player" if pt > bt else "banker" if bt > pt else "tie"
        wins[w][m] += weight

    for p1 in range(10):
        w1 = counts[p1]
        counts[p1] -= 1
        for b1 in range(10):
            w2 = w1 * counts[b1]
            counts[b1] -= 1
            for p2 in range(10):
                w3 = w2 * counts[p2]
                counts[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * counts[b2]
                    if not w4:
                        continue
                    counts[b2] -= 1
                    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
                    if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                        finish(pt, bt, w4, 4)
                    elif pt >= 6:  # player stands, banker (0-5) draws
                        for b3 in range(10):
                            if counts[b3]:
                                finish(pt, (bt + b3) % 10, w4 * counts[b3], 5)
                    else:
                        for p3 in range(10):
                            w5 = w4 * counts[p3]
                            if not w5:
                                continue
                            npt = (pt + p3) % 10
                            if not ref_banker_draws(bt, p3):
                                finish(npt, bt, w5, 5)
                                continue
                            counts[p3] -= 1
                            for b3 in range(10):
                                if counts[b3]:
                                    finish(npt, (bt + b3) % 10, w5 * counts[b3], 6)
                            counts[p3] += 1
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1

    def falling(m):
        return math.prod(range(n - m + 1, n + 1))

    out = {w: sum(Fraction(c[m], falling(m)) for m in (4, 5, 6)) for w, c in wins.items()}
    # pair: positions 1 and 3 share a rank; count ordered rank pairs
    out["pair"] = Fraction(13 * (4 * decks) * (4 * decks - 1), n * (n - 1))
    return out


@pytest.mark.parametrize("decks", [1, 8])
def test_exact_odds_match_brute_force(decks) -> None:
    want = brute_force_baccarat(decks)
    got = bodds.exact_odds(decks)
    assert (got.player, got.banker, got.tie) == (want["player"], want["banker"], want["tie"])
    assert got.player_pair == got.banker_pair == want["pair"]
    assert got.player + got.banker + got.tie == 1
    pays = {
        "player": Decimal("2"),
        "banker": Decimal("1.95"),
        "tie": Decimal("9"),
        "player_pair": Decimal("12"),
        "banker_pair": Decimal("12"),
    }
    r = bodds.rtp(pays, decks)
    assert r == {
        "player": 2 * want["player"] + want["tie"],
        "banker": Fraction("1.95") * want["banker"] + want["tie"],
        "tie": 9 * want["tie"],
        "player_pair": 12 * want["pair"],
        "banker_pair": 12 * want["pair"],
    }
    if decks == 8:  # seed 001's Classic figures
        assert [round(float(r[a]) * 100, 2) for a in ("banker", "player", "tie")] == [
            98.94,
            98.76,
            85.64,
        ]


# -------------------------------------------------------------------- war


@given(
    st.lists(cards, min_size=7, max_size=7),
    st.sampled_from(["war", "surrender"]),
    st.booleans(),
)
def test_play_war_matches_reference(hand, decision, force_tie) -> None:
    if force_tie:
        hand[1] = Card(hand[0].rank, hand[1].suit)
    rnd = play_war(hand, decision)
    want = ref_play_war(hand, decision)
    if not want[2]:
        p, d, tied, _, _, result_ = want
        assert (rnd.player_card, rnd.dealer_card, rnd.tied, rnd.result) == (p, d, tied, result_)
        assert rnd.war_player_card is None and rnd.war_dealer_card is None
    else:
        got = (
            rnd.player_card,
            rnd.dealer_card,
            rnd.tied,
            rnd.decision,
            rnd.war_player_card,
            rnd.war_dealer_card,
            rnd.result,
        )
        assert got == want
    assert all(rank_value(c) == ref_rank_value(c) for c in hand)


@given(
    st.lists(cards, min_size=7, max_size=7),
    st.sampled_from(["war", "surrender"]),
    st.booleans(),
    st.integers(1, 10**5),
    st.integers(0, 10**5),
    st.dictionaries(
        st.sampled_from(["ante", "raise", "tie_bet", "war_tie_bonus"]),
        st.sampled_from([Decimal("0"), Decimal("1"), Decimal("1.5"), Decimal("2"), Decimal("11")]),
    ),
)
def test_settle_war_matches_reference(hand, decision, force_tie, ante, tie_bet, pays) -> None:
    if force_tie:
        hand[1] = Card(hand[0].rank, hand[1].suit)
    rnd = play_war(hand, decision)
    got = settle_war(rnd, ante, tie_bet, pays)
    assert got == ref_settle_war(rnd.result, rnd.tied, ante, tie_bet, pays)


def brute_force_war(decks: int, pays) -> dict[str, Fraction]:
    """Enumerate rank classes of player, dealer, the three burns and the war
    cards, counting ordered deals exactly with integer weights."""
    m = {k: Fraction(pays.get(k, v)) for k, v in WAR_DEFAULTS.items()}
    n = 52 * decks
    counts = [4 * decks] * 13
    ev_war = ev_sur = Fraction(0)
    tie_p = Fraction(0)
    for p in range(13):
        for d in range(13):
            w = Fraction(counts[p] * (counts[d] - (p == d)), n * (n - 1))
            if p != d:
                net = m["ante"] - 1 if p > d else Fraction(-1)
                ev_war += w * net
                ev_sur += w * net
                continue
            tie_p += w
            ev_sur += w * Fraction(-1, 2)
            c = list(counts)
            c[p] -= 2
            left = n - 2
            higher = same = lower = 0
            for x in range(13):
                wx = c[x]
                c[x] -= 1
                for y in range(13):
                    wy = wx * c[y]
                    c[y] -= 1
                    for z in range(13):
                        wz = wy * c[z]
                        if not wz:
                            continue
                        c[z] -= 1
                        for a in range(13):
                            for b in range(13):
                                wab = wz * c[a] * (c[b] - (a == b))
                                if a > b:
                                    higher += wab
                                elif a == b:
                                    same += wab
                                else:
                                    lower += wab
                        c[z] += 1
                    c[y] += 1
                c[x] += 1
            den = math.prod(range(left - 4, left + 1))
            war = (
                Fraction(higher, den) * (m["raise"] - 1)
                + Fraction(same, den) * (m["raise"] - 1 + m["war_tie_bonus"])
                - 2 * Fraction(lower, den)
            )
            ev_war += w * war
    return {"war": -ev_war, "surrender": -ev_sur, "tie_bet": 1 - tie_p * m["tie_bet"]}


def test_exact_edge_matches_brute_force_one_deck() -> None:
    pays = {"ante": Decimal("2"), "war_tie_bonus": Decimal("1"), "tie_bet": Decimal("11")}
    assert wodds.exact_edge(1, pays) == brute_force_war(1, pays)


@pytest.mark.parametrize("decks", [2, 6, 8])
def test_exact_edge_by_exchangeability(decks) -> None:
    # Burns are unseen, so the war cards are two random cards of the rest.
    n, q = 52 * decks, 4 * decks
    tie = Fraction(q - 1, n - 1)
    war_tie = Fraction((q - 2) * (q - 3) + 12 * q * (q - 1), (n - 2) * (n - 3))
    war_lose = (1 - war_tie) / 2
    for pays in ({}, {"war_tie_bonus": Decimal("1"), "tie_bet": Decimal("10")}):
        m = {k: Fraction(pays.get(k, v)) for k, v in WAR_DEFAULTS.items()}
        war_ev = (
            (1 - war_tie - war_lose) * (m["raise"] - 1)
            + war_tie * (m["raise"] - 1 + m["war_tie_bonus"])
            - 2 * war_lose
        )
        base = (1 - tie) / 2 * (m["ante"] - 1) - (1 - tie) / 2
        assert wodds.exact_edge(decks, pays) == {
            "war": -(base + tie * war_ev),
            "surrender": -(base - tie / 2),
            "tie_bet": 1 - tie * m["tie_bet"],
        }


# ------------------------------------------------------------ whole shoes


@given(st.integers(1, 8), st.integers(0, 2**32))
def test_shuffled_shoes_play_like_reference(decks, seed) -> None:
    shoe = new_shoe(decks)
    assert len(shoe) == 52 * decks and Counter(shoe) == Counter(
        {Card(r, s): decks for r in RANKS for s in SUITS}
    )
    random.Random(seed).shuffle(shoe)
    coup = play_coup(shoe)
    assert (coup.player, coup.banker, coup.winner) == ref_play(shoe)[:2] + (ref_play(shoe)[4],)


@given(st.integers(1, 8), st.integers(0, 2**32))
def test_shuffle_is_random_shuffle(decks, seed) -> None:
    # Durstenfeld from the end with j = randrange(i + 1) is exactly what
    # random.Random.shuffle does, so a reimplementation can check against it.
    shoe = new_shoe(decks)
    want = list(shoe)
    random.Random(seed).shuffle(want)
    assert shuffle(shoe, random.Random(seed)) == want
    assert shoe == new_shoe(decks)
