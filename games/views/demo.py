"""Demo mode's screens: the visitor's front page, "Play demo", "Refill", the
page an expired demo lands on, and the guard that keeps real-account features
(personal max bet, PIN, CSV export, top-up) out of a demo.

A demo is logged in with Django's own ``login()``; the session then carries
``DEMO_SESSION_KEY`` (the header's DEMO marker reads it through the context
processor), and a ``casino_demo`` cookie lets ``games.middleware`` recognise
the visitor once the session is gone. Refusals check the database
(``is_demo``), not the session.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.display import format_chips
from games.errors import GameError
from games.middleware import DEMO_COOKIE, DEMO_COOKIE_AGE, DEMO_SESSION_KEY
from games.models import Table
from games.selectors.demo import is_demo
from games.services import demo as demo_service
from games.services.demo import UNAVAILABLE

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _next_url(request: HttpRequest, default: str = "lobby") -> str:
    """The same-site page to go back to (``next`` in the form or query)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse(default)


def welcome(request: HttpRequest) -> HttpResponse:
    """The front page for a visitor: play a demo, sign up or log in, read the
    rules of each table and how the shuffle can be checked."""
    tables = Table.objects.filter(enabled=True).order_by("position", "id")
    context = {"tables": tables, "demo_chips": format_chips(demo_service.DEMO_UNITS)}
    return render(request, "demo/welcome.html", context)


@require_POST
def start(request: HttpRequest) -> HttpResponseBase:
    """Play demo: a new demo account with its chips, signed in here."""
    target = _next_url(request)
    if request.user.is_authenticated:
        if not request.session.get(DEMO_SESSION_KEY):
            messages.info(
                request, _("You are signed in: demo mode is for visitors without an account.")
            )
        return redirect(target)
    address = request.META.get("REMOTE_ADDR") or "unknown"
    wait = demo_service.demo_start_wait(address)
    if wait:
        response = render(
            request, "demo/throttled.html", {"wait_minutes": max(1, wait // 60)}, status=429
        )
        response["Retry-After"] = str(wait)
        return response
    user = demo_service.start_demo()
    login(request, user, backend=MODEL_BACKEND)
    request.session[DEMO_SESSION_KEY] = True
    messages.success(
        request,
        _(
            "Demo mode: %(chips)s demo chips to play every table. Demo chips are not real "
            "chips and are deleted a day after your last visit."
        )
        % {"chips": format_chips(demo_service.DEMO_UNITS)},
    )
    response = redirect(target)
    response.set_cookie(DEMO_COOKIE, "1", max_age=DEMO_COOKIE_AGE, httponly=True, samesite="Lax")
    return response


@require_POST
def refill(request: HttpRequest) -> HttpResponseBase:
    """Set the demo wallet back to the demo chips; a real account is refused."""
    target = _next_url(request)
    if not request.user.is_authenticated:
        return redirect("demo_expired")
    try:
        balance = demo_service.refill(user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Refilled: your demo wallet holds %(chips)s demo chips.")
            % {"chips": format_chips(balance)},
        )
    return redirect(target)


@require_GET
def expired(request: HttpRequest) -> HttpResponseBase:
    """Where a demo whose session ended lands: it says so, and starts a new one."""
    if request.user.is_authenticated:
        return redirect(_next_url(request))
    context = {
        "next": _next_url(request),
        "demo_chips": format_chips(demo_service.DEMO_UNITS),
        "idle_hours": int(demo_service.DEMO_IDLE.total_seconds() // 3600),
    }
    return render(request, "demo/expired.html", context)


def not_in_demo(feature: str, *, back: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Refuse ``feature`` (a key of ``UNAVAILABLE``) to a demo account: a
    message and the ``back`` page, or a 403 with the message for htmx;
    the view does not run, so nothing changes."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not is_demo(request.user):
                return view(request, *args, **kwargs)
            reason = str(UNAVAILABLE[feature][1])
            if getattr(request, "htmx", False):
                return HttpResponse(reason, status=403, content_type="text/plain; charset=utf-8")
            messages.error(request, reason)
            return redirect(back)

        return wrapped

    return decorator
