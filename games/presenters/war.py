"""The Casino War table's view models: the round region (cards, wagers, the
tie decision and its countdown), the limits the chip rack checks, the
table's context and the rules page."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from games.cards import Card, server_seed_hash
from games.display import UNITS_PER_CHIP, is_red, rank_label, suit_symbol
from games.labels import AREA_LABELS, WAR_RESULT_LABELS
from games.models import Profile, Round, Table, TableVersion
from games.services.war import WAR_CARD_COUNT

TEMPLATE = "war/table.html"
# Seconds between two cards of the reveal animation (the CSS does the rest).
CARD_STEP = 0.35


def card_view(code: str, *, delay: float | None = None, face_down: bool = False) -> dict[str, Any]:
    card = Card.parse(code)
    return {
        "code": str(card),
        "rank": rank_label(card.rank),
        "suit": suit_symbol(card.suit),
        "red": is_red(card.suit),
        "delay": delay,
        "face_down": face_down,
    }


def round_view(
    rnd: Round | None,
    *,
    fresh_from: int | None = None,
    can_war: bool = False,
    surrender_back: int = 0,
    now: dt.datetime | None = None,
) -> dict[str, Any] | None:
    """What the round region shows. Cards from index ``fresh_from`` on are
    dealt with the animation (those already on the table stay still).
    ``can_war`` and ``surrender_back`` come from the service for a round
    waiting for its decision."""
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
        "player": card_view(cards[0], delay=delay(0)),
        "dealer": card_view(cards[1], delay=delay(1)),
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
    if len(cards) >= WAR_CARD_COUNT:
        view["burns"] = [
            card_view(code, delay=delay(2 + i), face_down=True) for i, code in enumerate(cards[2:5])
        ]
        view["war_player"] = card_view(cards[5], delay=delay(5))
        view["war_dealer"] = card_view(cards[6], delay=delay(6))
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
        now = now or timezone.now()
        deadline = rnd.decision_deadline or now
        view["seconds_left"] = max(0, int((deadline - now).total_seconds() + 0.5))
        view["surrender_back"] = surrender_back
        view["tie_returned"] = int(rnd.returns.get("tie_bet", 0))
        view["can_war"] = can_war
    return view


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
    return {
        "table": table,
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
