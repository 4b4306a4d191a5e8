"""The live squeeze on a live table's socket (``LiveConsumer`` takes it as
a base; games/services/live_squeeze.py has the rules).

The peeler's page sends its drag as moves, ``{"action": "peel", "slot":
"p2", "x0", "y0", "nx", "ny", "depth"}`` (the fold: where it was taken, as
fractions of the card, the direction into the card, how far it is lifted,
as a fraction), and ``{"action": "peel", "slot": "p2", "open": true}`` to
open the card. Every such message counts against the socket's budget
(``limits.MessageBudget``: a flooding script is cut off) and is then
taken only from the socket of the player who peels that very card now:
a watcher's, the other side's peeler's, or one for a card not being peeled
is dropped. A move is relayed to the table's group as a fragment drawn
from its numbers (never the page's text); OPEN goes to the dealer's
service (``live.open_card``, which checks the peeler again under the
table's lock) and the table's new state goes to everybody.

Whose turn it is comes with every state the dealer sends (``peel`` in
``live.state``: the coup, the slot, the peeler's id; never sent to a
page), so a move costs no database read.

A process relays at most one move of a card every ``RELAY_SECONDS``
(the page sends one every 300 ms), whichever of the peeler's sockets sent
it: the budget is a socket's, and a peeler with a script and several tabs
open would otherwise have each tab's budget multiplied by every socket at
the table.
"""

from __future__ import annotations

import math
from typing import Any

from django.template.loader import render_to_string

from casino.frontdoor.limits import Rate, TokenBucket
from games.consumers.limits import over_budget, text_field
from games.consumers.threads import in_thread
from games.models import Coup
from games.presenters import live as presenter
from games.presenters import live_squeeze as squeeze
from games.selectors.live import live_view
from games.services import live

MOVE_TEMPLATE = "baccarat/live_squeeze.html#move"
# Each number of a move and the range it must lie in.
MOVE_FIELDS = {
    "x0": (0.0, 1.0),
    "y0": (0.0, 1.0),
    "nx": (-1.0, 1.0),
    "ny": (-1.0, 1.0),
    "depth": (0.0, 1.0),
}


# At most one move of a card relayed by a process this often (the page
# sends one every 0.3 s; half that leaves room for the network's jitter).
RELAY_SECONDS = 0.15
# Per live table, the card being peeled (coup, slot) and its relays' bucket:
# a table peels one card at a time, so a new card starts a new bucket.
_relays: dict[int, tuple[tuple[int, str], TokenBucket]] = {}


def relay_now(table_id: int, coup: int, slot: str) -> bool:
    """Whether a move of this card may be relayed now."""
    card = (coup, slot)
    held = _relays.get(table_id)
    if held is None or held[0] != card:
        held = _relays[table_id] = (card, TokenBucket(Rate(1, RELAY_SECONDS)))
    return held[1].take()


def read_move(message: dict[str, Any]) -> dict[str, str] | None:
    """A move's numbers, each in its range and written by us; None if any
    is missing or not a number in range."""
    move = {}
    for name, (low, high) in MOVE_FIELDS.items():
        value = message.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not math.isfinite(value) or not low <= value <= high:
            return None
        move[name] = f"{value:.3f}"
    return move


class PeelRelay:
    """A live table socket's part in the squeeze."""

    peel_turn: dict[str, Any] | None = None

    async def peel_arrival(self: Any) -> None:
        """Whose turn it is as the socket joins (afterwards: each state)."""
        self.peel_turn = await self._peel_turn_now()

    @in_thread
    def _peel_turn_now(self: Any) -> dict[str, Any] | None:
        coup = Coup.objects.filter(table=self.table).order_by("-id").first()
        return squeeze.peel_turn(coup)

    def peel_heard(self, event: dict[str, Any]) -> None:
        self.peel_turn = event.get("peel")

    def _peels_now(self: Any, slot: str) -> bool:
        turn = self.peel_turn
        return turn is not None and turn["peeler"] == self.user.pk and slot == turn["slot"]

    async def peel_message(self: Any, message: dict[str, Any]) -> None:
        if await over_budget(self, self.budget, None):
            return
        slot = text_field(message, "slot")
        if not self._peels_now(slot):
            return  # a watcher, the other side's peeler, a card not being peeled
        turn = self.peel_turn
        if message.get("open") is True:
            html = await self._open_card(slot)
            if html is None:
                await self.session_end()
            return
        move = read_move(message)
        if move is None or not relay_now(self.table.pk, turn["coup"], slot):
            return
        html = render_to_string(MOVE_TEMPLATE, {"coup": turn["coup"], "slot": slot, **move})
        await self.channel_layer.group_send(
            live.live_group(self.table),
            {"type": "live.peel", "html": html, "sender": self.channel_name},
        )

    @in_thread
    def _open_card(self: Any, slot: str) -> str | None:
        """OPEN: "" once done (the table's state goes to everybody), None
        if the session has ended."""
        if self.fresh_session() is None:
            return None
        step = live.open_card(table=self.table, user=self.user, slot=slot)
        if step.did:
            presenter.broadcast(live_view(self.table))
        return ""

    async def live_peel(self: Any, event: dict[str, Any]) -> None:
        if event.get("sender") != self.channel_name:  # the peeler's page drew it already
            await self.send(text_data=event["html"])
