"""BET's answer, whichever way BET came (an htmx POST or a message on the
table's socket): the same fragments, swapped by id."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from games.errors import GameError
from games.models import Table
from games.presenters.baccarat.board import Rebet, fragment
from games.presenters.baccarat.contexts import placed_context
from games.presenters.baccarat.squeeze import SqueezeToggle
from games.presenters.refusals import play_safe_refusal
from games.services import baccarat as service
from games.services.rounds import Placed

__all__ = ["FAILED", "placed_answer", "rebet_for", "refused_answer"]


# What BET says when dealing failed after the debit (everything rolled back).
FAILED = gettext_lazy(
    "Something went wrong while dealing. The round was cancelled and nothing was taken."
)


def rebet_for(limits: service.BetLimits, balance: int, last_bets: dict[str, int] | None) -> Rebet:
    """REBET and REBET x2 from the player's last settled bets at this table."""
    bets = last_bets or {}
    once, once_capped = service.fit_bets(wanted=bets, limits=limits, balance=balance)
    twice, twice_capped = service.fit_bets(
        wanted={a: v * 2 for a, v in bets.items()}, limits=limits, balance=balance
    )
    return Rebet(once, twice, once_capped, twice_capped)


def placed_answer(*, table: Table, placed: Placed, squeeze: SqueezeToggle) -> str:
    """The slip is spent: the round's id, the next seed's hash, the limits
    and REBET for the next round, the squeeze toggle."""
    rnd = placed.round
    limits = service.bet_limits(
        user=rnd.player, version=rnd.version, profile=placed.profile, chips=table.chips
    )
    context = placed_context(
        table=table,
        limits=limits,
        balance=placed.balance,
        profile=placed.profile,
        rebet=rebet_for(limits, placed.balance, rnd.bets),
        squeeze=squeeze,
        round_id=rnd.pk,
    )
    return fragment("placed", context)


def refused_answer(exc: GameError | str) -> str:
    """A refused BET: the reason under the slip (which stays to be fixed),
    and the play-safe region's note when the player's own limits refused it."""
    message = exc.message if isinstance(exc, GameError) else exc
    html = fragment("slip_msg", {"error": message, "oob": True})
    if isinstance(exc, GameError):
        html += play_safe_refusal(exc)
    return html
