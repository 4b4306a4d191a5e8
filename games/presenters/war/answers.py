"""DEAL's and the decision's answers, whichever way they came (an htmx POST
or a message on the table's socket): the same fragments, swapped by id."""

from __future__ import annotations

import uuid
from typing import Any

from django.template.loader import render_to_string

from games.models import Profile, Round, Table
from games.presenters.war.board import TEMPLATE, round_view
from games.presenters.war.contexts import limits_view, table_context
from games.selectors import war as war_selectors
from games.services import bets, rounds
from games.services import war as war_service


def table_limits(*, user: Any, table: Table, profile: Profile) -> dict[str, Any]:
    """The limits the chip rack checks, with the largest ante that can still
    go to war under the MAX BET (what the table says at the ante)."""
    current = rounds.current_version(table)
    limits = bets.war_limits(user=user, version=current, profile=profile, chips=table.chips)
    return {
        **limits_view(current, (limits.max_bet, limits.personal)),
        "war_ante_max": bets.largest_war_ante(limits),
        "step": limits.step,
        "loss_closed": bets.loss_closed(limits),
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
            can_war=waiting and bets.can_war(balance=balance, ante=rnd.bets["ante"]),
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
