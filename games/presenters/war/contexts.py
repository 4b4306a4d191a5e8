"""The table screen's contexts: the whole table, the limits the chip rack
checks, the menu's personal max bet and the rules page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from games.cards import server_seed_hash
from games.display import UNITS_PER_CHIP
from games.labels import AREA_LABELS
from games.models import Profile, Round, Table, TableVersion
from games.presenters.common import chip_views
from games.presenters.war.board import stakes_html, to_one
from games.services import account as account_service


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
        "ante_to_one": to_one(ante),
        "raise_to_one": to_one(raise_pays),
        "tie_to_one": to_one(tie_pays),
        "bonus": f"{bonus.normalize():f}",
        "has_bonus": bonus > 0,
        "war_tie_to_one": to_one(raise_pays),
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
