"""The Casino War table's view models: the round region (cards dealt from
the shoe, the stakes on each spot and what each returned, the tie decision and
its countdown), the limits the chip rack checks, the table menu (history and
the personal max bet), the table's context and the rules page.

Cards use the shared card view of templates/games/card.html; the stakes on
the felt are drawn from the round as the server stored it, so a reload or a
socket push shows the same chips the player put down."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.cards import Card, server_seed_hash
from games.display import UNITS_PER_CHIP, is_red, rank_label, suit_symbol
from games.labels import AREA_LABELS, WAR_RESULT_LABELS
from games.models import Profile, Round, Table, TableVersion
from games.money import decimal_pays
from games.presenters.common import (
    chip_colour,
    chip_label,
    chip_views,
    fragment_memo,
    settled_kind,
)
from games.selectors import war as war_selectors
from games.services import account as account_service
from games.services import rounds
from games.services import war as war_service
from games.services.war import WAR_CARD_COUNT

TEMPLATE = "war/table.html"
# Seconds between two cards leaving the shoe, and each card's flight; fast
# play (the player's setting) deals quicker. The stylesheet does the rest.
CARD_STEP = 0.45
CARD_TIME = 0.6
FAST_CARD_STEP = 0.15
FAST_CARD_TIME = 0.25
# The spots on the felt, left to right, and their names in the page.
SPOTS = ("tie_bet", "ante", "raise")
SPOT_IDS = {"tie_bet": "tie", "ante": "ante", "raise": "raise"}
STACK_SHOWN = 8  # chips drawn on a spot; the amount under it says the rest


def deal_timing(*, fast: bool) -> tuple[float, float]:
    """(seconds between two cards, seconds a card takes to land)."""
    return (FAST_CARD_STEP, FAST_CARD_TIME) if fast else (CARD_STEP, CARD_TIME)


def card_view(
    code: str, *, deal_delay: float | None = None, face_down: bool = False
) -> dict[str, Any]:
    """A card for templates/games/card.html#card. A face-down card carries no
    code, rank or suit: a burnt card's face never reaches the page."""
    delay = None if deal_delay is None else f"{deal_delay:.2f}"
    if face_down:
        return {
            "code": "",
            "rank": "",
            "suit": "",
            "red": False,
            "face_down": True,
            "deal_delay": delay,
        }
    card = Card.parse(code)
    return {
        "code": str(card),
        "rank": rank_label(card.rank),
        "suit": suit_symbol(card.suit),
        "red": is_red(card.suit),
        "face_down": False,
        "deal_delay": delay,
    }


def stake_stack(chips: Sequence[int], amount: int) -> list[dict[str, Any]]:
    """The fewest of the table's chips that make up ``amount`` units (whole
    chips; cents are left to the amount written under the stack), largest at
    the bottom, at most STACK_SHOWN of them."""
    left = amount // UNITS_PER_CHIP
    stack: list[dict[str, Any]] = []
    for value in sorted(chips, reverse=True):
        while left >= value and len(stack) < STACK_SHOWN:
            stack.append(
                {"value": value, "label": chip_label(value), "colour": chip_colour(chips, value)}
            )
            left -= value
    return stack


def _spot_result(area: str, bet: int, returned: int | None, decision: str | None) -> dict[str, Any]:
    """What one spot shows once its wager is settled (nothing while it waits)."""
    if not bet or returned is None:
        return {"outcome": "", "outcome_label": "", "change": None}
    if area == "ante" and decision == "surrender":
        return {"outcome": "half", "outcome_label": _("HALF BACK"), "change": returned}
    kind = settled_kind(bet, returned)
    change = returned - bet if kind == "won" else returned if kind == "back" else None
    labels = {"won": _("WON"), "push": _("PUSH"), "back": _("BACK"), "lost": _("LOST")}
    return {"outcome": kind, "outcome_label": labels[kind], "change": change}


def _to_one(multiplier: Decimal) -> str:
    """A total-return multiplier as "N to 1" (x2 pays 1 to 1)."""
    return _("%(n)s to 1") % {"n": f"{(multiplier - 1).normalize():f}"}


def stakes_html(rnd: Round | None, *, chips: Sequence[int], version: TableVersion) -> SafeString:
    """The three spots on the felt, drawn: TIE BONUS, ANTE, RAISE. With a
    round they hold its stakes (and, once settled, each one's result);
    without one they are empty and the browser draws the bet being built on
    them. Each distinct spot is drawn once per language (``spots_html``): a
    table shows the same few stakes and results round after round."""
    pays = decimal_pays(version.pays)
    paid = {
        "tie_bet": pays.get("tie_bet", Decimal("11")),
        "ante": pays.get("ante", Decimal("2")),
        "raise": pays.get("raise", Decimal("2")),
    }
    decision = rnd.detail.get("decision") if rnd is not None else None
    keys = []
    for area in SPOTS:
        bet = int(rnd.bets.get(area, 0)) if rnd is not None else 0
        returned = rnd.returns.get(area) if rnd is not None else None
        keys.append(
            SpotKey(
                area,
                paid[area],
                bet,
                None if returned is None else int(returned),
                decision,
                tuple(chips),
            )
        )
    return spots_html(keys)


class SpotKey(NamedTuple):
    """All a spot on the felt is drawn from."""

    area: str
    paid: Decimal  # its total-return multiplier
    bet: int
    returned: int | None  # None: not settled
    decision: str | None  # the tie's decision, if any
    chips: tuple[int, ...]  # the table's chip values


def spot_view(key: SpotKey) -> dict[str, Any]:
    """A spot as templates/war/table.html#spot reads it."""
    return {
        "area": key.area,
        "id": SPOT_IDS[key.area],
        "label": AREA_LABELS[key.area],
        "pays": _to_one(key.paid),
        "bet": key.bet,
        "stack": stake_stack(key.chips, key.bet),
        **_spot_result(key.area, key.bet, key.returned, key.decision),
    }


spots_html = fragment_memo(TEMPLATE, "spot", "spot", maxsize=4096, view=spot_view)


def round_view(
    rnd: Round | None,
    *,
    fresh_from: int | None = None,
    can_war: bool = False,
    surrender_back: int = 0,
    chips: Sequence[int] = (),
    fast: bool = False,
    now: dt.datetime | None = None,
) -> dict[str, Any] | None:
    """What the round region shows. Cards from index ``fresh_from`` on are
    dealt from the shoe one after the other (those already on the table stay
    still): player, dealer, then in a war the three burnt cards face down and
    the two war cards. ``can_war`` and ``surrender_back`` come from the
    service for a round waiting for its decision."""
    if rnd is None:
        return None
    step, flight = deal_timing(fast=fast)

    def delay(i: int) -> float | None:
        if fresh_from is None or i < fresh_from:
            return None
        return round((i - fresh_from) * step, 2)

    cards = list(rnd.cards)
    last = len(cards) - 1
    landed = delay(last)
    view: dict[str, Any] = {
        "id": rnd.pk,
        "seq": rnd.seq,
        "status": rnd.status,
        "player": card_view(cards[0], deal_delay=delay(0)),
        "dealer": card_view(cards[1], deal_delay=delay(1)),
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
        # The result shows once the last card has landed.
        "reveal_delay": f"{(landed + flight) if landed is not None else 0:.2f}",
        "deal_time": f"{flight:.2f}",
        "stakes_html": stakes_html(rnd, chips=chips, version=rnd.version),
    }
    if len(cards) >= WAR_CARD_COUNT:
        view["burns"] = [
            card_view(code, deal_delay=delay(2 + i), face_down=True)
            for i, code in enumerate(cards[2:5])
        ]
        view["war_player"] = card_view(cards[5], deal_delay=delay(5))
        view["war_dealer"] = card_view(cards[6], deal_delay=delay(6))
    if rnd.status == Round.Status.OPEN:
        now = now or timezone.now()
        deadline = rnd.decision_deadline or now
        view["seconds_left"] = max(0, int((deadline - now).total_seconds() + 0.5))
        view["timeout"] = rnd.version.decision_timeout
        view["surrender_back"] = surrender_back
        view["tie_returned"] = int(rnd.returns.get("tie_bet", 0))
        view["can_war"] = can_war
    return view


def history_rows(rounds: Sequence[Round]) -> list[dict[str, Any]]:
    """The menu's history: each round's number, cards, result and net, with
    a link to its round page."""
    rows = []
    for rnd in rounds:
        cards = [card_view(code) for code in rnd.cards[:2]]
        war_cards = [card_view(code) for code in rnd.cards[5:7]]
        if rnd.status == Round.Status.OPEN:
            label = _("Waiting for your decision")
        elif rnd.status == Round.Status.VOID:
            label = _("Void (refunded)")
        else:
            label = str(WAR_RESULT_LABELS.get(rnd.detail.get("result") or "", ""))
        rows.append(
            {
                "id": rnd.pk,
                "seq": rnd.seq,
                "played_at": rnd.created_at,
                "player": cards[0] if cards else None,
                "dealer": cards[1] if len(cards) > 1 else None,
                "war": war_cards,
                "label": label,
                "status": rnd.status,
                "total_bet": rnd.total_bet,
                "net": rnd.total_return - rnd.total_bet
                if rnd.status == Round.Status.SETTLED
                else None,
                "url": reverse("history_round", args=[rnd.pk]),
            }
        )
    return rows


def bet_options_view(
    profile: Profile,
    *,
    now: dt.datetime | None = None,
    message: str = "",
    level: str = "",
    errors: Sequence[str] = (),
    max_bet: str = "",
) -> dict[str, Any]:
    """The menu's personal max bet (seed 004's bet options): the rules are
    the account service's; this only says what they allow now."""
    now = now or timezone.now()
    changed = profile.max_bet_changed_at
    return {
        "personal": profile.personal_max_bet,
        "has_pin": bool(profile.pin_hash),
        "pin_locked": account_service.pin_locked(profile, now),
        "can_change": account_service.can_change_now(changed, now),
        "next_change": account_service.next_change_allowed(changed),
        "tables_max": account_service.tables_max_bet(),
        "message": message,
        "level": level,
        "errors": list(errors),
        "max_bet": max_bet
        if max_bet
        else (str(profile.personal_max_bet // UNITS_PER_CHIP) if profile.personal_max_bet else ""),
    }


def limits_view(version: TableVersion, round_max: tuple[int, bool]) -> dict[str, Any]:
    """The limits the chip rack checks as chips go down (units)."""
    limit, personal = round_max
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


def table_context(
    *,
    table: Table,
    version: TableVersion,
    limits: dict[str, Any],
    balance: int,
    profile: Profile,
    round_view: dict[str, Any] | None,
    last_settled: Round | None,
    slip_key: str,
    message: str = "",
    message_level: str = "",
) -> dict[str, Any]:
    """The whole table page: the round region, the empty spots the browser
    builds the next bet on, the limits, the menu's settings and the fairness
    panel. The menu's history and bet options load when their tab opens."""
    return {
        "table": table,
        "chips": chip_views(table.chips),
        "empty_stakes_html": stakes_html(None, chips=table.chips, version=version),
        "fast": profile.fast_play,
        "version": version,
        "rv": round_view,
        "limits": limits,
        "balance": balance,
        "header_balance": balance,
        "slip_key": slip_key,
        "last_settled": last_settled,
        "last_bets": last_settled.bets if last_settled else {},
        "next_server_seed_hash": server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        "client_seed": profile.client_seed,
        "profile": profile,
        "message": message,
        "message_level": message_level,
        "timeout": version.decision_timeout,
    }


def _pays_to_one(multiplier: Decimal) -> str:
    """A total-return multiplier as "N to 1" odds (x2 pays 1 to 1)."""
    return f"{(multiplier - 1).normalize():f}"


def rules_context(
    *,
    table: Table,
    version: TableVersion,
    pays: dict[str, Decimal],
    edges: dict[str, Fraction],
    limits: dict[str, Any],
) -> dict[str, Any]:
    """The rules, the paytable and the exact house edge of each wager and strategy."""
    ante = pays.get("ante", Decimal("2"))
    raise_pays = pays.get("raise", Decimal("2"))
    tie_pays = pays.get("tie_bet", Decimal("11"))
    bonus = pays.get("war_tie_bonus", Decimal("0"))
    edge_rows = [
        (_("ANTE, going to war on every tie"), edges["war"]),
        (_("ANTE, surrendering on every tie"), edges["surrender"]),
        (AREA_LABELS["tie_bet"], edges["tie_bet"]),
    ]
    return {
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
                "percent": f"{float(f) * 100:.4f}",
            }
            for label, f in edge_rows
        ],
        "limits": limits,
        "timeout": version.decision_timeout,
        "better": "surrender" if edges["surrender"] < edges["war"] else "war",
    }


# ------------------------------------------------------ DEAL's and WAR's answers


def table_limits(*, user: Any, table: Table, profile: Profile) -> dict[str, Any]:
    """The limits the chip rack checks, with the largest ante that can still
    go to war under the MAX BET (what the table says at the ante)."""
    current = rounds.current_version(table)
    limits = war_service.bet_limits(user=user, version=current, profile=profile, chips=table.chips)
    return {
        **limits_view(current, (limits.max_bet, limits.personal)),
        "war_ante_max": war_service.largest_war_ante(limits),
        "step": limits.step,
    }


def round_context(
    *,
    user: Any,
    table: Table,
    rnd: Round | None,
    balance: int,
    profile: Profile,
    last_settled: Round | None,
    fresh_from: int | None = None,
) -> dict[str, Any]:
    """The table with ``rnd`` on the felt (the page, and DEAL's and the
    decision's answers, over HTTP or the table's socket), with a fresh slip
    key for the next DEAL."""
    version = rnd.version if rnd is not None else rounds.current_version(table)
    view = None
    if rnd is not None:
        waiting = rnd.status == Round.Status.OPEN
        view = round_view(
            rnd,
            fresh_from=fresh_from,
            can_war=waiting and war_service.can_war(balance=balance, ante=rnd.bets["ante"]),
            surrender_back=(
                war_service.surrender_back(ante=rnd.bets["ante"], version=rnd.version)
                if waiting
                else 0
            ),
            chips=table.chips,
            fast=profile.fast_play,
        )
    return table_context(
        table=table,
        version=version,
        limits=table_limits(user=user, table=table, profile=profile),
        balance=balance,
        profile=profile,
        round_view=view,
        last_settled=last_settled,
        slip_key=uuid.uuid4().hex,
    )


def update_answer(
    *, user: Any, table: Table, rnd: Round, balance: int, profile: Profile, fresh_from: int
) -> str:
    """DEAL's or the decision's answer (an htmx POST or a socket message):
    the round region, the balance, the next slip key, the fairness panel."""
    if rnd.status == Round.Status.SETTLED:
        last_settled: Round | None = rnd  # the round this answer settled is the latest one
    else:
        last_settled = war_selectors.last_settled(user=user, table=table)
    context = round_context(
        user=user,
        table=table,
        rnd=rnd,
        balance=balance,
        profile=profile,
        last_settled=last_settled,
        fresh_from=fresh_from,
    )
    return render_to_string(f"{TEMPLATE}#update", context)


def refused_answer(message: str) -> str:
    """A refused DEAL or decision over the socket: the message region says
    why (swapped by id); nothing else changes."""
    return render_to_string(
        f"{TEMPLATE}#message", {"message": message, "message_level": "error", "oob": True}
    )
