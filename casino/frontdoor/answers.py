"""What the ASGI guards answer with, and how they read a request before
Django does: a refusal in the client's language, the "site is busy" page,
a body read whole and handed on, and ``let_go`` for a refused body."""

from __future__ import annotations

import functools
import inspect
from collections import deque
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext

from casino.frontdoor.hash_pool import RETRY_AFTER_SECONDS

Scope = dict[str, Any]
Message = dict[str, Any]


def header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None


def client_address(scope: Scope) -> str:
    """The peer's address (behind the cluster's nginx, with uvicorn's
    ``--proxy-headers``, the one nginx saw); "" when the server gives none."""
    return str((scope.get("client") or ("",))[0])


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


def let_go(receive) -> None:
    """Take the pieces of a refused body that the server has queued for this
    request, without waiting for more, so that it can close the connection
    (hypercorn waits to queue its ``http.disconnect`` while its queue is
    full: docs/front-door.md, "Body limit")."""
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


@functools.lru_cache(maxsize=8)  # a few languages
def busy_page(language: str) -> str:
    """The busy page in one of the site's languages, rendered once: it is
    the same for everyone, and a flood asks for it hundreds of times a
    second."""
    with translation.override(language):
        return render_to_string("registration/hashes_busy.html")


def busy_response(request: HttpRequest) -> HttpResponse:
    """The "site is busy" 429: a page of its own (an early refusal has no
    session, user or CSRF token to render the site's layout with), so its
    headers are set here."""
    response = HttpResponse(busy_page(translation.get_language_from_request(request)), status=429)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'self'; font-src 'self'"
    response["X-Content-Type-Options"] = "nosniff"
    response["X-Frame-Options"] = "DENY"
    return response


async def send_busy(send, scope: Scope, *, receive=None) -> None:
    """The "site is busy" page, in the client's language (``receive``: as
    ``send_answer``)."""
    response = busy_response(language_request(scope))
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
    await send_answer(send, response.status_code, headers, response.content, receive=receive)
