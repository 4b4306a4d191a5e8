"""The table screen's contexts: the whole screen, BET's answer, the rules,
the fairness panel and each step of the reveal."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from django.utils.safestring import SafeString

from games.baccarat.rules import AREAS
from games.cards import server_seed_hash
from games.labels import AREA_LABELS
from games.models import Profile, Round, Table, TableVersion
from games.presenters.baccarat.board import (
    TEMPLATE,
    BoardView,
    Rebet,
    area_views,
    board_view,
    cards_html,
    result_view,
    side_score,
    slip_limits_json,
)
from games.presenters.baccarat.roads import RoadsView
from games.presenters.baccarat.squeeze import PeelView, SqueezeToggle
from games.presenters.common import (
    CardFace,
    card_face,
    chip_views,
    fragment_memo,
    partial_memo,
    pay_label,
    settled_kind,
)
from games.selectors.roads import RoadWindow
from games.services.bets import BetLimits, loss_closed

# ------------------------------------------------------------ contexts


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


def rules_context(
    *,
    table: Table,
    version: TableVersion,
    limits: BetLimits,
    returns: Mapping[str, Fraction],
    generated_at: dt.datetime,
) -> dict[str, Any]:
    """The rules page: this table's paytable, limits and each bet's exact RTP,
    stamped with the paytable version (number, id, when it was made) and the
    time the page was generated, so a saved or printed copy says what it shows."""
    rows = [
        {
            "area": area,
            "label": AREA_LABELS[area],
            "pay": pay_label(version.pays[area]),
            "min": limits.area_min(area),
            "max": limits.area_max(area),
            "rtp": percent(returns[area]),
        }
        for area in AREAS
        if area in limits.areas
    ]
    return {
        "table": table,
        "version": version,
        "rows": rows,
        "limits": limits,
        "generated_at": generated_at,
    }


def fairness_context(
    table: Table, profile: Profile, *, error: str = "", saved: bool = False
) -> dict[str, Any]:
    return {
        "table": table,
        "seed_hash": server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        "client_seed": profile.client_seed,
        "seed_error": error,
        "seed_saved": saved,
    }


def terms_context(version: TableVersion, limits: BetLimits, balance: int) -> dict[str, Any]:
    """The table's terms as the screen shows them: each area's payout, MIN
    and MAX, the paytable, the MAX BET, the slip's limits and the number of
    the version they come from (which BET sends back)."""
    return {
        "table_version": version.number,
        "limits": limits,
        "loss_closed": loss_closed(limits),
        "limits_json": slip_limits_json(limits, balance),
        "areas": area_views(limits, version.pays),
        "pays": [(str(AREA_LABELS[a]), pay_label(version.pays[a])) for a in limits.areas],
    }


def table_context(
    *,
    table: Table,
    version: TableVersion,
    limits: BetLimits,
    balance: int,
    profile: Profile,
    last: Round | None,
    roads: RoadWindow,
    rebet: Rebet,
    squeeze: SqueezeToggle,
) -> dict[str, Any]:
    """The whole table screen."""
    return {
        "table": table,
        "version_decks": version.decks,
        **terms_context(version, limits, balance),
        "chips": chip_views(table.chips),
        "rebet": rebet,
        "squeeze": squeeze,
        **fairness_context(table, profile),
        "profile": profile,
        "fast": profile.fast_play,
        "balance": balance,
        "header_balance": balance,
        "payout": last.total_return if last else 0,
        "board": board_view(last),
        "phase": "done",
        "round_id": last.pk if last else "",
        "roads": RoadsView(roads),
        "ws_url": f"/ws/baccarat/{table.slug}/",
    }


def placed_context(
    *,
    table: Table,
    limits: BetLimits,
    balance: int,
    profile: Profile,
    rebet: Rebet,
    squeeze: SqueezeToggle,
    round_id: int,
) -> dict[str, Any]:
    """BET's answer: the slip is spent (the browser clears it), the rebet for
    the next round, the next seed's hash, the squeeze toggle."""
    return {
        **fairness_context(table, profile),
        "limits": limits,
        "limits_json": slip_limits_json(limits, balance),
        "rebet": rebet,
        "squeeze": squeeze,
        "squeeze_toggle_html": squeeze_toggle_html(
            squeeze=squeeze, table={"slug": table.slug}, oob=True
        ),
        "placed_round": round_id,
        "oob": True,
    }


# The toggle BET's answer sends back is one of a few per visit: drawn once.
squeeze_toggle_html = partial_memo(TEMPLATE, "squeeze_toggle", maxsize=4096)


@dataclass(frozen=True)
class AreaOutcome:
    """What one staked area did this round: won (paid back ``returned``, stake
    included), push (the stake back) or lost."""

    area: str
    kind: str  # "won" | "push" | "lost"
    staked: int
    returned: int


def area_outcomes(rnd: Round) -> list[AreaOutcome]:
    out = []
    for area in AREAS:
        staked = int(rnd.bets.get(area) or 0)
        if not staked:
            continue
        returned = int(rnd.returns.get(area) or 0)
        out.append(AreaOutcome(area, settled_kind(staked, returned), staked, returned))
    return out


class DealTable(NamedTuple):
    """The felt as every reveal starts: each bet area's result taken off, the
    first four cards face down, no third card, no score (table.html#deal_table)."""

    area_names: tuple[str, ...]
    board: BoardView


def deal_table(area_names: tuple[str, ...]) -> DealTable:
    # board_view(rnd, shown=0), which is the same for every round.
    return DealTable(area_names, board_view(None, shown=0))


# The same for every round at a table but for the language: rendered once.
deal_table_html = fragment_memo(TEMPLATE, "deal_table", "deal", maxsize=64, view=deal_table)


def balance_after_stakes(rnd: Round) -> int:
    """The balance as a round's reveal starts: its stakes taken, nothing paid."""
    return rnd.balance_before - rnd.total_bet


def deal_context(rnd: Round) -> dict[str, Any]:
    """The reveal's first step: cards face down, stakes taken, nothing paid yet
    (and last round's results taken off the bet areas)."""
    after_stakes = balance_after_stakes(rnd)
    area_names = tuple(area for area in AREAS if area in rnd.version.pays)
    return {
        "deal_table": deal_table_html([area_names]),
        "balance": after_stakes,
        "payout": 0,
        "phase": "revealing",
        "round_id": rnd.pk,
    }


# In a page's context: the net of a round whose result the page has not
# shown yet, which the header's session net leaves out
# (games/templatetags/play_safe.py).
UNSEEN_NET = "play_safe_unseen_net"


def revealing_context(rnd: Round) -> dict[str, Any]:
    """The table screen while ``rnd``'s reveal is still to be shown (the
    page was reloaded mid reveal): the felt and the balance as the reveal
    starts, so the socket's steps can show the rest. The header's session
    net leaves the round out until then (``UNSEEN_NET``)."""
    after_stakes = balance_after_stakes(rnd)
    return {
        "board": board_view(rnd, shown=0),
        "balance": after_stakes,
        "header_balance": after_stakes,
        "payout": 0,
        "phase": "revealing",
        "round_id": rnd.pk,
        UNSEEN_NET: rnd.total_return - rnd.total_bet,
    }


class Score(NamedTuple):
    side: str
    score: int | None


class CardsStep(NamedTuple):
    """A reveal step that opens cards: their faces and the new score of each
    side that got one (``cards_step_html``)."""

    cards: tuple[CardFace, ...]
    scores: tuple[Score, ...]


def cards_step(rnd: Round, cards: Sequence[tuple[str, str]], *, shown: int) -> CardsStep:
    """Open ``cards`` (slot, code); ``shown`` counts the cards open after this
    step, in deal order."""
    sides = [side for side in ("player", "banker") if any(slot[0] == side[0] for slot, _ in cards)]
    return CardsStep(
        cards=tuple(card_face(slot, code, fresh=True) for slot, code in cards),
        scores=tuple(Score(side, side_score(rnd, shown, side)) for side in sides),
    )


# A side's score (table.html#score): 2 sides x 10 scores, and blank.
score_html = partial_memo(TEMPLATE, "score", maxsize=64)


def cards_step_html(steps: Sequence[CardsStep]) -> SafeString:
    """Card steps as the socket sends them: each card in its slot
    (table.html#card), then each new score (table.html#score), from their
    own fragments, each rendered once (a few hundred in all): a whole step
    was one of a few thousand (slot, card, score) combinations, and a new
    worker rendered most of them before its memo held them."""
    html = []
    for step in steps:
        html.append(cards_html(step.cards))
        html += [score_html(side=s.side, score=s.score) for s in step.scores]
    # Each part is a template's output, so the whole is too.
    return SafeString("".join(html))


def peel_context(peel: PeelView) -> dict[str, Any]:
    """A squeeze step: the card lies face down in its slot and on the squeeze
    stage beside the navigator, waiting for the player to start peeling."""
    return {
        "cards_html": cards_html([CardFace(peel.slot, "back", peeling=True)]),
        "scores": [],
        "peel": peel,
    }


def peel_face_context(slot: str, code: str) -> dict[str, Any]:
    return {"face": card_face(slot, code)}


def result_context(rnd: Round, *, table: Table, roads: RoadWindow) -> dict[str, Any]:
    """The reveal's last step: banner, PAYOUT, balance, roads and score history."""
    return {
        "result": result_view(rnd),
        "outcomes": area_outcomes(rnd),
        "balance": rnd.balance_after,
        "header_balance": rnd.balance_after,
        "payout": rnd.total_return,
        "table": table,
        "roads": RoadsView(roads),
        "phase": "done",
        "round_id": rnd.pk,
    }
