"""The live squeeze: the largest stakes peel a coup's cards while the table watches.

**Unlocked** as at a private table (``baccarat.squeeze_unlocked``, seed
000): a side of a live coup is squeezed when the slip holding that side's
largest stake reaches the squeeze threshold of the table version it was
placed under. The largest PLAYER stake peels the Player's cards, the
largest BANKER stake the Banker's (equal stakes: the earlier bet). The
promo clip does not count here: it unlocks one player's visit, and on a
shared table it would let any stake hold every player's coup. Nobody can
refuse the squeeze; a peeler who does nothing only waits out the clock.

**The cards.** At the close the dealer draws the coup's cards from the
shoe as always (``live._deal_coup``); ``hold`` then keeps the coup
``SQUEEZING`` instead of settling it. The cards are stored on the coup
and only there: the bets stay OPEN, no balance moves, the shoe is not
marked ended (its document, which names its seed, waits), and the state
the table is sent shows only the cards already open. Who peels, and
whether anyone does, changes nothing about the cards: they were drawn
before anyone was chosen.

**The peels**, in the private table's order: the PLAYER's 2nd card, the
BANKER's 2nd, then the 3rd cards that were drawn, each of a squeezed side
only (a side nobody peels opens with the next peel, or at the end). The
peeler drags the card (their moves are relayed to the table:
games/consumers/live_squeeze.py) and opens it (``live.open_card``), or it
opens by itself ``squeeze_seconds`` (the table version's) after its peel
began. The last card open, the coup is dealt and every bet on it settled
in that one transaction (``live._open_squeezed``). A dealer that died
mid-squeeze: the next one finds the peel overdue by a whole window and
opens every card at once: the result was fixed at the close and is
settled, never refunded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.baccarat.rules import Coup as DealtCoup
from games.baccarat.rules import play_coup
from games.cards import Card
from games.models import Coup, Round, Shoe, Table
from games.services import rounds
from games.services.baccarat import PAIR_OF, SIDES, squeeze_unlocked


@dataclass(frozen=True)
class Peel:
    """One card to be peeled: ``slot`` as the private table names it
    ("p2", "b2", "p3", "b3"), ``at`` its place in the coup's deal order."""

    slot: str
    side: str
    card: int  # 2 or 3
    at: int
    peeler: int  # the player's id


def peelers(waiting: Sequence[Round]) -> dict[str, int]:
    """Side -> the player who peels it: the largest stake on that side
    (equal stakes: the earlier bet), when their slip unlocks the squeeze."""
    chosen: dict[str, int] = {}
    for side in SIDES:
        best: Round | None = None
        for rnd in sorted(waiting, key=lambda r: r.pk):
            stake = int(rnd.bets.get(side, 0))
            if stake and (best is None or stake > int(best.bets.get(side, 0))):
                best = rnd
        if best is not None and squeeze_unlocked(
            total_bet=best.total_bet, threshold=best.version.squeeze_threshold, promo=False
        ):
            chosen[side] = best.player_id
    return chosen


def dealt_coup(coup: Coup) -> DealtCoup:
    return play_coup(Card.parse(code) for code in coup.cards)


def _deal_index(dealt: DealtCoup, side: str, number: int) -> int:
    # Deal order: P1 B1 P2 B2, then the Player's 3rd, then the Banker's.
    if number == 2:
        return 2 if side == "player" else 3
    return 4 if side == "player" else 4 + (len(dealt.player) == 3)


def peels(coup: Coup) -> list[Peel]:
    """The coup's peels in deal order."""
    dealt = dealt_coup(coup)
    found = []
    for side, player_id in (coup.squeeze.get("peelers") or {}).items():
        hand = dealt.player if side == "player" else dealt.banker
        for number in range(2, len(hand) + 1):
            slot = f"{side[0]}{number}"
            found.append(Peel(slot, side, number, _deal_index(dealt, side, number), int(player_id)))
    return sorted(found, key=lambda p: p.at)


def current(coup: Coup | None) -> Peel | None:
    """The card being peeled now (None: the coup is not squeezing)."""
    if coup is None or coup.status != Coup.Status.SQUEEZING:
        return None
    steps = peels(coup)
    done = int(coup.squeeze.get("peeled", 0))
    return steps[done] if done < len(steps) else None


def shown_cards(coup: Coup) -> list[str]:
    """The coup's cards already open, in deal order: those before the card
    being peeled (every card once the coup is dealt)."""
    peel = current(coup)
    return list(coup.cards) if peel is None else list(coup.cards[: peel.at])


def may_open(coup: Coup | None, *, user_id: int, slot: str) -> bool:
    """Whether ``user_id`` peels the card ``slot`` of ``coup`` right now."""
    peel = current(coup)
    return peel is not None and peel.slot == slot and peel.peeler == user_id


# ------------------------------------------------------------------ the dealer's side
# Each runs in the dealer's transaction, under the table's row lock.


def hold(*, table: Table, coup: Coup, shoe: Shoe, waiting: Sequence[Round], now: Any) -> bool:
    """At the deal: keep ``coup`` squeezing if a side is squeezed (the bets
    then wait for the cards to open); False: deal it as every coup."""
    chosen = peelers(waiting)
    if not chosen:
        return False
    seconds = rounds.current_version(table).squeeze_seconds
    coup.status = Coup.Status.SQUEEZING
    coup.dealt_at = None
    coup.squeeze = {
        "peelers": chosen,
        "seconds": seconds,
        "peeled": 0,
        # Whether a PAIR of that side was bet (the navigator's PAIR WIN NO.).
        "pairs": {s: any(r.bets.get(PAIR_OF[s]) for r in waiting) for s in chosen},
        # The shoe ends when this coup is dealt: its seed waits for the open.
        "ends_shoe": shoe.ended_at is not None,
    }
    coup.peel_until = now + dt.timedelta(seconds=seconds)
    coup.save(update_fields=["status", "dealt_at", "squeeze", "peel_until"])
    if shoe.ended_at is not None:
        shoe.ended_at = None
        shoe.save(update_fields=["ended_at"])
    return True


def due(coup: Coup, now: dt.datetime) -> str:
    """What a squeezing coup needs now: "" (its card is being peeled),
    "peel" (that card opens by itself and the next peel begins) or "open"
    (its last card's time is up, or no dealer came for a whole window:
    every card opens)."""
    if coup.peel_until is None:
        return "open"
    if now < coup.peel_until:
        return ""
    missed = now >= coup.peel_until + dt.timedelta(seconds=int(coup.squeeze.get("seconds", 0)))
    return "open" if missed or is_last(coup) else "peel"


def is_last(coup: Coup) -> bool:
    return int(coup.squeeze.get("peeled", 0)) + 1 >= len(peels(coup))


def next_peel(coup: Coup, now: dt.datetime) -> None:
    """The card being peeled is open; the next one's clock starts."""
    coup.squeeze = {**coup.squeeze, "peeled": int(coup.squeeze.get("peeled", 0)) + 1}
    coup.peel_until = now + dt.timedelta(seconds=int(coup.squeeze.get("seconds", 0)))
    coup.save(update_fields=["squeeze", "peel_until"])


def open_all(coup: Coup, now: dt.datetime) -> None:
    """Every card open: the coup is dealt (and its shoe ended if the cut
    card came out in it); live._settle_open settles its bets."""
    coup.status = Coup.Status.DEALT
    coup.dealt_at = now
    coup.peel_until = None
    coup.squeeze = {**coup.squeeze, "peeled": len(peels(coup))}
    coup.save(update_fields=["status", "dealt_at", "peel_until", "squeeze"])
    if coup.squeeze.get("ends_shoe"):
        Shoe.objects.filter(pk=coup.shoe_id).update(ended_at=now)
