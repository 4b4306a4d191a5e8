"""A live table's websocket: the table as it moves, and BET.

The socket carries what the dealer sends everybody at the table
(``live.state``: the table's state rendered once per language, of which
the socket sends its page's), what concerns this player alone
(``live.seat``: their bet settled or refunded, and their balance;
``live.placed``: their bet placed in another tab), and
BET over the socket (``{"action": "bet", ...}``, the slip's fields as the
HTTP BET posts them), answered with the same fragments; a new shoe's
seed revealed (``{"action": "reveal", "seed": ...}``) once its first
coup's betting closed, answered with a line under the slip; and the
squeeze's peel moves and OPEN (``{"action": "peel", ...}``,
games/consumers/live_squeeze.py). Every message is
HTML the htmx ws extension swaps in by id. On connect the socket sends the
table's state as it is now, so a page that joins mid-coup, reloads or
reconnects shows the coup in progress.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, cast

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import User
from django.utils import translation

from games.amounts import slip_stakes, table_version
from games.baccarat.rules import AREAS
from games.consumers.language import scope_language
from games.consumers.limits import MessageBudget, over_budget, read_message, text_field
from games.consumers.live_squeeze import PeelRelay
from games.consumers.session import SessionBoundSocket
from games.consumers.threads import in_thread
from games.errors import GameError
from games.models import Table
from games.presenters import live as presenter
from games.selectors.live import live_view
from games.services import live, reveal_marks

logger = logging.getLogger(__name__)


class LiveConsumer(PeelRelay, SessionBoundSocket, AsyncWebsocketConsumer):
    """One browser tab at one live table."""

    groups_joined: tuple[str, ...] = ()

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.user = cast(User, user)
        self.language = scope_language(dict(self.scope))
        self.budget = MessageBudget.from_settings()
        slug = self.scope["url_route"]["kwargs"]["slug"]
        # Counted at the table before its state is drawn for this page, and
        # among the player's sockets there (a BET in one tab reaches the others).
        await reveal_marks.arrived(slug, self.user.pk)
        self.present_at: str | None = slug
        self.renew_at = time.monotonic() + reveal_marks.RENEW_SECONDS
        arrival = await self._arrival(slug)
        if arrival is None:
            await self._leave()
            await self.close()
            return
        self.table, html = arrival
        await self.peel_arrival()
        self.groups_joined = (live.live_group(self.table), live.seat_group(self.user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        await self.send(text_data=html)

    @in_thread
    def _arrival(self, slug: str) -> tuple[Table, str] | None:
        table = Table.objects.filter(slug=slug, live=True, enabled=True).first()
        if table is None:
            return None
        with translation.override(self.language):
            return table, presenter.state_html(live_view(table))

    async def _leave(self) -> None:
        slug, self.present_at = getattr(self, "present_at", None), None
        if slug is not None:
            await asyncio.shield(reveal_marks.left(slug, self.user.pk))

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self._leave()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = read_message(text_data)
        if message is not None and message.get("action") == "peel":
            await self.peel_message(message)  # the squeeze: consumers/live_squeeze.py
            return
        if message is None or message.get("action") not in ("bet", "reveal"):
            return
        if await over_budget(self, self.budget, presenter.refused_answer):
            return
        if message["action"] == "reveal":
            html = await self._reveal(text_field(message, "seed"))
        else:
            html = await self._bet(message)
        if html is None:
            await self.session_end()
        else:
            await self.send(text_data=html)

    @in_thread
    def _bet(self, message: dict[str, Any]) -> str | None:
        if self.fresh_session() is None:
            return None
        with translation.override(self.language):
            try:
                placed = live.place_bet(
                    user=self.user,
                    table=self.table,
                    bets=slip_stakes(message, AREAS),
                    slip_key=text_field(message, "slip_key"),
                    shown_version=table_version(message),
                    commit=text_field(message, "commit"),
                    coup=text_field(message, "coup"),
                )
            except GameError as exc:
                return presenter.refused_answer(exc)
            except Exception:
                logger.exception("live BET failed at table %s", self.table.slug)
                return presenter.refused_answer(str(presenter.FAILED))
            return presenter.placed_answer(placed=placed)

    @in_thread
    def _reveal(self, seed: str) -> str | None:
        if self.fresh_session() is None:
            return None
        with translation.override(self.language):
            try:
                mine = live.reveal(user=self.user, table=self.table, seed=seed)
            except GameError as exc:
                return presenter.refused_answer(exc)
            return presenter.revealed_answer(mine)

    async def live_state(self, event: dict[str, Any]) -> None:
        self.peel_heard(event)
        html = event["html"].get(self.language) or next(iter(event["html"].values()))
        await self.send(text_data=html)
        if self.present_at is not None and time.monotonic() >= self.renew_at:
            self.renew_at = time.monotonic() + reveal_marks.RENEW_SECONDS
            await reveal_marks.mark_present(self.present_at, self.user.pk)

    async def live_placed(self, event: dict[str, Any]) -> None:
        """The player bet in another tab: this one shows the stake and balance."""
        if event.get("table") == self.table.pk:
            with translation.override(self.language):
                html = presenter.staked_answer(balance=event["balance"], stake=event["stake"])
            await self.send(text_data=html)

    async def live_seat(self, event: dict[str, Any]) -> None:
        if event.get("table") == self.table.pk:
            # Drawn from the message alone, on the event loop: no database
            # read, so no wait behind the worker's BETs (or theirs behind it).
            with translation.override(self.language):
                html = presenter.settled_answer(balance=event["balance"], last=event["last"])
            await self.send(text_data=html)
