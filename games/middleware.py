"""An expired demo goes to a new demo, not to a login form it cannot use.

A demo account has no password. When its session ends (an hour idle) or the
account is cleaned up (a day after its last use), its next request is a
visitor's, and ``login_required`` would send it to the login page. Starting
a demo sets a ``casino_demo`` cookie; for a visitor carrying it, this
middleware turns that login redirect into the demo's "session ended" page
(``demo_expired``), which says so and starts a new demo in one click; so
does the table's own move to the login page when its socket closes on the
ended session. An htmx request (a BET from a table left open) gets the same
page through ``HX-Redirect``. The cookie goes as soon as a real player is signed in, or
the demo logs out.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

DEMO_COOKIE = "casino_demo"
DEMO_SESSION_KEY = "casino_demo"
DEMO_COOKIE_AGE = 2 * 24 * 3600  # longer than a demo lives


class DemoSessionMiddleware:
    """Sits after the authentication and message middlewares."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if DEMO_COOKIE not in request.COOKIES:
            return response
        user = getattr(request, "user", None)
        if user is None:
            return response
        if user.is_authenticated:
            if not request.session.get(DEMO_SESSION_KEY):
                response.delete_cookie(DEMO_COOKIE)  # a real player now
            return response
        match = request.resolver_match
        if match is not None and match.view_name == "logout":
            response.delete_cookie(DEMO_COOKIE)
            return response
        if match is not None and match.view_name == "login" and request.method == "GET":
            # A table whose socket closed on the ended session sends the page here.
            login_next = request.GET.get("next")
        else:
            login_next = _login_next(response)
        if not login_next:
            return response
        return _to_expired_page(request, login_next)


def _login_next(response: HttpResponseBase) -> str | None:
    """Where ``login_required`` was sending the visitor back to, if this
    response is its redirect to the login page."""
    if not isinstance(response, HttpResponseRedirect):
        return None
    location = urlsplit(response["Location"])
    if location.path != resolve_url(settings.LOGIN_URL):
        return None
    nexts = parse_qs(location.query).get("next")
    return nexts[0] if nexts else None


def _to_expired_page(request: HttpRequest, login_next: str) -> HttpResponseBase:
    back = login_next
    htmx = getattr(request, "htmx", None)
    if htmx and htmx.current_url:
        # The page the request came from, not the endpoint it posted to.
        current = urlsplit(htmx.current_url)
        if url_has_allowed_host_and_scheme(
            htmx.current_url, allowed_hosts={request.get_host()}, require_https=False
        ):
            back = current.path + (f"?{current.query}" if current.query else "")
    url = f"{reverse('demo_expired')}?{urlencode({'next': back})}"
    if htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return HttpResponseRedirect(url)
