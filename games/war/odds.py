"""Exact Casino War house edges (SPEC section 8), as Fractions.

Pure core (no Django).  With ``decks`` decks every rank has 4*decks of the
N = 52*decks cards.  The first two cards tie with probability
13 * 4d * (4d - 1) / (N * (N - 1)).  After a tie the three burns are unseen
random cards, so (by exchangeability) the two war cards are simply two more
cards drawn from the N - 2 cards left: the tied rank has 4d - 2 of them and
every other rank 4d.  Wins and losses are symmetric in both deals.

The edge is the expected loss per unit of the wager it names: for "war" and
"surrender" per unit of the ANTE (the original wager; with "war" the raise is
extra money at risk but the edge is still quoted per ante, as the usual
2.88% for 6 decks is); for "tie_bet" per unit of the tie bet.  No flooring:
these are the paytable's exact economics.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from games.money import floor_units
from games.war.rules import pays_with_defaults


def _fraction(value: Decimal | int | str | float | Fraction) -> Fraction:
    if isinstance(value, float):
        return Fraction(repr(value))
    if isinstance(value, str):
        return Fraction(value.strip())
    return Fraction(value)


def tie_probability(decks: int) -> Fraction:
    """Chance that the first two cards tie."""
    per_rank, n = 4 * decks, 52 * decks
    return Fraction(13 * per_rank * (per_rank - 1), n * (n - 1))


def war_tie_probability(decks: int) -> Fraction:
    """Chance that the war cards tie, given the first two cards tied."""
    per_rank, n = 4 * decks, 52 * decks - 2
    same = (per_rank - 2) * (per_rank - 3) + 12 * per_rank * (per_rank - 1)
    return Fraction(same, n * (n - 1))


def exact_edge(decks: int = 6, pays: Mapping[str, Decimal] | None = None) -> dict[str, Fraction]:
    """House edge of always going to war, always surrendering, and of the tie bet."""
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"decks must be a positive whole number, got {decks!r}")
    p = {k: _fraction(v) for k, v in pays_with_defaults(pays).items()}
    tie = tie_probability(decks)
    no_tie_win = (1 - tie) / 2  # the player's card is higher
    war_tie = war_tie_probability(decks)
    war_win = (1 - war_tie) / 2
    # Per unit ante.  Going to war stakes one more unit (the raise).
    war_return = war_win * (1 + p["raise"]) + war_tie * (1 + p["raise"] + p["war_tie_bonus"])
    ret_war = no_tie_win * p["ante"] + tie * war_return
    staked_war = 1 + tie
    ret_surrender = no_tie_win * p["ante"] + tie * Fraction(1, 2)
    return {
        "war": staked_war - ret_war,
        "surrender": 1 - ret_surrender,
        "tie_bet": 1 - tie * p["tie_bet"],
    }


def tie_bet_moments(
    stake: int, decks: int = 6, pays: Mapping[str, Decimal] | None = None
) -> tuple[Fraction, Fraction]:
    """Mean and variance of what ``stake`` units on the tie bet give back,
    paid as ``rules.settle_war`` pays them (floored to the unit). The ante has
    no such figure of its own: its return depends on the player's choice at a
    tie (war or surrender)."""
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"decks must be a positive whole number, got {decks!r}")
    tie = tie_probability(decks)
    back = floor_units(stake, pays_with_defaults(pays)["tie_bet"])
    mean = tie * back
    return mean, tie * back * back - mean * mean
