"""The squeeze's state in the browser session, and its endpoint: the SQUEEZE
toggle and the promo clip's start and end (seed 000).

The promo unlock belongs to one visit to the table screen: each render of
the screen starts a visit (a token in the page and in a signed cookie, so a
render writes no session), and the clip's end counts only for the visit that
started it. Leaving the screen (a new render) locks the squeeze again. The
toggle itself is kept in the session between visits.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import asdict, dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.models import Table
from games.presenters import baccarat as presenter
from games.selectors.tables import baccarat_table
from games.services.baccarat import SqueezeWish, promo_finished
from games.views.requests import PlayerRequest

VISIT_COOKIE = "bac_visit"


@dataclass
class SqueezeState:
    """The squeeze part of the session, per table: ``on`` is the toggle;
    ``visit``/``promo``/``promo_started`` are the clip of one visit."""

    on: bool = False
    visit: str = ""
    promo: bool = False  # the clip was watched to its end during ``visit``
    promo_started: float | None = None  # time.time() when the clip started in ``visit``


def _key(table: Table) -> str:
    return f"baccarat:squeeze:{table.pk}"


def load(request: PlayerRequest, table: Table) -> SqueezeState:
    raw = request.session.get(_key(table)) or {}
    started = raw.get("promo_started")
    return SqueezeState(
        on=raw.get("on") is True,
        visit=str(raw.get("visit") or ""),
        promo=raw.get("promo") is True,
        promo_started=float(started) if isinstance(started, int | float) else None,
    )


def save(request: PlayerRequest, table: Table, state: SqueezeState) -> None:
    request.session[_key(table)] = asdict(state)


def current_visit(request: PlayerRequest, table: Table) -> str:
    """The visit the latest render of this table's screen started."""
    visit = request.get_signed_cookie(f"{VISIT_COOKIE}_{table.pk}", default="", salt=VISIT_COOKIE)
    return visit or ""


def start_visit(response: HttpResponse, table: Table, visit: str) -> None:
    response.set_signed_cookie(
        f"{VISIT_COOKIE}_{table.pk}",
        visit,
        salt=VISIT_COOKIE,
        httponly=True,
        samesite="Lax",
        # Every path: the table's socket (/ws/...) reads it at its handshake.
        path="/",
    )


def new_visit() -> str:
    return secrets.token_hex(12)


def by_promo(request: PlayerRequest, table: Table, state: SqueezeState, visit: str | None) -> bool:
    """The clip was watched to its end in this very visit (``visit`` is the
    token the page posts; an older page of the same table has another)."""
    return bool(
        state.promo and state.visit and visit == state.visit == current_visit(request, table)
    )


def wish(request: PlayerRequest, table: Table, visit: str | None) -> SqueezeWish:
    state = load(request, table)
    return SqueezeWish(on=state.on, promo=by_promo(request, table, state, visit))


def toggle_view(
    request: PlayerRequest, table: Table, state: SqueezeState, visit: str
) -> presenter.SqueezeToggle:
    return presenter.squeeze_toggle(
        threshold=table.squeeze_threshold,
        on=state.on,
        by_promo=by_promo(request, table, state, visit),
        visit=visit,
    )


@login_required
@require_POST
def squeeze(request: PlayerRequest, slug: str) -> HttpResponse:
    """``action=toggle`` flips the toggle; ``promo_start`` / ``promo_end``
    come from the clip (static/js/promo.js) with the page's visit token."""
    table = baccarat_table(slug)
    state = load(request, table)
    action = request.POST.get("action", "")
    visit = request.POST.get("visit") or request.POST.get("squeeze_visit") or ""
    fresh = bool(visit) and visit == current_visit(request, table)
    error = note = ""
    if action == "toggle":
        state.on = not state.on
    elif action == "promo_start":
        if fresh:
            state.visit, state.promo, state.promo_started = visit, False, time.time()
    elif action == "promo_end":
        if not fresh or visit != state.visit:
            error = _("This page is out of date. Reload the table to watch the clip.")
        elif not promo_finished(started=state.promo_started, now=time.time()):
            error = _("Watch the clip to its end to unlock the squeeze.")
        else:
            state.promo, state.promo_started = True, None
            state.on = True  # the player watched the clip to squeeze: turn it on
            note = _("Squeeze unlocked for this visit to the table.")
    save(request, table, state)
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif note:
            messages.success(request, note)
        return redirect(table.get_absolute_url())
    context = {"table": table, "squeeze": toggle_view(request, table, state, visit), "oob": True}
    html = presenter.fragment("squeeze_toggle", context)
    html += presenter.fragment("promo_msg", {"promo_error": error, "promo_note": note, "oob": True})
    return HttpResponse(html)
