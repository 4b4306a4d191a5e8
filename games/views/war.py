"""The Casino War table: the page, DEAL, the tie decision, the timeout, the rules."""

from __future__ import annotations

import uuid
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from games.cards import Card, server_seed_hash
from games.errors import GameError
from games.labels import AREA_LABELS, WAR_RESULT_LABELS
from games.models import UNITS_PER_CHIP, Game, Profile, Round, Table, TableVersion
from games.services import rounds
from games.services import war as war_service
from games.services.tables import decimal_pays
from games.war.odds import exact_edge

TEMPLATE = "war/table.html"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
# Seconds between two cards of the reveal animation (the CSS does the rest).
CARD_STEP = 0.35


def _war_table(slug: str) -> Table:
    return get_object_or_404(
        Table.objects.select_related("current_version"), slug=slug, game=Game.WAR
    )


def _card(code: str, *, delay: float | None = None, face_down: bool = False) -> dict[str, Any]:
    card = Card.parse(code)
    return {
        "code": str(card),
        "rank": "10" if card.rank == "T" else card.rank,
        "suit": SUIT_SYMBOLS[card.suit],
        "red": card.suit in "HD",
        "delay": delay,
        "face_down": face_down,
    }


def round_view(rnd: Round | None, *, fresh_from: int | None = None) -> dict[str, Any] | None:
    """What the round region shows. Cards from index ``fresh_from`` on are
    dealt with the animation (those already on the table stay still)."""
    if rnd is None:
        return None

    def delay(i: int) -> float | None:
        if fresh_from is None or i < fresh_from:
            return None
        return round((i - fresh_from) * CARD_STEP, 2)

    cards = list(rnd.cards)
    view: dict[str, Any] = {
        "id": rnd.pk,
        "seq": rnd.seq,
        "status": rnd.status,
        "player": _card(cards[0], delay=delay(0)),
        "dealer": _card(cards[1], delay=delay(1)),
        "burns": [],
        "war_player": None,
        "war_dealer": None,
        "ante": int(rnd.bets.get("ante", 0)),
        "tie_bet": int(rnd.bets.get("tie_bet", 0)),
        "ante_chips": int(rnd.bets.get("ante", 0)) // UNITS_PER_CHIP,
        "tie_chips": int(rnd.bets.get("tie_bet", 0)) // UNITS_PER_CHIP,
        "raised_from": rnd.detail.get("ante_raised_from"),
        "tied": bool(rnd.detail.get("tied")),
        "decision": rnd.detail.get("decision"),
        "result": rnd.detail.get("result"),
        "result_label": WAR_RESULT_LABELS.get(rnd.detail.get("result") or "", ""),
        "total_bet": rnd.total_bet,
        "total_return": rnd.total_return,
        "net": rnd.total_return - rnd.total_bet,
        "balance_after": rnd.balance_after,
        "reveal_delay": delay(len(cards) - 1 if fresh_from is not None else 0) or 0,
    }
    if len(cards) >= war_service.WAR_CARD_COUNT:
        view["burns"] = [
            _card(code, delay=delay(2 + i), face_down=True) for i, code in enumerate(cards[2:5])
        ]
        view["war_player"] = _card(cards[5], delay=delay(5))
        view["war_dealer"] = _card(cards[6], delay=delay(6))
    view["wagers"] = [
        {
            "area": area,
            "label": AREA_LABELS[area],
            "bet": int(rnd.bets[area]),
            "returned": rnd.returns.get(area),
        }
        for area in ("ante", "raise", "tie_bet")
        if area in rnd.bets
    ]
    if rnd.status == Round.Status.OPEN:
        deadline = rnd.decision_deadline or timezone.now()
        view["seconds_left"] = max(0, int((deadline - timezone.now()).total_seconds() + 0.5))
        view["surrender_back"] = view["ante"] // 2
        view["tie_returned"] = int(rnd.returns.get("tie_bet", 0))
    return view


def _limits(user, version: TableVersion, profile: Profile | None = None) -> dict[str, Any]:
    limit, personal = rounds.round_max_bet(user, version, profile)
    ante = version.limits.get("ante", {})
    tie = version.limits.get("tie_bet", {})
    return {
        "ante_min": int(ante.get("min", 0)),
        "ante_max": int(ante.get("max", limit)),
        "tie_min": int(tie.get("min", 0)),
        "tie_max": int(tie.get("max", limit)),
        "round_max": limit,
        "personal": personal,
    }


def _context(
    request: HttpRequest,
    table: Table,
    rnd: Round | None,
    *,
    fresh_from: int | None = None,
    message: str = "",
    message_level: str = "",
) -> dict[str, Any]:
    version = rnd.version if rnd is not None else rounds.current_version(table)
    # As the round this request played left them, if it played one (rounds.remember).
    wallet, profile = rounds.player_rows(request.user)
    balance = wallet.balance
    view = round_view(rnd, fresh_from=fresh_from)
    if view is not None and view["status"] == Round.Status.OPEN:
        view["can_war"] = balance >= view["ante"]
    if rnd is not None and rnd.status == Round.Status.SETTLED and fresh_from is not None:
        last_settled = rnd  # the round this answer settled is the latest one
    else:
        last_settled = (
            Round.objects.filter(
                player=request.user, table=table, game=Game.WAR, status=Round.Status.SETTLED
            )
            .order_by("-id")
            .first()
        )
    return {
        "table": table,
        "version": version,
        "rv": view,
        "limits": _limits(request.user, rounds.current_version(table), profile),
        "balance": balance,
        "header_balance": balance,
        "slip_key": uuid.uuid4().hex,
        "last_settled": last_settled,
        "last_bets": last_settled.bets if last_settled else {},
        "next_server_seed_hash": server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        "client_seed": profile.client_seed,
        "profile": profile,
        "message": message,
        "message_level": message_level,
        "timeout": version.decision_timeout,
    }


@login_required
@require_GET
def table(request: HttpRequest, slug: str) -> HttpResponse:
    """The table. A round still waiting for a tie decision comes back with
    its cards and a fresh countdown."""
    table = _war_table(slug)
    rnd = war_service.resume(user=request.user, table=table)
    shown = request.GET.get("round", "")
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if rnd is None and shown.isascii() and shown.isdigit():
        # The round just played, when the page was reloaded to show it.
        rnd = Round.objects.filter(
            pk=int(shown), player=request.user, table=table, game=Game.WAR
        ).first()
    if not table.enabled and rnd is None:
        messages.error(
            request, _("This table is closed. Please choose another table in the lobby.")
        )
        return redirect("lobby")
    return render(request, TEMPLATE, _context(request, table, rnd))


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


def _updated(request: HttpRequest, table: Table, rnd: Round, *, fresh_from: int) -> HttpResponse:
    if not request.htmx:
        # Without htmx (no JavaScript) the table page shows the round.
        return redirect(f"{table.get_absolute_url()}?round={rnd.pk}")
    context = _context(request, table, rnd, fresh_from=fresh_from)
    return render(request, f"{TEMPLATE}#update", context)


@login_required
@require_POST
def deal(request: HttpRequest, slug: str) -> HttpResponse:
    table = _war_table(slug)
    slip_key = request.POST.get("slip_key", "")
    try:
        ante = _chips_field(request, "ante")
        tie_bet = _chips_field(request, "tie_bet")
        rnd = war_service.deal(
            user=request.user, table=table, ante=ante, tie_bet=tie_bet, slip_key=slip_key
        )
    except GameError as exc:
        return _refusal(request, table, exc)
    except IntegrityError:
        # The same slip raced itself on a database that does not serialise
        # writers: the other request made the round; show it.
        rnd = Round.objects.get(player=request.user, slip_key=slip_key.strip())
    return _updated(request, table, rnd, fresh_from=0)


@login_required
@require_POST
def decide(request: HttpRequest, slug: str) -> HttpResponse:
    table = _war_table(slug)
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
    return _updated(request, table, rnd, fresh_from=2)


@login_required
@require_GET
def timed_out(request: HttpRequest, slug: str) -> HttpResponse:
    """Where the table sends a player whose decision time ran out: the lobby,
    with a message saying the round is saved."""
    table = _war_table(slug)
    if war_service.open_round(user=request.user, table=table) is None:
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


def _pays_to_one(multiplier: Decimal) -> str:
    """A total-return multiplier as "N to 1" odds (x2 pays 1 to 1)."""
    return f"{(multiplier - 1).normalize():f}"


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}"


@login_required
@require_GET
def rules(request: HttpRequest, slug: str) -> HttpResponse:
    """The rules, the paytable and the exact house edge of each wager and strategy."""
    table = _war_table(slug)
    version = rounds.current_version(table)
    pays = decimal_pays(version.pays)
    edges = exact_edge(version.decks, pays)
    ante = pays.get("ante", Decimal("2"))
    raise_pays = pays.get("raise", Decimal("2"))
    tie_pays = pays.get("tie_bet", Decimal("11"))
    bonus = pays.get("war_tie_bonus", Decimal("0"))
    edge_rows = [
        (_("ANTE, going to war on every tie"), edges["war"]),
        (_("ANTE, surrendering on every tie"), edges["surrender"]),
        (AREA_LABELS["tie_bet"], edges["tie_bet"]),
    ]
    return render(
        request,
        "war/rules.html",
        {
            "table": table,
            "version": version,
            "ante_to_one": _pays_to_one(ante),
            "raise_to_one": _pays_to_one(raise_pays),
            "tie_to_one": _pays_to_one(tie_pays),
            "bonus": f"{bonus.normalize():f}",
            "has_bonus": bonus > 0,
            "war_tie_to_one": _pays_to_one(raise_pays),
            "edges": [
                {
                    "label": label,
                    "fraction": f"{f.numerator}/{f.denominator}",
                    "percent": _percent(f),
                }
                for label, f in edge_rows
            ],
            "limits": _limits(request.user, version),
            "timeout": version.decision_timeout,
            "better": "surrender" if edges["surrender"] < edges["war"] else "war",
        },
    )
