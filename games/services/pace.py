"""How fast a player may act at a table: BET, DEAL, a War decision.

A hand at the table sends a few actions a round; a script sends hundreds a
second (150 HTTP BETs in 2.2 s from one player, each a round and a leaf of
the public log). Both ways an action comes share one rate,
``CASINO_TABLE_ACTIONS_PER_SECOND`` on average in bursts of
``CASINO_TABLE_ACTION_BURST`` (``table_actions``), in the front door's
words (casino/frontdoor/limits.py): a table's socket counts every message
in a ``TokenBucket`` of its own (games/consumers/limits.py); over HTTP
``check_pace`` counts the player's actions in the cache's fixed window,
shared by every process. An action over the rate is refused with
``TooFast`` before anything is read or written. docs/front-door.md.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext_lazy

from casino.frontdoor.limits import Rate, over_rate
from games.errors import GameError

TOO_FAST = gettext_lazy("Too many actions at once. Wait a moment, then try again.")


class TooFast(GameError):
    """An action over the rate; ``wait``: the seconds until the next is let in."""

    code = "too_fast"

    def __init__(self, *, wait: int = 1) -> None:
        super().__init__(str(TOO_FAST))
        self.wait = wait


def table_actions() -> Rate:
    """A player's actions at a table: per socket, or over HTTP per player."""
    return Rate.per_second(
        settings.CASINO_TABLE_ACTIONS_PER_SECOND, burst=settings.CASINO_TABLE_ACTION_BURST
    )


def check_pace(*, user: AbstractBaseUser) -> None:
    """Count one action of ``user`` over HTTP; ``TooFast`` past the rate."""
    wait = over_rate("table-actions", str(user.pk), table_actions())
    if wait:
        raise TooFast(wait=wait)
