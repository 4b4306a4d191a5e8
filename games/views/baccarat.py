"""The Baccarat table: the page, BET, the roads details, the rules and the
player's settings and client seed.

The bet slip lives in the browser (static/js/slip.js): chips go down without
a request, and BET sends the whole slip, which the service checks exactly as
it settles it. Each view parses its input, calls one service or selector,
and renders ``baccarat/table.html`` or one of its partials with a context
from ``games.presenters.baccarat``, the same the websocket reveal renders.
"""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.amounts import slip_stakes, table_version
from games.baccarat.rules import AREAS
from games.errors import GameError
from games.models import Profile, Table
from games.presenters import baccarat as presenter
from games.presenters import table_history as table_history_presenter
from games.presenters.common import truthy
from games.selectors import reveal as reveal_selectors
from games.selectors import roads as road_selectors
from games.selectors import table_history as table_history_selectors
from games.selectors.players import account_for, profile_for
from games.selectors.tables import baccarat_table
from games.services import baccarat as service
from games.services import bets, pace, player_settings
from games.services import squeeze as squeeze_service
from games.services.rounds import current_version, require_open
from games.views import live
from games.views.amounts import refused_bet
from games.views.requests import PlayerRequest

logger = logging.getLogger(__name__)

TEMPLATE = presenter.TEMPLATE


@login_required
@require_GET
def table(request: PlayerRequest, slug: str) -> HttpResponse:
    table = baccarat_table(slug)
    try:
        require_open(table)
    except GameError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    if table.live:
        return live.table(request, table)
    account = account_for(request.user)
    version = current_version(table)
    limits = bets.baccarat_limits(
        user=request.user, version=version, profile=account.profile, chips=table.chips
    )
    last = road_selectors.latest_round(user=request.user, table=table)
    # A round whose reveal the player has not seen to the end (a reload mid
    # deal or mid squeeze): the felt as its reveal starts, its result kept
    # off the roads and the balance, and the socket shows the rest.
    revealing = last if reveal_selectors.unfinished_reveal(last) else None
    # Until that reveal's result, the page knows only the balance after its stakes.
    balance = presenter.balance_after_stakes(revealing) if revealing else account.balance
    visit = squeeze_service.new_visit()  # a clip watched on an earlier render no longer counts
    state = squeeze_service.load(session=request.session, table=table)
    context = presenter.table_context(
        table=table,
        version=version,
        limits=limits,
        balance=balance,
        profile=account.profile,
        last=last,
        roads=road_selectors.table_roads(
            user=request.user, table=table, before_seq=revealing.seq if revealing else None
        ),
        rebet=presenter.rebet_for(limits, balance, last.bets if last else None),
        squeeze=presenter.squeeze_toggle(
            threshold=table.squeeze_threshold, on=state.on, by_promo=False, visit=visit
        ),
    )
    if revealing is not None:
        context.update(presenter.revealing_context(revealing))
    context["promo_seconds"] = squeeze_service.PROMO_SECONDS
    response = render(request, TEMPLATE, context)
    cookie = squeeze_service.visit_cookie(table=table, visit=visit)
    response.set_cookie(cookie.name, cookie.value, path=cookie.path, httponly=True, samesite="Lax")
    return response


def parse_slip(request: PlayerRequest) -> dict[str, int]:
    """The slip BET sends: chips per area (``player=10``, ``tie=2.5``), as units."""
    return slip_stakes(request.POST, AREAS)


def _refused(request: PlayerRequest, table: Table, exc: GameError | str) -> HttpResponse:
    """A refused BET: the slip stays in the browser to be fixed; the message
    says why (an amount that is not one, or a BET over the pace of a hand,
    is a client error: ``refusal_status``)."""
    return refused_bet(request, table, exc, presenter.refused_answer)


@login_required
@require_POST
def bet(request: PlayerRequest, slug: str) -> HttpResponse:
    """BET: one service call settles the round; the reveal arrives over the websocket."""
    table = baccarat_table(slug)
    if table.live:
        return live.bet(request, table)
    visit = request.POST.get("squeeze_visit")
    wish = squeeze_service.wish(
        session=request.session, cookies=request.COOKIES, table=table, visit=visit
    )
    try:
        pace.check_pace(user=request.user)
        placed = service.play(
            user=request.user,
            table=table,
            bets=parse_slip(request),
            slip_key=request.POST.get("slip_key", ""),
            shown_version=table_version(request.POST),
            squeeze=wish,
        )
    except GameError as exc:
        return _refused(request, table, exc)
    except Exception:
        # Everything after the debit ran in one transaction, now rolled back.
        logger.exception("BET failed at table %s", table.slug)
        return _refused(request, table, str(presenter.FAILED))
    if not request.htmx:
        return redirect(table.get_absolute_url())
    answer = presenter.placed_answer(table=table, placed=placed, wish=wish, visit=visit or "")
    return HttpResponse(answer)


@login_required
@require_GET
def roads(request: PlayerRequest, slug: str) -> HttpResponse:
    """The roads in detail: larger roads, the derived roads, ask previews, score history."""
    table = baccarat_table(slug)
    detail = road_selectors.detail_roads(user=request.user, table=table)
    context = {"table": table, "detail": presenter.RoadsView(detail), "history": detail.history}
    if request.htmx:
        return render(request, "baccarat/roads.html#roads_detail", context)
    return render(request, "baccarat/roads.html", context)


@require_GET
def rules(request: PlayerRequest, slug: str) -> HttpResponse:
    """Rules, this table's current paytable (its version) and limits, each bet's
    exact RTP, and when the page was generated (seed 001 stamps its rules so).

    Public: a visitor reads the table's own limits (a blank profile has no
    personal max bet); a signed-in player's personal limit shows."""
    table = baccarat_table(slug)
    version = current_version(table)
    visitor = None if request.user.is_authenticated else Profile()
    limits = bets.baccarat_limits(
        user=request.user, version=version, profile=visitor, chips=table.chips
    )
    context = presenter.rules_context(
        table=table,
        version=version,
        limits=limits,
        returns=service.table_rtp(version),
        generated_at=timezone.now(),
    )
    return render(request, "baccarat/rules.html", context)


@login_required
@require_POST
def client_seed(request: PlayerRequest, slug: str) -> HttpResponse:
    table = baccarat_table(slug)
    error = ""
    try:
        player_settings.change_client_seed(
            user=request.user, client_seed=request.POST.get("client_seed", "")
        )
    except GameError as exc:
        error = exc.message
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(table.get_absolute_url())
    context = presenter.fairness_context(
        table, profile_for(request.user), error=error, saved=not error
    )
    if error:
        context["client_seed"] = request.POST.get("client_seed", "")
    return render(request, f"{TEMPLATE}#fairness", context)


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: PlayerRequest) -> HttpResponse:
    """The player's settings for every game: sound, effects, music, history panel, fast play,
    volume.

    A full form posts every checkbox; a single toggle (the history panel's
    close button, the table's mute button and volume slider) posts ``field``
    and ``value``.
    """
    profile = profile_for(request.user)
    saved = False
    error = ""
    if request.method == "POST":
        field_name = request.POST.get("field")
        values: dict[str, bool | str]
        if field_name in player_settings.SETTINGS_FIELDS:
            values = {field_name: truthy(request.POST.get("value"))}
        elif field_name in player_settings.SETTINGS_LEVELS:  # the table's volume slider
            values = {field_name: request.POST.get("value", "")}
        else:
            values = {f: truthy(request.POST.get(f)) for f in player_settings.SETTINGS_FIELDS}
        try:
            profile = player_settings.save_settings(user=request.user, values=values)
            saved = True
        except GameError as exc:
            error = exc.message
        if not request.htmx:
            if error:
                messages.error(request, error)
            else:
                messages.success(request, _("Your settings have been saved."))
            target = request.POST.get("next", "")
            if not url_has_allowed_host_and_scheme(
                target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
            ):
                target = reverse("baccarat_settings")
            return redirect(target)
    context = {"profile": profile, "saved": saved, "error": error, "oob": request.htmx}
    if request.htmx:
        form = render_to_string("baccarat/settings.html#settings_form", context, request=request)
        prefs = presenter.fragment("prefs", {"profile": profile, "oob": True})
        return HttpResponse(form + prefs)
    return render(request, "baccarat/settings.html", context)


@login_required
@require_GET
def table_history(request: PlayerRequest, slug: str) -> HttpResponse:
    """The settings menu's "Game history": the player's last rounds at this
    table, each linking to its round page (a panel for htmx, a page otherwise)."""
    table = baccarat_table(slug)
    rounds = table_history_selectors.recent_rounds(user=request.user, table=table)
    context = {
        "table": table,
        "rows": table_history_presenter.history_rows(rounds),
        "shown": table_history_selectors.HISTORY_SHOWN,
    }
    if request.htmx:
        return render(request, "games/table_history.html#panel", context)
    return render(request, "games/table_history.html", context)
