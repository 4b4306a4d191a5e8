"""The front door's ASGI guards, for what no server we measured gives
(docs/front-door.md): a request body bounded as it streams, a cap on the
credential posts in the site at once, a cap on the requests in Django at
once, and a cap on the websockets one client address holds open.

``BodyLimit``: Django's ASGI handler reads the whole body into a spooled
file before ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is checked, and none of daphne,
uvicorn, hypercorn or granian has a body limit of its own for ASGI. The
guard answers 413 at once when ``Content-Length`` says the body is over
``CASINO_MAX_BODY_BYTES``, before a byte of it is read, and otherwise counts
the bytes as they arrive (a chunked body has no length) and answers 413 as
soon as they pass the limit: the application is told the client went away
(``http.disconnect``), so it stops reading and answers nothing itself. The
server reads the body only as the application asks for it (hypercorn's
queue, uvicorn's flow control), so at most the limit is ever read; a server
that buffers whole bodies first (daphne) defeats that, which is one reason
``make run`` does not use it. A body that stalls ``BODY_GAP_SECONDS``
between two pieces is dropped with 408: the server's head timeout ends with
the head. A body in more than 1,024 pieces per MiB of the limit is refused
with 400 (one-byte chunks made one connection cost seconds of CPU). After
a refusal, the pieces the server has queued are taken (``let_go``) so that
it can close the connection.

``CredentialDesk``: a login, sign-up or admin login post costs a password
hash (in casino/hashing.py's pool, off the players' threads) and some 10-15
ms of Python around it: the axes lockout's reads and writes, the form, the
page with its error. Under ``make run`` the players' rounds share the
process, and so its one interpreter lock, with that Python: a flood from 200
addresses, each post within the per-address budget, made the whole login
path run on a dozen threads at once and stretched the players' rounds from
13 to 110-300 ms at p99. The desk lets ``CASINO_HASHES_AT_ONCE`` such posts
into the site at once; up to ``CASINO_HASHES_WAITING`` more wait here, on
the event loop (no thread, no work), and a post beyond those is answered at
once with the "site is busy" page, a 429 with ``Retry-After``, before the
session, the middleware or a thread. A post is counted only once its body is
all there, so slow bodies hold no place. (Django's own middleware cannot refuse
that early under ASGI: the site's sync-only middleware makes Django run the
whole chain on a thread.)

``PageSeats``: Django's ASGI handler runs each request's sync code on a
thread of its own, with no cap on how many, and no server we measured caps
the application calls it makes at once (uvicorn's ``--limit-concurrency``
refuses with 503 rather than queueing; gunicorn's threads, the cluster's
cap, are WSGI only). Every such thread shares the interpreter lock with the
players' rounds, and the lock goes round the threads that want it: with 15
page views running, a round got about a sixteenth of it. Under the
200-address login flood the log-in page's views (9 ms of the server's CPU
each, under 3 of them the view's own) stretched the players' rounds from
30-40 to 89-150 ms at p99. The seats let ``CASINO_PAGES_AT_ONCE`` requests
into Django at once. The others wait on the event loop in two lines: the
sessions this process has served signed in first, then everyone else
(visitors, and made-up session cookies), each line with
``CASINO_PAGES_WAITING`` places, one client (a session, or a visitor's
address) holding at most ``CASINO_PAGES_PER_CLIENT`` places inside and in
line; a request past any of those gets the busy page at once, except that
when its line is full it takes the place of the newest waiter of the client
holding the most places, if that client holds at least two more than its
own (22 free accounts, 8 places each, filled the line of 64). A seat is
taken after the body is in (as at the desk) and given back as the answer
starts, so a slowly read download holds none.

``SocketsPerAddress``: one address may hold ``CASINO_SOCKETS_PER_ADDRESS``
websockets open at once in this process; the next is refused before the
handshake (429 where the server can send a response to a refused handshake,
403 otherwise), so one machine cannot hold thousands of sockets, each a
consumer, a session check and a channel-layer group. The address is the
peer's, or with the cluster's ``--proxy-headers`` the one nginx saw. The
cluster's nginx also counts per address across all its websocket workers
(``limit_conn``, ops/cluster.sh).
"""

from __future__ import annotations

import asyncio
import inspect
from collections import Counter, deque
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext

from casino import sessions, throttle

Scope = dict[str, Any]
Message = dict[str, Any]

# Seconds a request body may stall between two pieces before the request is
# dropped with 408 (as the cluster's nginx does with client_body_timeout):
# the server's head timeout ends once the head is in, and a body sent a
# byte at a time would otherwise hold its connection for as long as it likes.
BODY_GAP_SECONDS = 10.0
# A body may come in at most this many pieces per KiB of the limit (1,024 for
# 1 MiB): every piece costs the server a parse, a queue and a wake-up, so a
# body sent in one-byte chunks made one connection cost seconds of CPU. Over
# TCP a piece is rarely under a segment (about 1.4 KiB).
PIECES_PER_KIB = 1
MIN_PIECES = 64


def header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None


def language_request(scope: Scope) -> HttpRequest:
    """A bare request carrying only the client's Accept-Language: what
    Django's language choice needs (no cookie, no URL prefix)."""
    request = HttpRequest()
    accept = header(scope, b"accept-language")
    if accept:
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
    return request


def refusal_text(scope: Scope, message: str) -> bytes:
    """``message`` in the language the client's Accept-Language asks for,
    as Django's LocaleMiddleware would choose it."""
    language = translation.get_language_from_request(language_request(scope))
    with translation.override(language):
        return (gettext(message) + "\n").encode()


async def send_answer(
    send,
    status: int,
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    *,
    prefix: str = "http.response",
    receive=None,
) -> None:
    """A whole answer from a guard. With ``receive``, the request's body was
    not read: the connection is closed after the answer (it cannot carry
    another request), and the pieces of the body that wait for the
    application are taken just before the last message (``let_go``)."""
    headers = [(b"content-length", str(len(body)).encode()), *headers]
    if receive is not None:
        headers.append((b"connection", b"close"))
    await send({"type": f"{prefix}.start", "status": status, "headers": headers})
    if receive is not None:
        let_go(receive)  # nothing may wait between this and the last message
    await send({"type": f"{prefix}.body", "body": body})


async def send_refusal(
    send, scope: Scope, status: int, message: str, *, prefix: str, receive=None
) -> None:
    """The refusal in the client's language, then the close."""
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    if receive is None:
        headers.append((b"connection", b"close"))  # the body is never read
    body = refusal_text(scope, message)
    await send_answer(send, status, headers, body, prefix=prefix, receive=receive)


TOO_LARGE = "The request is too large for this site."
TOO_SCATTERED = "The request came in too many small pieces."
TOO_SLOW = "The request came too slowly. Please try again."
TOO_MANY_SOCKETS = "Too many open connections from your network. Close a tab and try again."


class BodyLimit:
    """Refuse an HTTP request whose body is over ``limit`` bytes with 413,
    having read at most ``limit`` bytes of it, and one whose body stalls
    ``body_gap`` seconds between two pieces with 408 (see the module's note)."""

    def __init__(self, app, *, limit: int | None = None, body_gap: float = BODY_GAP_SECONDS):
        self.app = app
        self.limit = limit  # None: CASINO_MAX_BODY_BYTES, read at each request
        self.body_gap = body_gap

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = settings.CASINO_MAX_BODY_BYTES if self.limit is None else self.limit
        declared = header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            # (A length that is no number rarely gets this far: the server's
            # parser answers 400 first.)
            return await send_refusal(
                send, scope, 413, TOO_LARGE, prefix="http.response", receive=receive
            )

        max_pieces = max(MIN_PIECES, limit // 1024 * PIECES_PER_KIB)
        received = 0
        pieces = 0
        body_done = False
        refusal: tuple[int, str] | None = None
        started = False

        async def counted_receive() -> Message:
            nonlocal received, pieces, body_done, refusal
            if refusal:
                return {"type": "http.disconnect"}
            if body_done:  # Django waiting for a disconnect while the view runs
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.body_gap)
            except TimeoutError:
                refusal = (408, TOO_SLOW)
            else:
                if message["type"] != "http.request":
                    return message
                received += len(message.get("body", b""))
                pieces += 1
                body_done = not message.get("more_body", False)
                if received > limit:
                    refusal = (413, TOO_LARGE)
                elif pieces > max_pieces:
                    refusal = (400, TOO_SCATTERED)
            if refusal:
                # As if the client had gone: Django stops reading and drops
                # the request (RequestAborted) without answering.
                return {"type": "http.disconnect"}
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if refusal:
                return  # the refusal below is the answer
            started = True
            await send(message)

        await self.app(scope, counted_receive, watched_send)
        if refusal and not started:
            status, text = refusal
            await send_refusal(send, scope, status, text, prefix="http.response", receive=receive)


def let_go(receive) -> None:
    """Take the pieces of a refused body that the server has queued for this
    request, without waiting for more, so that it can close the connection.

    hypercorn queues at most ``max_app_queue_size`` messages for the
    application and stops reading the connection while they wait. Once the
    response's last message is sent, it queues one more
    (``http.disconnect``) before it closes the connection; with the queue
    full of a refused body's pieces that message waited forever, and so did
    the connection (a cold attack left 1,200 of them open, 260 KiB each,
    after their clients had gone). Taken just before the last message, with
    nothing run in between, what was queued leaves it room, and the
    connection closes with at most the queue's pieces read past the refusal.
    """
    for _ in range(10_000):  # bounded: the server's queue is much smaller
        step = receive()
        if not inspect.iscoroutine(step):
            return  # not a queue this can look into without waiting
        try:
            step.send(None)
        except StopIteration:
            continue  # a piece was waiting: taken; look again
        step.close()  # nothing was waiting: the server has room
        return


def is_credential_post(scope: Scope) -> bool:
    """A POST to the login, sign-up or admin login view (in any letter
    case: Django takes a method in upper case, and the server passes it on
    as the client spelled it)."""
    if str(scope.get("method", "")).upper() != "POST":
        return False
    try:
        return resolve(scope["path"]).view_name in throttle.CREDENTIAL_VIEWS
    except Resolver404:
        return False


class Bumped(Exception):
    """Another client's request took this waiting place."""


class Places:
    """``at_once`` places on one event loop, and who waits for them: in
    lanes, the first lane's first, each lane in arrival order, a lane
    holding at most its ``share`` of the places at once (all of them unless
    told). A place is handed straight from who leaves to who waits next, so
    no one overtakes a waiter in between. Nothing here blocks: a wait is a
    future on the loop."""

    def __init__(self, lanes: int = 1) -> None:
        self.inside = 0
        self.at_once = 1
        self.shares: list[int | None] = [None] * lanes
        self.held = [0] * lanes  # places inside, by lane
        self.lanes: list[deque[asyncio.Future[None]]] = [deque() for _ in range(lanes)]

    def waiting(self) -> int:
        return sum(len(lane) for lane in self.lanes)

    def _room(self, lane: int) -> bool:
        share = self.shares[lane]
        return self.inside < self.at_once and (share is None or self.held[lane] < share)

    def full(self, at_once: int, waiting: int, lane: int = 0, share: int | None = None) -> bool:
        """No place for ``lane``, and every waiting place in it taken."""
        self.at_once, self.shares[lane] = at_once, share
        return not self._room(lane) and len(self.lanes[lane]) >= waiting

    async def take(
        self,
        at_once: int,
        lane: int = 0,
        share: int | None = None,
        waiting_as: list[asyncio.Future[None]] | None = None,
    ) -> None:
        """A place, at once or after a wait (``waiting_as``: a list that
        holds the wait's future while it lasts, for ``bump``)."""
        self.at_once, self.shares[lane] = at_once, share
        if self._room(lane):
            self.inside += 1
            self.held[lane] += 1
            return
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lanes[lane].append(place)
        if waiting_as is not None:
            waiting_as.append(place)
        try:
            await place  # who leaves hands a place over, counted for this lane
        except asyncio.CancelledError:
            if place.done() and not place.cancelled() and place.exception() is None:
                self.leave(lane)  # handed a place as it was cancelled: pass it on
            elif place in self.lanes[lane]:
                self.lanes[lane].remove(place)
            raise
        finally:
            if waiting_as is not None and place in waiting_as:
                waiting_as.remove(place)

    def bump(self, lane: int, place: asyncio.Future[None]) -> None:
        """Take a waiting place from its waiter, who gets ``Bumped``."""
        self.lanes[lane].remove(place)
        place.set_exception(Bumped())

    def leave(self, lane: int = 0) -> None:
        """Give this place back, and hand places to whoever waits next and
        has room."""
        self.inside -= 1
        self.held[lane] -= 1
        for number, waiting in enumerate(self.lanes):
            while waiting and self._room(number):
                place = waiting.popleft()
                if not place.done():
                    self.inside += 1
                    self.held[number] += 1
                    place.set_result(None)
                    return


async def whole_body(receive) -> deque[Message] | None:
    """The request body's pieces, all of them (BodyLimit bounds them);
    ``None`` if the client left or the body was refused first."""
    body: deque[Message] = deque()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body.append(message)
        if not message.get("more_body", False):
            return body


def replaying(body: deque[Message], receive):
    """A ``receive`` that gives the pieces already read, then the client's."""

    async def replay() -> Message:
        return body.popleft() if body else await receive()

    return replay


class CredentialDesk:
    """At most ``at_once`` credential posts in the application at once,
    ``waiting`` more waiting for a place in arrival order, any beyond those
    refused with 429 (see the module's note). ``None``: the settings
    ``CASINO_HASHES_AT_ONCE`` and ``CASINO_HASHES_WAITING``, read at each
    post. One desk per process: the counts live on its event loop."""

    def __init__(self, app, *, at_once: int | None = None, waiting: int | None = None) -> None:
        self.app = app
        self.at_once = at_once
        self.waiting = waiting
        self.places = Places()

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http" or not is_credential_post(scope):
            return await self.app(scope, receive, send)
        at_once = settings.CASINO_HASHES_AT_ONCE if self.at_once is None else self.at_once
        waiting = settings.CASINO_HASHES_WAITING if self.waiting is None else self.waiting
        if self.places.full(at_once, waiting):
            # Full as it arrives (a flood): refused without reading its body.
            return await send_busy(send, scope, receive=receive)
        # Then the whole body (BodyLimit bounds it) before a place is taken
        # or waited for: a post whose body trickles in holds no place, or
        # six slow posts from one address would keep everyone's log-in out.
        body = await whole_body(receive)
        if body is None:
            return  # the client left, or BodyLimit refused the body
        if self.places.full(at_once, waiting):
            return await send_busy(send, scope)  # it filled while the body came
        await self.places.take(at_once)
        try:
            await self.app(scope, replaying(body, receive), send)
        finally:
            self.places.leave()


class PageSeats:
    """At most ``at_once`` requests inside Django at once (casino/asgi.py,
    HTTP only); the others wait on the event loop in two lines, signed-in
    players' first (``signed_in``), each with ``waiting`` places, and one
    client (a signed-in session, or a visitor's address) holds at most
    ``per_client`` of the places inside and in line. A request beyond any
    of those gets the "site is busy" page at once (see the module's note).
    A seat is taken once the whole body is in and given back when the answer
    starts (a streamed download that a client reads slowly holds none).
    ``None``: the settings ``CASINO_PAGES_AT_ONCE``, ``CASINO_PAGES_WAITING``
    and ``CASINO_PAGES_PER_CLIENT``, read at each request (the seats are at
    least one more than ``CASINO_HASHES_AT_ONCE``: the log-ins the desk lets
    in wait for their hash on a seat)."""

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
        at_once = self.at_once
        if at_once is None:  # never so few that the log-ins hashing hold them all
            at_once = max(settings.CASINO_PAGES_AT_ONCE, settings.CASINO_HASHES_AT_ONCE + 1)
        waiting = settings.CASINO_PAGES_WAITING if self.waiting is None else self.waiting
        per_client = (
            settings.CASINO_PAGES_PER_CLIENT if self.per_client is None else self.per_client
        )
        visitors = self.visitors
        if visitors is None:  # never fewer than the log-ins the desk lets in
            visitors = max(settings.CASINO_PAGES_VISITORS_AT_ONCE, settings.CASINO_HASHES_AT_ONCE)
        session = signed_in(scope)
        lane = self.VISITOR if session is None else self.SIGNED_IN
        share = visitors if session is None else None
        client = session or "address " + str((scope.get("client") or ("",))[0])
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


async def send_busy(send, scope: Scope, *, receive=None) -> None:
    """casino/throttle.py's "site is busy" page, in the client's language
    (``receive``: as ``send_answer``)."""
    response = throttle.hashes_busy(language_request(scope))
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
    await send_answer(send, response.status_code, headers, response.content, receive=receive)


class SocketsPerAddress:
    """Refuse a client address's websocket beyond ``limit`` open at once
    (0: no cap)."""

    def __init__(self, app, *, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit  # None: CASINO_SOCKETS_PER_ADDRESS, read at each socket
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive, send) -> None:
        limit = settings.CASINO_SOCKETS_PER_ADDRESS if self.limit is None else self.limit
        client = scope.get("client")
        if scope["type"] != "websocket" or not limit or not client:
            return await self.app(scope, receive, send)
        address = client[0]
        if self.open[address] >= limit:
            return await self.refuse(scope, receive, send)
        # Counted from the handshake until the application is done with the
        # socket (the consumer has seen its disconnect).
        self.open[address] += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    async def refuse(self, scope: Scope, receive, send) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        if "websocket.http.response" in scope.get("extensions", {}):
            await send_refusal(send, scope, 429, TOO_MANY_SOCKETS, prefix="websocket.http.response")
        else:
            await send({"type": "websocket.close"})  # the server answers 403


async def lifespan(scope: Scope, receive, send) -> None:
    """Start-up and shut-down have nothing to do here: acknowledged, so a
    server that sends them (hypercorn) does not log the application as
    failing them."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
