"""Exact baccarat probabilities, return to player, and the squeeze navigator.

Pure core (no Django). Everything is exact (cards drawn without replacement,
``Fraction`` results); docs/odds.md explains how the enumeration stays fast
and what the navigator computes from the cards shown (never the hidden one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from games.baccarat.rules import AREAS, BANKER_DRAWS, Coup, banker_draws, points
from games.cards import RANKS, Card
from games.money import floor_units

SIDES: tuple[str, ...] = ("player", "banker")


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact probabilities of one coup's outcomes (the pairs are independent of the winner)."""

    player: Fraction
    banker: Fraction
    tie: Fraction
    player_pair: Fraction
    banker_pair: Fraction


def _check_decks(decks: int) -> None:
    if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 8:
        raise ValueError(f"decks must be a whole number from 1 to 8, got {decks!r}")


def _class_counts(decks: int) -> list[int]:
    return [16 * decks] + [4 * decks] * 9


def _finish(pt: int, bt: int, r: list[int], rem: int) -> tuple[int, int, int]:
    """Weights (player, banker, tie) of the rest of a coup after the first four cards.

    ``pt``/``bt`` are the two-card totals, ``r`` the unseen counts per point
    class and ``rem`` their sum.  The weights share the denominator
    ``rem * (rem - 1)`` (the fifth and sixth cards, drawn or not).
    """
    den = rem * (rem - 1)
    if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
        if pt > bt:
            return den, 0, 0
        if bt > pt:
            return 0, den, 0
        return 0, 0, den
    rem1 = rem - 1
    # t[f]: unseen cards that would bring the Banker to final total f.
    t = r[10 - bt :] + r[: 10 - bt]
    if pt >= 6:
        # Player stands on 6-7, Banker (0-5 here) draws.
        below = sum(t[:pt])
        tie = t[pt]
        return below * rem1, (rem - below - tie) * rem1, tie * rem1
    # above[f]: unseen cards bringing the Banker above f.
    above = [0] * 10
    acc = 0
    for f in range(9, -1, -1):
        above[f] = acc
        acc += t[f]
    draws = BANKER_DRAWS[bt]
    pw = bw = tw = 0
    for x in range(10):
        cx = r[x]
        if not cx:
            continue
        pf = pt + x
        if pf >= 10:
            pf -= 10
        if draws[x]:
            fx = bt + x
            if fx >= 10:
                fx -= 10
            b = above[pf] - (fx > pf)
            ti = t[pf] - (fx == pf)
            pw += cx * (rem1 - b - ti)
            bw += cx * b
            tw += cx * ti
        elif pf > bt:
            pw += cx * rem1
        elif pf < bt:
            bw += cx * rem1
        else:
            tw += cx * rem1
    return pw, bw, tw


def _unordered_pairs(c: list[int]):
    """Yield (a, b, weight) for the ordered draws of two classes, grouped a <= b.

    ``c`` is left with a and b removed while the caller handles the pair, and
    restored afterwards.
    """
    for a in range(10):
        ca = c[a]
        if not ca:
            continue
        c[a] = ca - 1
        for b in range(a, 10):
            cb = c[b]
            if not cb:
                continue
            c[b] = cb - 1
            yield a, b, ca * cb * (1 if a == b else 2)
            c[b] = cb
        c[a] = ca


def _pair_probability(decks: int) -> Fraction:
    per_rank = 4 * decks
    return Fraction(per_rank - 1, 52 * decks - 1)


def exact_odds(decks: int) -> Odds:
    """Exact chances of PLAYER / BANKER / TIE and of each PAIR for ``decks`` decks (1-8)."""
    _check_decks(decks)
    n = 52 * decks
    c = _class_counts(decks)
    rem = n - 4
    pw = bw = tw = 0
    finish = _finish
    for a, b, wp in _unordered_pairs(c):
        pt = (a + b) % 10
        for d, e, wb in _unordered_pairs(c):
            w = wp * wb
            x, y, z = finish(pt, (d + e) % 10, c, rem)
            pw += w * x
            bw += w * y
            tw += w * z
    den = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    assert pw + bw + tw == den, "the enumeration must cover every coup"  # noqa: S101 -- an invariant of the sum, not a check of input
    pair = _pair_probability(decks)
    return Odds(
        player=Fraction(pw, den),
        banker=Fraction(bw, den),
        tie=Fraction(tw, den),
        player_pair=pair,
        banker_pair=pair,
    )


def _to_fraction(value: Decimal | int | str | float | Fraction) -> Fraction:
    if isinstance(value, float):
        return Fraction(repr(value))
    if isinstance(value, str):
        return Fraction(value.strip())
    return Fraction(value)


def rtp(pays: Mapping[str, Decimal], decks: int) -> dict[str, Fraction]:
    """Expected return per unit staked on each area (stake included, no flooring).

    PLAYER and BANKER count a tie as returning the stake; the pairs are
    independent of the winner.  Areas missing from ``pays`` are left out.
    """
    odds = exact_odds(decks)
    out: dict[str, Fraction] = {}
    for area in AREAS:
        if area not in pays:
            continue
        m = _to_fraction(pays[area])
        if area in ("player", "banker"):
            out[area] = getattr(odds, area) * m + odds.tie
        else:
            out[area] = getattr(odds, area) * m
    return out


_cached_odds = lru_cache(maxsize=8)(exact_odds)


def bet_moments(
    area: str, stake: int, pays: Mapping[str, Decimal], decks: int
) -> tuple[Fraction, Fraction]:
    """Mean and variance of what ``stake`` units on ``area`` give back, paid as
    ``rules.settle`` pays them (floored to the unit), from ``exact_odds``.

    The live RTP watch (docs/monitoring.md) adds these up over the rounds a
    table deals and compares what it returned: a z-score. The floor matters
    there: on a 0.10 BANKER bet it takes 2.6% off the paytable's RTP.
    """
    if area not in AREAS:
        raise ValueError(f"unknown baccarat bet area {area!r}")
    odds = _cached_odds(decks)
    outcomes = [(getattr(odds, area), floor_units(stake, pays[area]))]
    if area in SIDES:
        outcomes.append((odds.tie, stake))  # a tie returns the stake
    mean = sum((p * back for p, back in outcomes), Fraction(0))
    second = sum((p * back * back for p, back in outcomes), Fraction(0))
    return mean, second - mean * mean


# ---------------------------------------------------------------- navigator


@dataclass(frozen=True, slots=True)
class NextCardOdds:
    """Chances of the coup's outcome if the peeled card is worth ``points``."""

    points: int
    count: int  # unseen cards worth these points
    player: Fraction
    banker: Fraction
    tie: Fraction


@dataclass(frozen=True, slots=True)
class Navigator:
    """What the squeeze navigator shows while ``side``'s card number ``card`` is peeled.

    ``outcomes`` maps each points value the card can still take (0-9, only
    values with unseen cards) to its ``NextCardOdds``; ``unseen`` is the number
    of unseen cards; ``pair_ranks`` / ``pair_chance`` describe completing the
    side's PAIR with this card (empty / 0 for a 3rd card).
    """

    side: str  # "player" | "banker"
    card: int  # 2 or 3: which card of that side is being peeled
    unseen: int
    outcomes: Mapping[int, NextCardOdds]
    pair_ranks: tuple[str, ...]
    pair_chance: Fraction

    @property
    def chance_numbers(self) -> tuple[int, ...]:
        """CHANCE NO. (Player side): values that make a Player win more likely than not."""
        half = Fraction(1, 2)
        return tuple(v for v, o in sorted(self.outcomes.items()) if o.player > half)

    @property
    def win_numbers(self) -> tuple[int, ...]:
        """WIN NO. (Banker side): values that make the Banker win certain."""
        return tuple(v for v, o in sorted(self.outcomes.items()) if o.banker == 1)

    @property
    def numbers(self) -> tuple[int, ...]:
        """The numbers the table shows for this side (CHANCE NO. or WIN NO.)."""
        return self.chance_numbers if self.side == "player" else self.win_numbers


def _unseen_counts(decks: int, shown: Sequence[Card]) -> tuple[list[int], Counter[str]]:
    """Unseen cards per point class and per rank, refusing impossible shown cards."""
    per_card = Counter(shown)
    for card, k in per_card.items():
        if k > decks:
            raise ValueError(f"{card} is shown {k} times but the shoe has only {decks}")
    c = _class_counts(decks)
    ranks = Counter({rank: 4 * decks for rank in RANKS})
    for card in shown:
        c[points(card)] -= 1
        ranks[card.rank] -= 1
    return c, ranks


def _total(cards: Sequence[Card]) -> int:
    return sum(points(card) for card in cards) % 10


def _position(player: Sequence[Card], banker: Sequence[Card], side: str) -> int:
    """Which card of ``side`` is next (2 or 3), refusing shown cards that are no squeeze position."""
    np_, nb = len(player), len(banker)
    pt = _total(player[:2]) if np_ >= 2 else None
    bt = _total(banker[:2]) if nb >= 2 else None
    natural = pt is not None and bt is not None and (pt >= 8 or bt >= 8)
    if side == "player":
        if np_ == 1 and nb == 1:
            return 2
        if np_ == 2 and nb == 2 and not natural and pt is not None and pt <= 5:
            return 3
    elif side == "banker":
        if np_ == 2 and nb == 1:
            return 2
        if nb == 2 and not natural and bt is not None and pt is not None:
            if np_ == 2 and pt >= 6 and banker_draws(bt, None):
                return 3
            if np_ == 3 and pt <= 5 and banker_draws(bt, points(player[2])):
                return 3
    else:
        raise ValueError(f"side must be 'player' or 'banker', got {side!r}")
    raise ValueError(
        f"not a squeeze position for the {side}'s next card: "
        f"{np_} player card(s) and {nb} banker card(s) shown"
    )


def navigator(
    decks: int,
    player_cards: Sequence[Card],
    banker_cards: Sequence[Card],
    side: str,
    *,
    seen: Sequence[Card] = (),
) -> Navigator:
    """Exact navigator for peeling ``side``'s next card; see the module docstring.

    ``seen`` holds the cards of the shoe shown before this coup (a live
    table's earlier coups, shown to everybody at it): they are no longer in
    the shoe either. A private round's shoe is new, so it has none."""
    _check_decks(decks)
    player = tuple(player_cards)
    banker = tuple(banker_cards)
    card = _position(player, banker, side)
    c, ranks = _unseen_counts(decks, player + banker + tuple(seen))
    unseen = sum(c)
    outcomes: dict[int, NextCardOdds] = {}
    for v in range(10):
        cv = c[v]
        if not cv:
            continue
        c[v] = cv - 1
        rem = unseen - 1
        pw, bw, tw, den = _peel(side, card, player, banker, v, c, rem)
        c[v] = cv
        outcomes[v] = NextCardOdds(v, cv, Fraction(pw, den), Fraction(bw, den), Fraction(tw, den))
    if card == 2:
        first = (player if side == "player" else banker)[0]
        left = ranks[first.rank]
        pair_ranks = (first.rank,) if left > 0 else ()
        pair_chance = Fraction(left, unseen)
    else:
        pair_ranks, pair_chance = (), Fraction(0)
    return Navigator(side, card, unseen, outcomes, pair_ranks, pair_chance)


def _peel(
    side: str,
    card: int,
    player: tuple[Card, ...],
    banker: tuple[Card, ...],
    v: int,
    c: list[int],
    rem: int,
) -> tuple[int, int, int, int]:
    """Integer weights (player, banker, tie, denominator) given the peeled card is worth ``v``.

    ``c`` holds the unseen counts with the peeled card already removed and
    ``rem`` their sum.
    """
    if card == 2 and side == "player":
        pt = (points(player[0]) + v) % 10
        b1 = points(banker[0])
        pw = bw = tw = 0
        rem1 = rem - 1
        for b2 in range(10):
            w = c[b2]
            if not w:
                continue
            c[b2] = w - 1
            x, y, z = _finish(pt, (b1 + b2) % 10, c, rem1)
            c[b2] = w
            pw += w * x
            bw += w * y
            tw += w * z
        return pw, bw, tw, rem * rem1 * (rem1 - 1)
    if card == 2:
        pt = _total(player)
        bt = (points(banker[0]) + v) % 10
        x, y, z = _finish(pt, bt, c, rem)
        return x, y, z, rem * (rem - 1)
    if side == "player":
        bt = _total(banker)
        pf = (_total(player) + v) % 10
        if not banker_draws(bt, v):
            return _compare(pf, bt, 1)
        pw = bw = tw = 0
        for y in range(10):
            w = c[y]
            bf = (bt + y) % 10
            if bf < pf:
                pw += w
            elif bf > pf:
                bw += w
            else:
                tw += w
        return pw, bw, tw, rem
    pf = _total(player)
    bf = (_total(banker) + v) % 10
    return _compare(pf, bf, 1)


def _compare(pf: int, bf: int, den: int) -> tuple[int, int, int, int]:
    if pf > bf:
        return den, 0, 0, den
    if bf > pf:
        return 0, den, 0, den
    return 0, 0, den, den


def squeeze_steps(coup: Coup, side: str) -> list[tuple[tuple[Card, ...], tuple[Card, ...], Card]]:
    """The peels of ``side``'s 2nd and (if dealt) 3rd card in ``coup``.

    Each step is ``(player_cards_shown, banker_cards_shown, peeled_card)``;
    pass the first two to ``navigator`` (never the third).
    """
    p, b = coup.player, coup.banker
    if side == "player":
        steps = [(p[:1], b[:1], p[1])]
        if len(p) == 3:
            steps.append((p[:2], b[:2], p[2]))
    elif side == "banker":
        steps = [(p[:2], b[:1], b[1])]
        if len(b) == 3:
            steps.append((p, b[:2], b[2]))
    else:
        raise ValueError(f"side must be 'player' or 'banker', got {side!r}")
    return steps
