"""Request bodies bounded as they stream (``CASINO_MAX_BODY_BYTES``).

Django's ASGI handler spools a whole body before its own limit is checked,
and no ASGI server we measured has a body limit: ``BodyLimit`` answers 413
on a ``Content-Length`` over the limit before a byte is read, otherwise
counts the bytes as they arrive and answers 413 as soon as they pass it,
telling the application the client went away. A body that stalls
``BODY_GAP_SECONDS`` between two pieces, or is still coming after
``CASINO_BODY_SECONDS`` spent waiting for it in all (a byte every few
seconds never stalls), gets 408; one in too many pieces 400. Why each:
docs/front-door.md, "Body limit".
"""

from __future__ import annotations

import asyncio

from django.conf import settings

from casino.frontdoor.answers import Message, Scope, header, send_refusal

# Seconds a body may stall between two pieces (as nginx's client_body_timeout).
BODY_GAP_SECONDS = 10.0
# Pieces a body may come in, per KiB of the limit (1,024 for 1 MiB), and at least.
PIECES_PER_KIB = 1
MIN_PIECES = 64

TOO_LARGE = "The request is too large for this site."
TOO_SCATTERED = "The request came in too many small pieces."
TOO_SLOW = "The request came too slowly. Please try again."


class BodyLimit:
    """Refuse an HTTP request whose body is over ``limit`` bytes with 413,
    having read at most ``limit`` bytes of it, and one whose body stalls
    ``body_gap`` seconds between two pieces, or takes longer than
    ``body_seconds`` to arrive, with 408."""

    def __init__(
        self,
        app,
        *,
        limit: int | None = None,
        body_gap: float = BODY_GAP_SECONDS,
        body_seconds: float | None = None,
    ):
        self.app = app
        self.limit = limit  # None: CASINO_MAX_BODY_BYTES, read at each request
        self.body_gap = body_gap
        self.body_seconds = body_seconds  # None: CASINO_BODY_SECONDS, read at each request

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
        # The body's deadline counts only the time spent waiting for its
        # pieces: a request kept waiting for a seat (casino/frontdoor/page_seats.py)
        # before the site reads its body loses none of it.
        seconds_left = (
            settings.CASINO_BODY_SECONDS if self.body_seconds is None else self.body_seconds
        )
        clock = asyncio.get_running_loop().time
        received = 0
        pieces = 0
        body_done = False
        refusal: tuple[int, str] | None = None
        started = False

        async def counted_receive() -> Message:
            nonlocal received, pieces, body_done, refusal, seconds_left
            if refusal:
                return {"type": "http.disconnect"}
            if body_done:  # Django waiting for a disconnect while the view runs
                return await receive()
            began = clock()
            try:
                message = await asyncio.wait_for(
                    receive(), max(0.0, min(self.body_gap, seconds_left))
                )
            except TimeoutError:
                refusal = (408, TOO_SLOW)
            else:
                seconds_left -= clock() - began
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
