"""A per-address budget for anonymous credential posts, checked before any
password is hashed.

Every login or sign-up costs a password hash (a fifth of a second of CPU or
more, on purpose), even for a username that does not exist. A few clients
posting logins with random usernames kept the HTTP workers hashing while
signed-in players waited (issue 15). ``CredentialThrottleMiddleware``
counts the anonymous POSTs to the login, sign-up and admin login views per
client address (``REMOTE_ADDR``; see casino/wsgi.py and the cluster's
``--proxy-headers`` for where it comes from behind nginx) in the cache, per
minute, and answers the ones over ``CASINO_CREDENTIAL_POSTS`` with a 429
and a page that says when to try again, before the view runs. The cluster's
nginx applies the same budget in front of the workers (ops/cluster.sh); this
covers ``make run`` and any server without nginx.

A fixed one-minute window with ``cache.add`` + ``cache.incr``: both are
atomic in Redis and in the in-process cache.

The process's password-hash pool (casino/hashing.py) is answered for here
too. ``HashesBusyMiddleware``, first of all middleware, refuses a POST to
those views while the pool has no room, with a 429 and ``Retry-After``,
before the session, the user, the CSRF check or the view (about 2 ms of CPU
in all, against some 20 for a hashed one). That is the first refusal under
WSGI (the cluster's gunicorn). Under ASGI (``make run``) Django runs this
chain on a thread, because some of the middleware is sync only, so
casino/guard.py's ``CredentialDesk`` refuses a flood's posts before Django,
on the event loop, with this module's page (``hashes_busy``). A hash
refused later, inside a view (the pool filled meanwhile, a signed-in
player's password change), raises ``HashesBusy``, which
``CredentialThrottleMiddleware`` answers with the same page. No password is
hashed for any of them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.utils import translation

from casino import hashing

WINDOW_SECONDS = 60
CREDENTIAL_VIEWS = frozenset({"login", "signup", "admin:login"})


def count_in_window(
    name: str, address: str, *, budget: int, seconds: int, now: float | None = None
) -> int:
    """Count one ``name`` event from ``address`` in a fixed window of
    ``seconds``; the seconds to wait when it is over ``budget``, else 0
    (0 as the budget: no limit). ``cache.add`` + ``cache.incr`` are atomic in
    Redis and in the in-process cache, so workers share one count."""
    if not budget:
        return 0
    now = time.time() if now is None else now
    window = int(now // seconds)
    key = f"{name}:{address}:{window}"
    cache.add(key, 0, timeout=seconds * 2)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.add(key, 1, timeout=seconds * 2)
        count = 1
    if count <= budget:
        return 0
    return max(1, (window + 1) * seconds - int(now))


def over_budget(address: str, *, now: float | None = None) -> int:
    """Count one credential post from ``address``; the seconds to wait when
    it is over the budget, else 0."""
    return count_in_window(
        "credential-posts",
        address,
        budget=settings.CASINO_CREDENTIAL_POSTS,
        seconds=WINDOW_SECONDS,
        now=now,
    )


class CredentialThrottleMiddleware:
    """Answer 429 to an address's anonymous credential posts over budget."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.method != "POST" or request.user.is_authenticated:
            return None
        match = request.resolver_match
        if match is None or match.view_name not in CREDENTIAL_VIEWS:
            return None
        wait = over_budget(request.META.get("REMOTE_ADDR") or "unknown")
        if not wait:
            return None
        response = render(
            request, "registration/throttled.html", {"wait_seconds": wait}, status=429
        )
        response["Retry-After"] = str(wait)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, hashing.HashesBusy):
            return hashes_busy(request)
        return None


class HashesBusyMiddleware:
    """A POST to the login, sign-up or admin login view while the process's
    hash pool is full: a 429 before anything else runs. First in
    ``MIDDLEWARE``, sync or async as Django adapts the chain."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if self.async_mode:
            return self.__acall__(request)
        return refused_for_room(request) or self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return refused_for_room(request) or await self.get_response(request)


def refused_for_room(request: HttpRequest) -> HttpResponse | None:
    if request.method != "POST" or hashing.pool().has_room():
        return None
    try:
        view_name = resolve(request.path_info).view_name
    except Resolver404:
        return None
    if view_name not in CREDENTIAL_VIEWS:
        return None
    return hashes_busy(request)


@functools.lru_cache(maxsize=8)  # a few languages
def busy_page(language: str) -> str:
    """The busy page in one of the site's languages, rendered once: it is
    the same for everyone, and a flood asks for it hundreds of times a
    second."""
    with translation.override(language):
        return render_to_string("registration/hashes_busy.html")


def hashes_busy(request: HttpRequest) -> HttpResponse:
    """The 429 for a password hash the pool had no room for: a page of its
    own (the early refusal has no session, user or CSRF token to render the
    site's layout with), so its headers are set here."""
    response = HttpResponse(busy_page(translation.get_language_from_request(request)), status=429)
    response["Retry-After"] = str(hashing.RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'self'; font-src 'self'"
    response["X-Content-Type-Options"] = "nosniff"
    response["X-Frame-Options"] = "DENY"
    return response
