"""Baccarat (punto banco) rules: dealing a coup and settling its bets.

Pure core (no Django).  A *coup* is one round: two cards each in the order
Player, Banker, Player, Banker, then possibly the Player's third card and the
Banker's third card, drawn by the fixed tableau below.  The web site decides
the whole coup when BET is pressed (SPEC section 7); the reveal only shows it.

Drawing rules (SPEC section 3):

* A = 1, 2-9 face value, T/J/Q/K = 0; a hand counts its last digit.
* Natural: if either side has 8 or 9 on two cards, both stand.
* Player draws on 0-5 and stands on 6-7.
* Banker, when the Player stood: draws on 0-5, stands on 6-7.  When the
  Player drew, by the Banker's total and the points of the Player's third
  card: 0-2 draw; 3 draws unless it is 8; 4 draws on 2-7; 5 on 4-7; 6 on 6-7;
  7 stands.

Pays are *multipliers of the total return* (stake included), applied exactly
with ``Decimal`` and floored to the integer minor unit (1 chip = 100 units), so
BANKER x1.95 on 10 units returns 19, on 20 returns 39 and on 30 returns 58.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from games import presets
from games.cards import Card
from games.money import decimal_pays, floor_units

AREAS: tuple[str, ...] = ("player", "banker", "tie", "player_pair", "banker_pair")
WINNERS: tuple[str, ...] = ("player", "banker", "tie")

# Seed 000 (1 deck, "Social") and seed 001 (8 decks, "Classic") paytables,
# from the presets (``games.presets``), as Decimals.  They are plain dicts as
# the contract says; copy them before changing anything.
SOCIAL_PAYS: dict[str, Decimal] = decimal_pays(presets.SOCIAL_PAYS)
CLASSIC_PAYS: dict[str, Decimal] = decimal_pays(presets.CLASSIC_PAYS)

_POINTS: dict[str, int] = {r: min(i + 1, 10) % 10 for i, r in enumerate("A23456789TJQK")}

# BANKER_DRAWS[banker_total][player_third_points] when the Player drew a third card.
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(
        bt <= 2
        or (bt == 3 and p3 != 8)
        or (bt == 4 and 2 <= p3 <= 7)
        or (bt == 5 and 4 <= p3 <= 7)
        or (bt == 6 and 6 <= p3 <= 7)
        for p3 in range(10)
    )
    for bt in range(10)
)


def points(card: Card) -> int:
    """Baccarat points of one card: A=1, 2-9 face value, T/J/Q/K=0."""
    return _POINTS[card.rank]


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Whether the Banker draws, with no natural on the table.

    ``player_third`` is the points of the Player's third card, or None when
    the Player stood.
    """
    if player_third is None:
        return banker_total <= 5
    return BANKER_DRAWS[banker_total][player_third]


@dataclass(frozen=True, slots=True)
class Coup:
    """The outcome of one baccarat round, cards in deal order per side."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int
    banker_total: int
    winner: str  # "player" | "banker" | "tie"
    natural: bool
    player_pair: bool
    banker_pair: bool

    @property
    def cards_in_deal_order(self) -> tuple[Card, ...]:
        """P1, B1, P2, B2, then the Player's and the Banker's third cards if any."""
        p, b = self.player, self.banker
        return (p[0], b[0], p[1], b[1], *p[2:], *b[2:])


def play_coup(cards: Iterable[Card]) -> Coup:
    """Deal one coup from ``cards`` (deal order), taking only the cards it needs.

    Given an iterator, at most six cards are consumed, so the rest of the shoe
    stays usable.  Raises ValueError when the cards run out.
    """
    it = iter(cards)
    try:
        p1, b1, p2, b2 = next(it), next(it), next(it), next(it)
    except StopIteration:
        raise ValueError("a coup needs at least four cards") from None
    player = [p1, p2]
    banker = [b1, b2]
    pt = (_POINTS[p1.rank] + _POINTS[p2.rank]) % 10
    bt = (_POINTS[b1.rank] + _POINTS[b2.rank]) % 10
    natural = pt >= 8 or bt >= 8
    if not natural:
        try:
            player_third: int | None = None
            if pt <= 5:
                p3 = next(it)
                player.append(p3)
                player_third = _POINTS[p3.rank]
                pt = (pt + player_third) % 10
            if banker_draws(bt, player_third):
                b3 = next(it)
                banker.append(b3)
                bt = (bt + _POINTS[b3.rank]) % 10
        except StopIteration:
            raise ValueError("the cards ran out before the coup was complete") from None
    winner = "player" if pt > bt else "banker" if bt > pt else "tie"
    return Coup(
        player=tuple(player),
        banker=tuple(banker),
        player_total=pt,
        banker_total=bt,
        winner=winner,
        natural=natural,
        player_pair=p1.rank == p2.rank,
        banker_pair=b1.rank == b2.rank,
    )


def settle(coup: Coup, bets: Mapping[str, int], pays: Mapping[str, Decimal]) -> dict[str, int]:
    """What each placed bet area gives back (stake included; 0 when lost).

    Only the areas present in ``bets`` appear in the result.  A tie returns
    PLAYER and BANKER stakes (push); PAIR bets are settled on their own, also
    on a tie.  Amounts are integer minor units.
    """
    out: dict[str, int] = {}
    for area, stake in bets.items():
        if area not in AREAS:
            raise ValueError(f"unknown baccarat bet area {area!r}")
        if not isinstance(stake, int) or isinstance(stake, bool) or stake < 0:
            raise ValueError(f"stake on {area} must be a non-negative integer, got {stake!r}")
        if area in ("player", "banker"):
            if coup.winner == area:
                out[area] = floor_units(stake, pays[area])
            elif coup.winner == "tie":
                out[area] = stake
            else:
                out[area] = 0
        elif area == "tie":
            out[area] = floor_units(stake, pays[area]) if coup.winner == "tie" else 0
        else:
            won = coup.player_pair if area == "player_pair" else coup.banker_pair
            out[area] = floor_units(stake, pays[area]) if won else 0
    return out
