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
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

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
