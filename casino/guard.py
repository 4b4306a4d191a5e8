"""The front door's ASGI guards, for what no server we measured gives
(docs/front-door.md): a request body bounded as it streams, a cap on the
credential posts in the site at once, and a cap on the websockets one client
address holds open.

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

``SocketsPerAddress``: one address may hold ``CASINO_SOCKETS_PER_ADDRESS``
websockets open at once in this process; the next is refused before the
handshake (429 where the server can send a response to a refused handshake,
403 otherwise), so one machine cannot hold thousands of sockets, each a
consumer, a session check and a channel-layer group. The address is the
peer's, or with the cluster's ``--proxy-headers`` the one nginx saw. The
cluster's nginx also counts per address across all its daphne workers
(``limit_conn``, ops/cluster.sh).
"""

from __future__ import annotations

import asyncio
import inspect
from collections import Counter, deque
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext

from casino import throttle

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
        self.inside = 0
        self.queue: deque[asyncio.Future[None]] = deque()

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http" or not is_credential_post(scope):
            return await self.app(scope, receive, send)
        at_once = settings.CASINO_HASHES_AT_ONCE if self.at_once is None else self.at_once
        waiting = settings.CASINO_HASHES_WAITING if self.waiting is None else self.waiting
        if self._full(at_once, waiting):
            # Full as it arrives (a flood): refused without reading its body.
            return await send_busy(send, scope, receive=receive)
        # Then the whole body (BodyLimit bounds it) before a place is taken
        # or waited for: a post whose body trickles in holds no place, or
        # six slow posts from one address would keep everyone's log-in out.
        body: deque[Message] = deque()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left, or BodyLimit refused the body
            body.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return body.popleft() if body else await receive()

        if self._full(at_once, waiting):
            return await send_busy(send, scope)  # it filled while the body came
        if self.inside >= at_once:
            place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.queue.append(place)
            try:
                await place  # the post leaving hands its place over
            except asyncio.CancelledError:
                if place.done() and not place.cancelled():
                    self._leave()  # handed a place as it was cancelled: pass it on
                else:
                    self.queue.remove(place)
                raise
        else:
            self.inside += 1
        try:
            await self.app(scope, replay, send)
        finally:
            self._leave()

    def _full(self, at_once: int, waiting: int) -> bool:
        """Every place taken, and every waiting place."""
        return self.inside >= at_once and len(self.queue) >= waiting

    def _leave(self) -> None:
        """Hand this place to the next post waiting, or give it back."""
        while self.queue:
            place = self.queue.popleft()
            if not place.done():
                place.set_result(None)
                return
        self.inside -= 1


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
