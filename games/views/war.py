"""The Casino War table: the page, DEAL, the tie decision, the timeout, the
table menu (settings, history, personal max bet) and the rules.

The bet (ANTE, TIE BONUS) is built in the browser (static/js/war.js with the
shared slip) and sent whole with DEAL; the service checks it as it deals. The
menu's forms post with htmx and get their own part of the menu back.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from games.amounts import bet_amount, table_version
from games.errors import GameError
from games.models import UNITS_PER_CHIP, Profile, Round, Table
from games.money import decimal_pays
from games.presenters import table_history as table_history_presenter
from games.presenters import war as presenter
from games.presenters.common import truthy
from games.presenters.refusals import play_safe_refusal
from games.selectors import table_history as table_history_selectors
from games.selectors import war as war_selectors
from games.selectors.players import account_for, profile_for
from games.selectors.tables import war_table
from games.services import account as account_service
from games.services import bets, pace, rounds
from games.services import war as war_service
from games.services.player_settings import save_settings
from games.views.account import MaxBetForm
from games.views.amounts import refusal_status, refused_page, with_status
from games.views.demo import not_in_demo
from games.views.requests import PlayerRequest
from games.war.odds import exact_edge

TEMPLATE = presenter.TEMPLATE
# The menu's settings: the player's settings for every game, those a War table uses.
MENU_SETTINGS = ("sound", "effects", "music", "fast_play")


class MenuMaxBetForm(MaxBetForm):
    """The Account page's max bet form, saying plainly that the PIN is needed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["pin"].error_messages["required"] = _("Enter your PIN to confirm the change.")


def _limits(request: PlayerRequest, table: Table, profile: Profile) -> dict:
    return presenter.table_limits(user=request.user, table=table, profile=profile)


@login_required
@require_GET
def table(request: PlayerRequest, slug: str) -> HttpResponse:
    """The table. A round still waiting for a tie decision comes back with
    its cards and the seconds left, or a fresh countdown when its time ran
    out (the player was taken off the table and is back)."""
    table = war_table(slug)
    account = account_for(request.user)
    found = war_selectors.table_rounds(user=request.user, table=table)
    rnd = war_service.back_at_table(found.waiting) if found.waiting else None
    shown = request.GET.get("round", "")
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if rnd is None and shown.isascii() and shown.isdigit():
        # The round just played, when the page was reloaded to show it.
        rnd = war_selectors.shown_round(user=request.user, table=table, round_id=int(shown))
    if request.GET.get("terms") == "changed":
        messages.error(request, bets.TableChanged.message_text())
    if not table.enabled and rnd is None:
        messages.error(
            request, _("This table is closed. Please choose another table in the lobby.")
        )
        return redirect("lobby")
    context = presenter.round_context(
        user=request.user,
        table=table,
        rnd=rnd,
        balance=account.balance,
        profile=account.profile,
        last_settled=found.last_settled,
    )
    return render(request, TEMPLATE, context)


def _refusal(request: PlayerRequest, table: Table, exc: GameError) -> HttpResponse:
    """A refused action: the message region says why; nothing else changes.
    An amount that is not one (only a forged or hand-edited request sends
    it) or an action over the pace of a hand is a client error
    (``refusal_status``; static/js/war.js still shows its message)."""
    if isinstance(exc, bets.TableChanged):
        # The page showed older payouts or limits: it is drawn again with
        # the ones in force, saying why (as the socket's page is).
        return _page_goes_to(request, f"{table.get_absolute_url()}?terms=changed")
    if exc.code == "timeout":
        # Time ran out: the player is taken off the table, as the socket
        # does (the lobby says so and links back to the saved round).
        return _page_goes_to(request, reverse("war_timed_out", args=[table.slug]))
    if not request.htmx:
        if refusal_status(exc) != 200:
            return refused_page(request, exc, back=table.get_absolute_url())
        messages.error(request, exc.message)
        return redirect(table)
    response = render(
        request,
        f"{TEMPLATE}#message",
        {"message": exc.message, "message_level": "error", "oob": False},
    )
    response.content += play_safe_refusal(exc).encode()
    return reswap(retarget(with_status(response, exc), "#war-message"), "outerHTML")


def _page_goes_to(request: PlayerRequest, url: str) -> HttpResponse:
    """The page loads ``url``: htmx is told to (``HX-Redirect``), a form
    posted without it is redirected."""
    if not request.htmx:
        return redirect(url)
    return HttpResponseClientRedirect(request.build_absolute_uri(url))


def _updated(
    request: PlayerRequest,
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
    html = presenter.update_answer(
        user=request.user,
        table=table,
        rnd=rnd,
        balance=balance,
        profile=profile,
        fresh_from=fresh_from,
    )
    return HttpResponse(html)


@login_required
@require_POST
def deal(request: PlayerRequest, slug: str) -> HttpResponse:
    table = war_table(slug)
    try:
        pace.check_pace(user=request.user)
        placed = war_service.play(
            user=request.user,
            table=table,
            ante=bet_amount(request.POST.get("ante")),
            tie_bet=bet_amount(request.POST.get("tie_bet")),
            slip_key=request.POST.get("slip_key", ""),
            shown_version=table_version(request.POST),
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
def decide(request: PlayerRequest, slug: str) -> HttpResponse:
    table = war_table(slug)
    try:
        round_id = int(request.POST.get("round_id", ""))
    except ValueError:
        return _refusal(request, table, GameError(_("There is no such round."), code="missing"))
    try:
        pace.check_pace(user=request.user)
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
def timed_out(request: PlayerRequest, slug: str) -> HttpResponse:
    """Where the table sends a player whose decision time ran out: the lobby,
    which says the round is saved and links back to this table (the
    message's extra tag names the table: templates/games/lobby.html)."""
    table = war_table(slug)
    if not war_selectors.has_open_round(user=request.user, table=table):
        return redirect(table)
    messages.warning(
        request,
        _(
            "Time ran out for your war decision at %(table)s, so you were taken off the "
            "table. Your round is saved."
        )
        % {"table": table.local_name},
        extra_tags=f"war-timeout resume-{table.slug}",
    )
    return redirect("lobby")


# --- the table menu ---------------------------------------------------------


@login_required
@require_POST
def menu_settings(request: PlayerRequest, slug: str) -> HttpResponse:
    """The menu's settings (for every game): sound, effects, music, fast play."""
    table = war_table(slug)
    profile = save_settings(
        user=request.user, values={f: truthy(request.POST.get(f)) for f in MENU_SETTINGS}
    )
    if not request.htmx:
        messages.success(request, _("Your settings have been saved."))
        return redirect(table)
    return render(
        request, f"{TEMPLATE}#settings", {"table": table, "profile": profile, "saved": True}
    )


@login_required
@require_GET
def menu_history(request: PlayerRequest, slug: str) -> HttpResponse:
    """The menu's "Game history": the player's latest rounds at this table,
    in the panel both tables show."""
    table = war_table(slug)
    rows = table_history_presenter.history_rows(
        table_history_selectors.recent_rounds(user=request.user, table=table)
    )
    return render(request, "games/table_history.html#panel", {"table": table, "rows": rows})


@login_required
@require_GET
def menu_bet_options(request: PlayerRequest, slug: str) -> HttpResponse:
    """The menu's personal max bet: what it is and whether it can change now."""
    table = war_table(slug)
    context = {
        "table": table,
        "bet_options": presenter.bet_options_view(profile_for(request.user)),
    }
    return render(request, f"{TEMPLATE}#bet_options", context)


@login_required
@require_POST
@not_in_demo("max_bet", back="lobby")
def menu_max_bet(request: PlayerRequest, slug: str) -> HttpResponse:
    """The menu's personal max bet: the Account page's form and rules (the
    account service decides: once a week, PIN required); the answer shows in
    the menu, and the table's MAX BET follows at once."""
    table = war_table(slug)
    form = MenuMaxBetForm(request.POST)
    message, level = "", "error"
    if form.is_valid():
        chips = form.cleaned_data["max_bet"]
        try:
            account_service.set_personal_max_bet(
                user=request.user,
                max_bet=None if chips is None else chips * UNITS_PER_CHIP,
                pin=form.cleaned_data["pin"],
            )
        except GameError as exc:
            message = exc.message
        else:
            level = "saved"
            message = (
                _("Your personal max bet is removed.")
                if chips is None
                else _("Your personal max bet is now %(max)s chips per round, in every game.")
                % {"max": f"{chips:,}"}
            )
    errors = [str(error) for field_errors in form.errors.values() for error in field_errors]
    if not request.htmx:
        for text in [message, *errors]:
            if text:
                getattr(messages, "success" if level == "saved" else "error")(request, text)
        return redirect(table)
    profile = profile_for(request.user)
    context = {
        "table": table,
        "bet_options": presenter.bet_options_view(
            profile,
            message=message,
            level=level,
            errors=errors,
            max_bet="" if level == "saved" else request.POST.get("max_bet", "")[:12],
        ),
        "limits": _limits(request, table, profile),
        "oob": True,
    }
    return render(request, f"{TEMPLATE}#bet_options_answer", context)


@require_GET
def rules(request: PlayerRequest, slug: str) -> HttpResponse:
    """The rules, the paytable and the exact house edge of each wager and strategy.

    Public: a visitor reads the table's own limits (a blank profile has no
    personal max bet); a signed-in player's personal limit shows."""
    table = war_table(slug)
    version = rounds.current_version(table)
    visitor = None if request.user.is_authenticated else Profile()
    pays = decimal_pays(version.pays)
    context = presenter.rules_context(
        table=table,
        version=version,
        pays=pays,
        edges=exact_edge(version.decks, pays),
        limits=presenter.limits_view(version, bets.round_max_bet(request.user, version, visitor)),
    )
    return render(request, "war/rules.html", context)
