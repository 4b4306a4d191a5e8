"""The live squeeze on screen (templates/baccarat/live_squeeze.html): the
squeezing coup's cards already open, the card being peeled face down with
the navigator, who peels it and when it opens by itself; and what the
table's sockets need to relay the peeler's moves (``peel_turn``).

Everything here is drawn from ``live_squeeze.shown_cards``: the cards not
yet open never reach a template. The navigator reads only the open cards,
the cards the shoe's earlier coups showed everybody, and the shoe's
composition (``navigator_view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User

from commitlog.keys import pseudonym
from games.baccarat.rules import points
from games.cards import Card
from games.models import Coup
from games.presenters.baccarat.squeeze import NavigatorView, navigator_view
from games.presenters.common import card_view
from games.selectors.live import LiveView
from games.services import live_squeeze

NAME_CHARS = 8  # a player's log pseudonym as the table shows it (the winners too)
FIRST_FOUR = 4  # P1 B1 P2 B2: dealt before any third card


def player_name(user_id: int) -> str:
    return pseudonym(user_id)[:NAME_CHARS]


@dataclass(frozen=True)
class LiveHand:
    cards: list[dict[str, Any]]  # card views; the one being peeled is face down
    total: int | None  # of the open cards


@dataclass(frozen=True)
class LivePeelView:
    coup: int  # the coup's id: a move or an OPEN names the peel it is for
    number: int
    slot: str  # "p2", "b2", "p3", "b3"
    side: str
    card: int  # 2 or 3
    peeler: str  # the peeler's pseudonym (the page knows its own: data-me)
    until_ms: int  # when the card opens by itself (the server's clock)
    player: LiveHand
    banker: LiveHand
    navigator: NavigatorView


def _hands(coup: Coup, peel: live_squeeze.Peel) -> tuple[LiveHand, LiveHand]:
    dealt = live_squeeze.dealt_coup(coup)
    shown = live_squeeze.shown_cards(coup)
    # Deal order: P1 B1 P2 B2, the Player's 3rd, the Banker's 3rd.
    sides = ["player", "banker", "player", "banker"]
    sides += ["player"] * (len(dealt.player) == 3) + ["banker"] * (len(dealt.banker) == 3)
    done = int(coup.squeeze.get("peeled", 0))
    flipped = live_squeeze.peels(coup)[done - 1].at if done else -1
    cards: dict[str, list[dict[str, Any]]] = {"player": [], "banker": []}
    for i, code in enumerate(shown):
        cards[sides[i]].append({**card_view(code), "flipped": i == flipped})
    cards[peel.side].append({"face_down": True, "peeling": True})
    # The first four cards are on the felt from the deal: one not open yet
    # lies face down in its place. A third card is drawn only once those four
    # are open, so none shows before then (its mere presence is news).
    for i in range(peel.at + 1, FIRST_FOUR):
        cards[sides[i]].append({"face_down": True})

    def hand(side: str) -> LiveHand:
        codes = [c["code"] for c in cards[side] if not c.get("face_down")]
        total = sum(points(Card.parse(c)) for c in codes) % 10 if codes else None
        return LiveHand(cards[side], total)

    return hand("player"), hand("banker")


def peel_view(coup: Coup | None, *, seen: Sequence[str] = ()) -> LivePeelView | None:
    """The squeezing coup as the table sees it, or None; ``seen``: the cards
    of the shoe's earlier coups (``LiveView.seen``)."""
    peel = live_squeeze.current(coup)
    if coup is None or peel is None or coup.peel_until is None:
        return None
    player, banker = _hands(coup, peel)
    open_player = [Card.parse(c["code"]) for c in player.cards if not c.get("face_down")]
    open_banker = [Card.parse(c["code"]) for c in banker.cards if not c.get("face_down")]
    return LivePeelView(
        coup=coup.pk,
        number=coup.number,
        slot=peel.slot,
        side=peel.side,
        card=peel.card,
        peeler=player_name(peel.peeler),
        until_ms=int(coup.peel_until.timestamp() * 1000),
        player=player,
        banker=banker,
        navigator=navigator_view(
            decks=coup.shoe.decks,
            player_cards=open_player,
            banker_cards=open_banker,
            side=peel.side,
            pair_bet=bool((coup.squeeze.get("pairs") or {}).get(peel.side)),
            seen=[Card.parse(code) for code in seen],
        ),
    )


def state_context(view: LiveView) -> dict[str, Any]:
    """What the table's state adds while a coup is squeezed."""
    squeeze = peel_view(view.coup, seen=view.seen)
    hands = [("player", squeeze.player), ("banker", squeeze.banker)] if squeeze else []
    return {"squeeze": squeeze, "squeeze_hands": hands}


def peel_turn(coup: Coup | None) -> dict[str, Any] | None:
    """Who may move and open which card now, for the table's sockets (never
    sent to a page: a page is told the peeler's pseudonym only)."""
    peel = live_squeeze.current(coup)
    if coup is None or peel is None:
        return None
    return {"coup": coup.pk, "slot": peel.slot, "peeler": peel.peeler}


def seat_context(user: User) -> dict[str, Any]:
    """The page's own name at the table: its script shows the peel's
    handle to the peeler only (the server accepts no one else's moves)."""
    return {"me": player_name(user.pk)}
