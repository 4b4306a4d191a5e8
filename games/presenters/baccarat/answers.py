"""BET's answer, whichever way BET came (an htmx POST or a message on the
table's socket): the same fragments, swapped by id."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from games.errors import GameError
from games.models import Round, Table
from games.presenters.baccarat.board import Rebet, fragment, slip_limits_json
from games.presenters.baccarat.contexts import balance_after_stakes, placed_context, terms_context
from games.presenters.baccarat.squeeze import squeeze_toggle
from games.presenters.refusals import play_safe_refusal
from games.services import bets
from games.services.baccarat import SqueezeWish
from games.services.rounds import Placed

__all__ = ["FAILED", "after_round", "placed_answer", "rebet_for", "refused_answer"]


# What BET says when dealing failed after the debit (everything rolled back).
FAILED = gettext_lazy(
    "Something went wrong while dealing. The round was cancelled and nothing was taken."
)


def rebet_for(limits: bets.BetLimits, balance: int, last_bets: dict[str, int] | None) -> Rebet:
    """REBET and REBET x2 from the player's last settled bets at this table."""
    last = last_bets or {}
    once, once_capped = bets.fit_bets(wanted=last, limits=limits, balance=balance)
    twice, twice_capped = bets.fit_bets(
        wanted={a: v * 2 for a, v in last.items()}, limits=limits, balance=balance
    )
    return Rebet(once, twice, once_capped, twice_capped)


def placed_answer(
    *,
    table: Table,
    placed: Placed,
    wish: SqueezeWish,
    visit: str,
    limits: bets.BetLimits | None = None,
) -> str:
    """The slip is spent: the round's id, the next seed's hash, the limits
    and REBET for the next round, the squeeze toggle.

    The balance the slip is given is the one after the stakes, as the
    reveal's deal shows it: the answer comes before any card is seen and
    must not tell the result (the reveal's result step gives the slip the
    balance after the round).
    """
    rnd = placed.round
    after_stakes = balance_after_stakes(rnd)
    if limits is None:
        limits = bets.baccarat_limits(
            user=rnd.player, version=rnd.version, profile=placed.profile, chips=table.chips
        )
    context = placed_context(
        table=table,
        limits=limits,
        balance=after_stakes,
        profile=placed.profile,
        rebet=rebet_for(limits, after_stakes, rnd.bets),
        squeeze=squeeze_toggle(
            threshold=table.squeeze_threshold, on=wish.on, by_promo=wish.promo, visit=visit
        ),
        round_id=rnd.pk,
    )
    return fragment("placed", context)


def after_round(limits: bets.BetLimits, rnd: Round) -> dict[str, Any]:
    """For the reveal's result step: the slip's limits and REBET at the
    balance after the round, now that the player sees it."""
    balance = rnd.balance_after if rnd.balance_after is not None else rnd.balance_before
    return {
        "limits_json": slip_limits_json(limits, balance),
        "rebet": rebet_for(limits, balance, rnd.bets),
    }


def refused_answer(exc: GameError | str) -> str:
    """A refused BET: the reason under the slip (which stays to be fixed),
    the play-safe region's note when the player's own limits refused it,
    and the table's new terms when the page showed older ones."""
    message = exc.message if isinstance(exc, GameError) else exc
    html = fragment("slip_msg", {"error": message, "oob": True})
    if isinstance(exc, GameError):
        html += play_safe_refusal(exc)
    if isinstance(exc, bets.TableChanged):
        context = {**terms_context(exc.version, exc.limits, exc.balance), "oob": True}
        html += "".join(fragment(name, context) for name in ("areas", "slip_limits", "max_bet"))
    return html
