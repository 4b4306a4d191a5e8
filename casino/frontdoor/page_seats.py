"""Requests enter Django a few at a time, signed-in players first.

Django's ASGI handler runs each request's sync code on a thread of its own,
with no cap, and every such thread shares the interpreter lock with the
players' rounds. ``PageSeats`` lets ``CASINO_PAGES_AT_ONCE`` requests into
Django at once; the others wait on the event loop in two lines (sessions
this process has served signed in, then everyone else), each with
``CASINO_PAGES_WAITING`` places, one client holding at most
``CASINO_PAGES_PER_CLIENT`` places and visitors at most
``CASINO_PAGES_VISITORS_AT_ONCE`` seats. Beyond those: the "site is busy"
page. docs/front-door.md, "Page seats".
"""

from __future__ import annotations

import asyncio
from collections import Counter

from django.conf import settings
from django.http.cookie import parse_cookie

from casino import sessions
from casino.frontdoor.answers import (
    Message,
    Scope,
    client_address,
    header,
    replaying,
    send_busy,
    whole_body,
)
from casino.frontdoor.hash_pool import hash_cap
from casino.frontdoor.places import Bumped, Places


class PageSeats:
    """At most ``at_once`` requests inside Django at once (casino/asgi.py,
    HTTP only); the others wait on the event loop in two lines, signed-in
    players' first (``signed_in``), each with ``waiting`` places, and one
    client (a signed-in session, or a visitor's address) holds at most
    ``per_client`` of the places inside and in line. A request beyond any
    of those gets the "site is busy" page at once.
    A seat is taken once the whole body is in and given back when the answer
    starts (a streamed download that a client reads slowly holds none).
    ``None``: the settings, read at each request (at least one seat more
    than the hashes at once, and as many visitors' seats)."""

    SIGNED_IN, VISITOR = 0, 1

    def __init__(
        self,
        app,
        *,
        at_once: int | None = None,
        waiting: int | None = None,
        per_client: int | None = None,
        visitors: int | None = None,
    ) -> None:
        self.app = app
        self.visitors = visitors
        self.at_once = at_once
        self.waiting = waiting
        self.per_client = per_client
        self.places = Places(lanes=2)
        self.held: Counter[str] = Counter()  # places inside and in line, by client
        self.waiters: dict[str, list[asyncio.Future[None]]] = {}  # waits in line, by client

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        hashes = hash_cap().at_once  # the log-ins the desk lets in wait for their hash on a seat
        at_once = self.at_once or max(settings.CASINO_PAGES_AT_ONCE, hashes + 1)
        waiting = settings.CASINO_PAGES_WAITING if self.waiting is None else self.waiting
        per_client = self.per_client or settings.CASINO_PAGES_PER_CLIENT
        visitors = self.visitors or max(settings.CASINO_PAGES_VISITORS_AT_ONCE, hashes)
        session = signed_in(scope)
        lane = self.VISITOR if session is None else self.SIGNED_IN
        share = visitors if session is None else None
        client = session or "address " + client_address(scope)
        if self.held[client] >= per_client or (
            self.places.full(at_once, waiting, lane, share) and self._fuller(client) is None
        ):
            return await send_busy(send, scope, receive=receive)
        body = await whole_body(receive)
        if body is None:
            return
        if self.held[client] >= per_client:
            return await send_busy(send, scope)
        if self.places.full(at_once, waiting, lane, share):
            fuller = self._fuller(client)
            if fuller is None:
                return await send_busy(send, scope)
            self.places.bump(lane, fuller)  # its newest waiter gets the busy page
        self.held[client] += 1
        seated, counted = False, True

        def stand_up() -> None:
            """Give the seat back (if taken) and the client's place (once)."""
            nonlocal seated, counted
            if seated:
                seated = False
                self.places.leave(lane)
            if counted:
                counted = False
                self.held[client] -= 1
                if not self.held[client]:
                    del self.held[client]
                if not self.waiters.get(client, True):
                    del self.waiters[client]

        async def seated_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                stand_up()
            await send(message)

        try:
            try:
                await self.places.take(at_once, lane, share, self.waiters.setdefault(client, []))
            except Bumped:
                return await send_busy(send, scope)
            seated = True
            await self.app(scope, replaying(body, receive), seated_send)
        finally:
            stand_up()

    def _fuller(self, client: str) -> asyncio.Future[None] | None:
        """When ``client``'s line is full: the newest wait of the client in
        that line holding the most places, if it holds at least two more
        than ``client`` does (so that a few clients cannot hold every
        place); ``None`` otherwise."""
        visitor = client.startswith("address ")
        mine = self.held[client]
        fuller = [
            other
            for other, waits in self.waiters.items()
            if waits and other.startswith("address ") == visitor and self.held[other] > mine + 1
        ]
        if not fuller:
            return None
        return self.waiters[max(fuller, key=lambda other: self.held[other])][-1]


def signed_in(scope: Scope) -> str | None:
    """The key of the session the request's cookie names, if this process
    has served it signed in (casino/sessions.py's ``signed_in_keys``): a
    made-up cookie, or a visitor's, waits with the visitors."""
    cookie = header(scope, b"cookie")
    if not cookie:
        return None
    key = parse_cookie(cookie.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
    return key if key is not None and key in sessions.signed_in_keys else None
