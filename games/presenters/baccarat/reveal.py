"""The Baccarat reveal's script: a settled round as the steps the table's
socket sends, card by card (docs/reveal.md).

deal (cards face down, balance after the stakes) -> one step per card in
deal order (P1, B1, P2, B2, then third cards), each with its side's new
score -> result (banner, PAYOUT, balance, roads, history). Each step is
fragments with ids that the page's ws extension swaps by id, and the pause
that follows it (a card's delay, or the player's peel in a squeeze). The
socket (games/consumers/baccarat.py) only sends them and keeps the pauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from games.models import Round, Table
from games.presenters.baccarat.answers import after_round
from games.presenters.baccarat.board import deal_order, fragment
from games.presenters.baccarat.contexts import (
    cards_step,
    cards_step_html,
    deal_context,
    peel_context,
    peel_face_context,
    result_context,
)
from games.presenters.baccarat.squeeze import PeelView, squeeze_peels
from games.selectors import roads as road_selectors
from games.services.bets import BetLimits

__all__ = [
    "CLIENT_ACTIONS",
    "Pause",
    "RevealStep",
    "resume_point",
    "result_step",
    "reveal_steps",
]

PAIR_AREAS = frozenset({"player_pair", "banker_pair"})


class Pause(Enum):
    NONE = "none"
    CARD = "card"
    PEEL = "peel"
    CLIENT = "client"


# What the browser sends to end a pause that waits for the player.
CLIENT_ACTIONS = {Pause.PEEL: "peel_start", Pause.CLIENT: "continue"}


@dataclass(frozen=True)
class RevealStep:
    name: str  # "deal" | "card" | "skip" | "peel" | "peel_face" | "result"
    html: str  # fragments with ids; the ws extension swaps each by id
    pause: Pause = Pause.CARD
    slot: str = ""  # the peeled card's slot, for the steps that wait for the player


def reveal_steps(
    rnd: Round,
    *,
    table: Table,
    squeeze: str | None = None,
    limits: BetLimits | None = None,
) -> list[RevealStep]:
    """The reveal of a settled round, in order.

    With only PAIR bets the cards after the first four are shown at once
    (seed 000). With ``squeeze`` ("player" / "banker") that side's 2nd and
    3rd cards are peeled by the player: face down with the navigator, then
    (after ``peel_start``) its face, then (after ``continue``) open in its
    slot as usual.
    """
    order = deal_order(rnd)
    steps = [RevealStep("deal", fragment("step_deal", deal_context(rnd)))]
    pair_only = bool(rnd.bets) and set(rnd.bets) <= PAIR_AREAS
    peels = {} if pair_only else squeeze_peels(rnd, squeeze)
    for i, (slot, code) in enumerate(order):
        if pair_only and i == 4:
            # Only PAIRs were bet: they are settled on the first four cards, so
            # the third cards open at once and the result follows with no pause.
            skip = _open_cards(rnd, order[4:], shown=len(order), name="skip")
            steps.append(RevealStep(skip.name, skip.html, Pause.NONE))
            break
        peel = peels.get(slot)
        if peel is not None:
            steps += _peel_steps(rnd, peel, code, shown=i + 1)
        else:
            steps.append(_open_cards(rnd, [(slot, code)], shown=i + 1, name="card"))
    steps.append(result_step(rnd, table=table, limits=limits))
    return steps


def result_step(rnd: Round, *, table: Table, limits: BetLimits | None = None) -> RevealStep:
    """The reveal's last step: banner, PAYOUT, balance, roads and history;
    with the table's ``limits``, the slip's limits and REBET at the balance
    after the round too (BET's answer gave them at the balance after the
    stakes, before any card was seen)."""
    roads = road_selectors.table_roads(user=rnd.player, table=table, through=rnd)
    context = result_context(rnd, table=table, roads=roads)
    if limits is not None:
        context.update(after_round(limits, rnd))
    return RevealStep("result", fragment("step_result", context), Pause.NONE)


def resume_point(steps: list[RevealStep], progress: int) -> int:
    """Where a reveal cut off after step ``progress`` goes on: the step after
    it, or, inside a peel the player had not finished, that peel again (the
    squeeze is offered again rather than skipped)."""
    if progress >= len(steps) - 1:
        return len(steps) - 1
    at = progress
    if steps[at].name in ("peel", "peel_face"):
        while at > 0 and steps[at].name != "peel":
            at -= 1
        return at
    return at + 1


def _peel_steps(rnd: Round, peel: PeelView, code: str, *, shown: int) -> list[RevealStep]:
    stage = fragment("step_peel", peel_context(peel))
    face = fragment("peel_face", peel_face_context(peel.slot, code))
    opened = _open_cards(rnd, [(peel.slot, code)], shown=shown, name="card")
    closed = fragment("squeeze_stage", {"peel": None})
    return [
        RevealStep("peel", stage, Pause.PEEL, peel.slot),
        RevealStep("peel_face", face, Pause.CLIENT, peel.slot),
        RevealStep("card", opened.html + closed, Pause.CARD),
    ]


def _open_cards(rnd: Round, cards: list[tuple[str, str]], *, shown: int, name: str) -> RevealStep:
    """Open ``cards`` and update the score of each side that got one."""
    step = cards_step(rnd, cards, shown=shown)
    return RevealStep(name, cards_step_html([step]), Pause.CARD)
