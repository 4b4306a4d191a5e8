"""Django's two middlewares of the front door, for credential posts (the
login, sign-up and admin login views' POSTs):

- ``HashesBusyMiddleware``, first of all middleware, refuses one while the
  hash pool has no room, with the "site is busy" 429, before the session,
  the user, the CSRF check or the view (the first refusal under WSGI; under
  ASGI the credential desk refuses a flood's posts earlier still);
- ``CredentialThrottleMiddleware`` counts a visitor's posts per client
  address (``REMOTE_ADDR``: casino/wsgi.py and uvicorn's ``--proxy-headers``
  set it behind nginx) at ``credential_rate()``, and answers those over it
  with a 429 that says when to try again, before any password is hashed;
  it also answers a ``HashesBusy`` a view raised (the pool filled meanwhile)
  with the busy page.

docs/front-door.md, "Credential throttle".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve

from casino.frontdoor import hash_pool
from casino.frontdoor.answers import busy_response
from casino.frontdoor.limits import Rate, over_rate


def credential_rate() -> Rate:
    """Anonymous credential posts per client address per minute (0: no limit)."""
    return Rate(settings.CASINO_CREDENTIAL_POSTS, 60)


class CredentialThrottleMiddleware:
    """Answer 429 to an address's anonymous credential posts over the rate."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.method != "POST" or request.user.is_authenticated:
            return None
        match = request.resolver_match
        if match is None or match.view_name not in hash_pool.CREDENTIAL_VIEWS:
            return None
        address = request.META.get("REMOTE_ADDR") or "unknown"
        wait = over_rate("credential-posts", address, credential_rate())
        if not wait:
            return None
        response = render(
            request, "registration/throttled.html", {"wait_seconds": wait}, status=429
        )
        response["Retry-After"] = str(wait)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, hash_pool.HashesBusy):
            return busy_response(request)
        return None


class HashesBusyMiddleware:
    """A credential post while the process's hash pool is full: a 429 before
    anything else runs. First in ``MIDDLEWARE``, sync or async as Django
    adapts the chain."""

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
    if request.method != "POST" or hash_pool.pool().has_room():
        return None
    try:
        view_name = resolve(request.path_info).view_name
    except Resolver404:
        return None
    if view_name not in hash_pool.CREDENTIAL_VIEWS:
        return None
    return busy_response(request)
