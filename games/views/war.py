"""The Casino War table: the page, DEAL, the tie decision, the timeout, the rules.

The bet (ANTE, TIE BONUS) is built in the browser (static/js/war.js with the
shared slip) and sent whole with DEAL; the service checks it as it deals.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from games.errors import GameError
from games.models import UNITS_PER_CHIP, Profile, Round, Table
from games.money import decimal_pays
from games.presenters import war as presenter
from games.selectors import war as war_selectors
from games.selectors.players import account_for
from games.selectors.tables import war_table
from games.services import rounds
from games.services import war as war_service
from games.war.odds import exact_edge

TEMPLATE = presenter.TEMPLATE


def _context(
    request: HttpRequest,
    table: Table,
    rnd: Round | None,
    *,
    balance: int,
    profile: Profile,
    last_settled: Round | None,
    fresh_from: int | None = None,
) -> dict:
    version = rnd.version if rnd is not None else rounds.current_version(table)
    view = None
    if rnd is not None:
        waiting = rnd.status == Round.Status.OPEN
        view = presenter.round_view(
            rnd,
            fresh_from=fresh_from,
            can_war=waiting and war_service.can_war(balance=balance, ante=rnd.bets["ante"]),
            surrender_back=(
                war_service.surrender_back(ante=rnd.bets["ante"], version=rnd.version)
                if waiting
                else 0
            ),
        )
    current = rounds.current_version(table)
    return presenter.table_context(
        table=table,
        version=version,
        limits=presenter.limits_view(current, rounds.round_max_bet(request.user, current, profile)),
        balance=balance,
        profile=profile,
        round_view=view,
        last_settled=last_settled,
        slip_key=uuid.uuid4().hex,
    )


@login_required
@require_GET
def table(request: HttpRequest, slug: str) -> HttpResponse:
    """The table. A round still waiting for a tie decision comes back with
    its cards and a fresh countdown."""
    table = war_table(slug)
    account = account_for(request.user)
    found = war_selectors.table_rounds(user=request.user, table=table)
    rnd = war_service.restart_countdown(found.waiting) if found.waiting else None
    shown = request.GET.get("round", "")
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if rnd is None and shown.isascii() and shown.isdigit():
        # The round just played, when the page was reloaded to show it.
        rnd = war_selectors.shown_round(user=request.user, table=table, round_id=int(shown))
    if not table.enabled and rnd is None:
        messages.error(
            request, _("This table is closed. Please choose another table in the lobby.")
        )
        return redirect("lobby")
    context = _context(
        request,
        table,
        rnd,
        balance=account.balance,
        profile=account.profile,
        last_settled=found.last_settled,
    )
    return render(request, TEMPLATE, context)


def _chips_field(request: HttpRequest, name: str) -> int:
    raw = (request.POST.get(name) or "0").strip() or "0"
    try:
        value = int(raw)
    except ValueError:
        raise GameError(_("Bets are whole numbers of chips."), code="bet") from None
    if value < 0 or value > 10**9:
        raise GameError(_("Bets are whole numbers of chips."), code="bet")
    return value * UNITS_PER_CHIP


def _refusal(request: HttpRequest, table: Table, exc: GameError) -> HttpResponse:
    """A refused action: the message region says why; nothing else changes."""
    if not request.htmx:
        messages.error(request, exc.message)
        return redirect(table)
    if exc.code == "timeout":
        response = HttpResponse("")
        response["HX-Redirect"] = request.build_absolute_uri(
            f"{table.get_absolute_url()}timed-out/"
        )
        return response
    response = render(
        request,
        f"{TEMPLATE}#message",
        {"message": exc.message, "message_level": "error", "oob": False},
    )
    return reswap(retarget(response, "#war-message"), "outerHTML")


def _updated(
    request: HttpRequest,
    table: Table,
    rnd: Round,
    *,
    balance: int,
    profile: Profile,
    fresh_from: int,
) -> HttpResponse:
    if not request.htmx:
        # Without htmx (no JavaScript) the table page shows the round.
        return redirect(f"{table.get_absolute_url()}?round={rnd.pk}")
    if rnd.status == Round.Status.SETTLED:
        last_settled: Round | None = rnd  # the round this answer settled is the latest one
    else:
        last_settled = war_selectors.last_settled(user=request.user, table=table)
    context = _context(
        request,
        table,
        rnd,
        balance=balance,
        profile=profile,
        last_settled=last_settled,
        fresh_from=fresh_from,
    )
    return render(request, f"{TEMPLATE}#update", context)


@login_required
@require_POST
def deal(request: HttpRequest, slug: str) -> HttpResponse:
    table = war_table(slug)
    try:
        placed = war_service.play(
            user=request.user,
            table=table,
            ante=_chips_field(request, "ante"),
            tie_bet=_chips_field(request, "tie_bet"),
            slip_key=request.POST.get("slip_key", ""),
        )
    except GameError as exc:
        return _refusal(request, table, exc)
    return _updated(
        request,
        table,
        placed.round,
        balance=placed.balance,
        profile=placed.profile,
        fresh_from=0,
    )


@login_required
@require_POST
def decide(request: HttpRequest, slug: str) -> HttpResponse:
    table = war_table(slug)
    try:
        round_id = int(request.POST.get("round_id", ""))
    except ValueError:
        return _refusal(request, table, GameError(_("There is no such round."), code="missing"))
    try:
        rnd = war_service.decide(
            user=request.user, round_id=round_id, decision=request.POST.get("decision", "")
        )
    except GameError as exc:
        return _refusal(request, table, exc)
    account = account_for(request.user)
    return _updated(
        request,
        table,
        rnd,
        balance=account.balance,
        profile=account.profile,
        fresh_from=2,
    )


@login_required
@require_GET
def timed_out(request: HttpRequest, slug: str) -> HttpResponse:
    """Where the table sends a player whose decision time ran out: the lobby,
    with a message saying the round is saved."""
    table = war_table(slug)
    if not war_service.has_open_round(user=request.user, table=table):
        return redirect(table)
    messages.warning(
        request,
        _(
            "Time ran out for your war decision at %(table)s, so you were taken off the "
            "table. Your round is saved with its cards: return to the table to finish it."
        )
        % {"table": table.name},
    )
    return redirect("lobby")


@login_required
@require_GET
def rules(request: HttpRequest, slug: str) -> HttpResponse:
    """The rules, the paytable and the exact house edge of each wager and strategy."""
    table = war_table(slug)
    version = rounds.current_version(table)
    pays = decimal_pays(version.pays)
    context = presenter.rules_context(
        table=table,
        version=version,
        pays=pays,
        edges=exact_edge(version.decks, pays),
        limits=presenter.limits_view(version, rounds.round_max_bet(request.user, version)),
    )
    return render(request, "war/rules.html", context)
