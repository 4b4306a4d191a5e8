"""The felt: the cards dealt from the shoe (their timing), the three spots
(TIE BONUS, ANTE, RAISE) with the stakes the server stored and what each
returned, and the round region with the tie decision and its countdown.

Cards use the shared card view of templates/games/card.html; the stakes on
the felt are drawn from the round as the server stored it, so a reload or a
socket push shows the same chips the player put down."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.display import UNITS_PER_CHIP
from games.labels import AREA_LABELS, WAR_RESULT_LABELS
from games.models import Round, TableVersion
from games.money import decimal_pays
from games.presenters.common import (
    STACK_SHOWN,
    chip_colour,
    chip_label,
    fragment_memo,
    settled_kind,
)
from games.presenters.common import (
    card_view as common_card_view,
)
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
    return common_card_view(code, deal_delay=delay)


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


def to_one(multiplier: Decimal) -> str:
    """A total-return multiplier as the N of "N to 1" odds (x2 pays 1 to 1)."""
    return f"{(multiplier - 1).normalize():f}"


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
        "pays": _("%(n)s to 1") % {"n": to_one(key.paid)},
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
