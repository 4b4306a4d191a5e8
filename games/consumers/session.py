"""A table socket lives only as long as the session that opened it.

``SessionBoundSocket`` goes before ``AsyncWebsocketConsumer`` in a
consumer's bases. For a logged-in socket it

* joins the session's and the player's groups (games/services/sockets.py) before the
  consumer's own ``connect`` runs, so logging out in another tab, a password
  change or an operator deactivating the account closes it at once, on
  whichever worker it is;
* re-reads the session when it expires (and every
  ``CASINO_SOCKET_SESSION_CHECK`` seconds), since an idle session ends with
  no event, and closes the socket once the session is gone or expired (a
  read the database fails is tried again, within ``WATCH_RETRY`` seconds);
* reads the session again at every BET, DEAL and decision
  (``fresh_session``: one read of the session store, the cache in the
  cluster) before anything is played, so a logout or expiry whose push did
  not reach the socket plays nothing, a change stored over HTTP (the
  squeeze toggle) holds for the very next round, on whichever worker, and
  playing restarts the session's idle clock as a request does;
* sends nothing once the session has ended, so no push reaches a closed
  session even if one was already on its way;
* refuses the handshake of a player who already holds
  ``CASINO_SOCKETS_PER_PLAYER`` table sockets in this process (the guard's
  cap per address does not stop one account using many addresses);
* refuses the handshake of a staff member whose session still owes its
  second factor (casino/otp.py).

The socket closes with ``SESSION_END_CLOSE_CODE``; the page's next load
takes the player to the login page.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import uuid
from collections import Counter
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

import structlog
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.base import SessionBase, UpdateError
from django.utils import timezone

from casino import metrics
from casino.otp import socket_awaits_second_factor, staff_otp_on
from games.services.faults import maybe_fail
from games.services.sockets import session_group, user_group

if TYPE_CHECKING:
    from asgiref.typing import WebSocketConnectEvent, WebSocketDisconnectEvent

SESSION_END_CLOSE_CODE = 4001
WATCH_RETRY = 5.0  # seconds before a session check that failed is tried again

log = structlog.stdlib.get_logger(__name__)


@database_sync_to_async
def stored_expiry(session_key: str) -> dt.datetime | None:
    """When the stored session expires (None: it is gone)."""
    maybe_fail("session.watch")
    model = import_module(settings.SESSION_ENGINE).SessionStore.get_model_class()
    return (
        model.objects.filter(session_key=session_key).values_list("expire_date", flat=True).first()
    )


async def _awaits_second_factor(user: Any, session: SessionBase | None) -> bool:
    """A staff member's socket whose session has not given its code yet;
    players' sockets are answered without a trip to the database."""
    if not (staff_otp_on() and (user.is_staff or user.is_superuser)):
        return False
    if session is None:
        return True
    return await database_sync_to_async(socket_awaits_second_factor)(user, session)


class SessionBoundSocket(AsyncWebsocketConsumer):
    """Base of the table consumers, before ``AsyncWebsocketConsumer`` (see the module docstring)."""

    session_key: str | None = None
    session_ended: bool = False
    session_watch: asyncio.Task | None = None
    counted: bool = False  # in casino_open_sockets
    # Table sockets open in this process, by player; this socket's player
    # while it holds a place among them.
    open_by_player: ClassVar[Counter[int]] = Counter()
    holds_place: int | None = None

    @property
    def metrics_game(self) -> str:
        """The label of this socket's table game in the metrics."""
        return type(self).__name__.removesuffix("Consumer").lower()

    async def websocket_connect(self, message: WebSocketConnectEvent) -> None:
        user = self.scope.get("user")
        key = getattr(self.scope.get("session"), "session_key", None)
        user_id = user.pk if user is not None and user.is_authenticated else None
        # The socket's own task: every line it logs names it and its player
        # (as django-structlog names an HTTP request).
        structlog.contextvars.bind_contextvars(socket_id=str(uuid.uuid4()), user_id=user_id)
        log.info("socket_connected", path=self.scope.get("path"))
        if user_id is not None and await _awaits_second_factor(user, self.scope.get("session")):
            log.info("socket_refused", reason="second factor")
            await self.close()  # a staff password alone plays nothing (casino/otp.py)
            return
        cap = settings.CASINO_SOCKETS_PER_PLAYER
        if user_id is not None and cap and self.open_by_player[user_id] >= cap:
            log.info("socket_refused", reason="sockets per player", cap=cap)
            await self.close()  # before the handshake is accepted: refused
            return
        if user_id is not None:
            self.open_by_player[user_id] += 1
            self.holds_place = user_id
        if user is not None and user_id is not None and key:
            self.session_key = key
            self.groups = [*self.groups, session_group(key), user_group(user.pk)]
        await super().websocket_connect(message)

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:  # however the socket ends, its place goes back
            if self.holds_place is not None:
                player, self.holds_place = self.holds_place, None
                self.open_by_player[player] -= 1
                if not self.open_by_player[player]:
                    del self.open_by_player[player]

    async def accept(
        self, subprotocol: str | None = None, headers: list[tuple[str, str]] | None = None
    ) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.OPEN_SOCKETS.labels(self.metrics_game).inc()
        if self.session_key and self.session_watch is None:
            self.session_watch = asyncio.create_task(self._watch_session())

    async def websocket_disconnect(self, message: WebSocketDisconnectEvent) -> None:
        watch = self.session_watch
        if watch is not None and watch is not asyncio.current_task():
            watch.cancel()
        if self.counted:
            self.counted = False
            metrics.OPEN_SOCKETS.labels(self.metrics_game).dec()
        log.info("socket_closed", code=message.get("code"))
        await super().websocket_disconnect(message)

    async def dispatch(self, message: dict) -> None:
        """Channels' own dispatch, without its ``aclose_old_connections()``
        before every message: that is a trip to the shared sync thread for
        each BET, DEAL and group event (1.8% of a busy socket worker's CPU,
        and a queue under load). These consumers touch the database only
        through ``consumers.threads.in_thread`` and ``database_sync_to_async``,
        which close the thread's old connections around every call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send(  # type: ignore[override]  # the websocket consumer's own signature
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if self.session_ended:
            return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    async def session_end(self, event: dict | None = None) -> None:
        """The session ended (logout, password change, deactivation, expiry)."""
        if self.session_ended:
            return
        self.session_ended = True
        await self.close(code=SESSION_END_CLOSE_CODE)

    def fresh_session(self) -> SessionBase | None:
        """The session as it is now, for an action sent over the socket (the
        squeeze toggle may have changed over HTTP since the socket opened),
        or None once it has ended: logged out, expired, or another account's.
        It reads the store: call it in a thread."""
        if self.session_ended or not self.session_key:
            return None
        store = import_module(settings.SESSION_ENGINE).SessionStore(self.session_key)
        user = self.scope.get("user")
        if user is None or str(store.get(SESSION_KEY, "")) != str(user.pk):
            return None
        # Playing over the socket is activity, as a request is: restart the
        # session's idle clock as casino.sessions.SessionTouchMiddleware does.
        if getattr(store, "idle_clock_stale", bool)():
            try:
                store.save()
            except UpdateError:  # deleted meanwhile (logged out in another tab)
                return None
        return store

    async def _watch_session(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while not self.session_ended and self.session_key:
                try:
                    expiry = await stored_expiry(self.session_key)
                except Exception:
                    # The database is away (a restart, a failover). Rounds
                    # still read the session before they play; the watch
                    # tries again soon rather than end for good.
                    log.warning("session_check_failed", exc_info=True)
                    await asyncio.sleep(min(settings.CASINO_SOCKET_SESSION_CHECK, WATCH_RETRY))
                    continue
                now = timezone.now()
                if expiry is None or expiry <= now:
                    await self.session_end()
                    return
                wait = min((expiry - now).total_seconds(), settings.CASINO_SOCKET_SESSION_CHECK)
                await asyncio.sleep(wait + 0.05)
