"""Casino War rules (seed 004, SPEC section 5): dealing a round and settling it.

Pure core (no Django).  One card each to the player and the dealer; ranks
2 < 3 < ... < 10 < J < Q < K < A, suits ignored.  Higher card wins the ante
1 to 1, lower loses it.  On a tie the player either SURRENDERs (half the ante
back, floored in the house's favour) or goes to WAR: a raise equal to the
ante, the dealer burns three cards and deals one more card each.  In the war,
player higher *or tie again* wins the raise 1 to 1 and the ante pushes (a tie
can also pay the optional "tie in war" bonus on the ante); dealer higher
loses ante and raise.  The optional TIE BONUS bet wins when the first two
cards tie (10 to 1, i.e. x11 total return).

A round that ties needs the player's decision before it can finish, so the
site deals the first two cards, shows them, waits (the round is stored), and
then calls ``play_war`` again on the same shoe with the decision.
``first_cards_tied`` answers the first question without a decision.

Pays are total-return multipliers (stake included), applied exactly with
``Decimal`` and floored to the integer minor unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from games.cards import Card
from games.money import decimal_pays, floor_units
from games.presets import WAR_PAYS

DECISIONS: tuple[str, ...] = ("war", "surrender")
RESULTS: tuple[str, ...] = ("win", "lose", "surrender", "war_win", "war_lose", "war_tie")
BURNS = 3

# SPEC section 8 defaults (the Casino War preset), as total-return
# multipliers.  Copy before changing.
DEFAULT_PAYS: dict[str, Decimal] = decimal_pays(WAR_PAYS)

_VALUES: dict[str, int] = {r: i + 2 for i, r in enumerate("23456789TJQKA")}


def rank_value(card: Card) -> int:
    """War value of a card: 2..10 face value, J 11, Q 12, K 13, A 14."""
    return _VALUES[card.rank]


@dataclass(frozen=True, slots=True)
class WarRound:
    """One Casino War round.

    ``decision`` is None when the first cards did not tie (it is ignored
    then); the war cards are None unless the player went to war.
    """

    player_card: Card
    dealer_card: Card
    tied: bool
    decision: str | None
    war_player_card: Card | None
    war_dealer_card: Card | None
    result: str  # one of RESULTS


def first_cards_tied(cards: Iterable[Card]) -> bool:
    """Whether the first two cards of ``cards`` (player, dealer) tie."""
    it = iter(cards)
    try:
        player, dealer = next(it), next(it)
    except StopIteration:
        raise ValueError("a war round needs at least two cards") from None
    return rank_value(player) == rank_value(dealer)


def play_war(cards: Iterable[Card], decision: str | None) -> WarRound:
    """Play a round from ``cards`` in deal order, taking only the cards it needs.

    Order: player, dealer; on a tie with decision "war": three burns, then
    player, dealer.  ``decision`` is ignored without a tie; on a tie it must be
    "war" or "surrender" (ValueError otherwise, e.g. None: ask the player
    first, see ``first_cards_tied``).
    """
    it = iter(cards)
    try:
        player, dealer = next(it), next(it)
    except StopIteration:
        raise ValueError("a war round needs at least two cards") from None
    pv, dv = rank_value(player), rank_value(dealer)
    if pv != dv:
        result = "win" if pv > dv else "lose"
        return WarRound(player, dealer, False, None, None, None, result)
    if decision not in DECISIONS:
        raise ValueError(
            f"the first cards tied ({player} vs {dealer}): decision must be 'war' or "
            f"'surrender', got {decision!r}"
        )
    if decision == "surrender":
        return WarRound(player, dealer, True, "surrender", None, None, "surrender")
    try:
        for _ in range(BURNS):
            next(it)
        war_player, war_dealer = next(it), next(it)
    except StopIteration:
        raise ValueError("the shoe ran out during the war") from None
    wpv, wdv = rank_value(war_player), rank_value(war_dealer)
    result = "war_win" if wpv > wdv else "war_lose" if wpv < wdv else "war_tie"
    return WarRound(player, dealer, True, "war", war_player, war_dealer, result)


def pays_with_defaults(pays: Mapping[str, Decimal] | None) -> dict[str, Decimal]:
    """``pays`` completed with ``DEFAULT_PAYS`` for every missing key."""
    out = dict(DEFAULT_PAYS)
    if pays:
        for key, value in pays.items():
            if key not in DEFAULT_PAYS:
                raise ValueError(f"unknown war pay {key!r}; expected {sorted(DEFAULT_PAYS)}")
            out[key] = value
    return out


def settle_war(
    round: WarRound, ante: int, tie_bet: int, pays: Mapping[str, Decimal] | None = None
) -> dict[str, int]:
    """What the ante, the raise and the tie bet give back (stake included; 0 when lost).

    The raise equals the ante and exists only in a war (its key is 0
    otherwise).  Surrender gives back half the ante, floored.
    """
    for name, stake in (("ante", ante), ("tie_bet", tie_bet)):
        if not isinstance(stake, int) or isinstance(stake, bool) or stake < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {stake!r}")
    p = pays_with_defaults(pays)
    result = round.result
    back_ante = back_raise = 0
    if result == "win":
        back_ante = floor_units(ante, p["ante"])
    elif result == "surrender":
        back_ante = ante // 2
    elif result == "war_win":
        back_ante = ante
        back_raise = floor_units(ante, p["raise"])
    elif result == "war_tie":
        back_ante = ante + floor_units(ante, p["war_tie_bonus"])
        back_raise = floor_units(ante, p["raise"])
    elif result not in ("lose", "war_lose"):
        raise ValueError(f"unknown war result {result!r}")
    back_tie = floor_units(tie_bet, p["tie_bet"]) if round.tied else 0
    return {"ante": back_ante, "raise": back_raise, "tie_bet": back_tie}
