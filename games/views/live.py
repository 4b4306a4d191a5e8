"""A live table's page, its BET and its finished shoes (the Baccarat
table's own URLs answer for a table that is live: games/views/baccarat.py
hands over).

The page draws the table's state as every player sees it (the same
fragment the dealer sends over the socket, templates/baccarat/live.html
#state) and the player's own seat: balance, chips, the slip, their bet on
the coup. BET posts the slip; the service stakes it on the coup taking
bets or refuses it (betting closed, the bet check), and nothing is taken
on a refusal.
"""

from __future__ import annotations

import logging

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.amounts import slip_stakes, table_version
from games.baccarat.rules import AREAS
from games.errors import GameError
from games.models import Shoe, Table
from games.presenters import live as presenter
from games.selectors.players import account_for
from games.services import live, pace
from games.services.rounds import current_version
from games.views.amounts import refused_bet
from games.views.requests import PlayerRequest

logger = logging.getLogger(__name__)


def table(request: PlayerRequest, table: Table) -> HttpResponse:
    account = account_for(request.user)
    context = presenter.page_context(
        user=request.user,
        table=table,
        version=current_version(table),
        profile=account.profile,
        balance=account.balance,
    )
    return render(request, presenter.TEMPLATE, context)


def bet(request: PlayerRequest, table: Table) -> HttpResponse:
    """BET at a live table: the whole slip, staked on the coup taking bets."""
    try:
        pace.check_pace(user=request.user)
        placed = live.place_bet(
            user=request.user,
            table=table,
            bets=slip_stakes(request.POST, AREAS),
            slip_key=request.POST.get("slip_key", ""),
            shown_version=table_version(request.POST),
            commit=request.POST.get("commit", ""),
            coup=request.POST.get("coup", ""),
        )
    except GameError as exc:
        return _refused(request, table, exc)
    except Exception:
        logger.exception("live BET failed at table %s", table.slug)
        return _refused(request, table, str(presenter.FAILED))
    if not request.htmx:
        messages.success(request, _("Your bet is placed on this coup."))
        return redirect(table.get_absolute_url())
    return HttpResponse(presenter.placed_answer(placed=placed))


def _refused(request: PlayerRequest, table: Table, exc: GameError | str) -> HttpResponse:
    return refused_bet(request, table, exc, presenter.refused_answer)


@require_GET
def shoe(request: HttpRequest, slug: str, number: int) -> JsonResponse:
    """Public, as the commitment log is. A finished shoe, published whole: its seed, the players' seeds and
    every coup (docs/fairness.md, Live tables). A shoe still being dealt is
    not shown."""
    found = get_object_or_404(Shoe.objects.select_related("table"), table__slug=slug, number=number)
    document = live.shoe_document(found)
    if document is None:
        raise Http404(_("This shoe is still being dealt: it is published when it ends."))
    return JsonResponse(document, json_dumps_params={"indent": 1})
