"""Log-in, sign-up and admin log-in posts enter the site a few at a time.

Each such post costs a password hash and some 10-15 ms of Python around
it, all under the interpreter lock the players' rounds share under ``make
run``. ``CredentialDesk`` lets the hash pool's ``Cap`` of them in at once
(``CASINO_HASHES_AT_ONCE``, ``CASINO_HASHES_WAITING`` more waiting on the
event loop) and answers any beyond those with the "site is busy" 429 at
once, before the session, the middleware or a thread (Django's own
middleware cannot refuse that early under ASGI). A post takes a place only
once its body is all there. docs/front-door.md, "Credential desk".
"""

from __future__ import annotations

from django.urls import Resolver404, resolve

from casino.frontdoor.answers import Scope, replaying, send_busy, whole_body
from casino.frontdoor.hash_pool import CREDENTIAL_VIEWS, hash_cap
from casino.frontdoor.limits import Cap
from casino.frontdoor.places import Places


def is_credential_post(scope: Scope) -> bool:
    """A POST to the login, sign-up or admin login view (in any letter
    case: Django takes a method in upper case, and the server passes it on
    as the client spelled it)."""
    if str(scope.get("method", "")).upper() != "POST":
        return False
    try:
        return resolve(scope["path"]).view_name in CREDENTIAL_VIEWS
    except Resolver404:
        return False


class CredentialDesk:
    """At most ``cap.at_once`` credential posts in the application at once,
    ``cap.waiting`` more waiting for a place in arrival order, any beyond
    those refused with 429. ``None``: the hash pool's cap, read at each
    post. One desk per process: the counts live on its event loop."""

    def __init__(self, app, *, cap: Cap | None = None) -> None:
        self.app = app
        self.cap = cap
        self.places = Places()

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http" or not is_credential_post(scope):
            return await self.app(scope, receive, send)
        cap = self.cap or hash_cap()
        if self.places.full(cap.at_once, cap.waiting):
            # Full as it arrives (a flood): refused without reading its body.
            return await send_busy(send, scope, receive=receive)
        # Then the whole body (BodyLimit bounds it) before a place is taken
        # or waited for: a post whose body trickles in holds no place, or
        # six slow posts from one address would keep everyone's log-in out.
        body = await whole_body(receive)
        if body is None:
            return  # the client left, or BodyLimit refused the body
        if self.places.full(cap.at_once, cap.waiting):
            return await send_busy(send, scope)  # it filled while the body came
        await self.places.take(cap.at_once)
        try:
            await self.app(scope, replaying(body, receive), send)
        finally:
            self.places.leave()
