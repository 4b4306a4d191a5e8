"""The Casino War table's socket: it enforces the tie decision's time limit.

The deadline lives on the round in the database (the server is the authority
on it). While a player's round at this table waits for a decision, the
consumer sleeps until the deadline, checks the database again and, if the
round is still waiting and the deadline has passed, closes the socket with
code ``TIMEOUT_CLOSE_CODE``: the page then takes the player to the table's
timed-out address, which lands them in the lobby with a message. The round
stays saved; coming back to the table restarts the countdown
(``games.services.war.resume``).

The services send ``war.update`` to the player's group whenever a waiting
round opens, restarts its countdown or is settled, and the consumer re-reads
the deadline. It holds no game logic.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from games.consumers.session import SessionBoundSocket
from games.consumers.threads import in_thread
from games.selectors import war as war_selectors
from games.services import war as war_service

TIMEOUT_CLOSE_CODE = 4000
UNAUTHENTICATED_CLOSE_CODE = 4001


@in_thread
def _deadline(user_id: int, slug: str) -> dt.datetime | None:
    return war_selectors.decision_deadline(user_id=user_id, table_slug=slug)


class WarConsumer(SessionBoundSocket, AsyncWebsocketConsumer):
    """One browser tab at one War table, for the logged-in player only."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED_CLOSE_CODE)
            return
        self.user_id: int = user.pk
        self.slug: str = self.scope["url_route"]["kwargs"]["slug"]
        self.group: str = war_service.group_name(user.pk)
        self.timer: asyncio.Task | None = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._watch()

    async def disconnect(self, code: int) -> None:
        timer = getattr(self, "timer", None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def war_update(self, event: dict) -> None:
        if event.get("slug") == self.slug:
            await self._watch()

    async def _watch(self) -> None:
        """(Re)start the timer for the waiting round's deadline, if any."""
        current = asyncio.current_task()
        if self.timer is not None and self.timer is not current:
            self.timer.cancel()
        self.timer = None
        deadline = await _deadline(self.user_id, self.slug)
        if deadline is not None:
            self.timer = asyncio.create_task(self._expire_at(deadline))

    async def _expire_at(self, deadline: dt.datetime) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            wait = (deadline + war_service.DECISION_GRACE - timezone.now()).total_seconds()
            await asyncio.sleep(max(0.0, wait))
            latest = await _deadline(self.user_id, self.slug)
            if latest is None:
                return  # decided in time
            if latest + war_service.DECISION_GRACE > timezone.now():
                # The countdown was restarted (the player came back in
                # another tab): wait for the new deadline.
                self.timer = asyncio.create_task(self._expire_at(latest))
                return
            await self.close(code=TIMEOUT_CLOSE_CODE)
