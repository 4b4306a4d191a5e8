"""How far the player has seen a settled Baccarat round's reveal.

A round is decided and paid at BET; its reveal is shown card by card over
the player's socket (games/consumers/baccarat.py), which notes in the cache
the step it sends as the reveal starts and when it closes before the
result, and at the end that the result was shown. A table page
opened (or reloaded) while a reveal is unfinished draws the felt as the
reveal starts and lets the socket show the rest, so nothing the player has
not seen is skipped. Marks live ``CASINO_REVEAL_RESUME_SECONDS``.

A round whose reveal no socket started (the socket was down at BET) is
shown settled by its page, and a socket that connects then sends only its
result.
"""

from __future__ import annotations

import datetime as dt
import logging
from functools import lru_cache
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection
from django.utils import timezone

from games.models import Game, Round, Table
from games.selectors.tables import table_version

logger = logging.getLogger(__name__)


class Progress(NamedTuple):
    """The last reveal step a socket sent of a round, and the side squeezed."""

    step: int
    squeeze: str | None


def shown_key(round_id: int) -> str:
    """The cache key that says a round's reveal reached its result on a socket."""
    return f"reveal-shown:{round_id}"


def progress_key(round_id: int) -> str:
    """The cache key of the last step of a round's reveal a socket sent."""
    return f"reveal-progress:{round_id}"


def progress_value(step: int, squeeze: str | None) -> str:
    return f"{step}:{squeeze or ''}"


def reveal_progress(round_id: int) -> Progress | None:
    """How far a socket got in this round's reveal, if one started it."""
    try:
        raw = cache.get(progress_key(round_id))
    except Exception:  # the cache is down: the reveal starts again from its deal
        logger.warning("could not read the reveal progress of round %s", round_id, exc_info=True)
        return None
    if not raw:
        return None
    if isinstance(raw, bytes):
        raw = raw.decode()
    step, _, squeeze = str(raw).partition(":")
    try:
        return Progress(int(step), squeeze or None)
    except ValueError:
        return None


def _unshown(rnd: Round | None) -> bool:
    """Whether ``rnd`` is a settled round of the last
    ``CASINO_REVEAL_RESUME_SECONDS`` whose result no socket has shown."""
    since = timezone.now() - dt.timedelta(seconds=settings.CASINO_REVEAL_RESUME_SECONDS)
    if rnd is None or rnd.status != Round.Status.SETTLED or not rnd.settled_at:
        return False
    if rnd.settled_at < since:
        return False
    try:
        return not cache.get(shown_key(rnd.pk))
    except Exception:  # the cache is down: showing a result twice beats not at all
        logger.warning("could not read whether round %s was shown", rnd.pk, exc_info=True)
        return True


def unfinished_reveal(rnd: Round | None) -> Progress | None:
    """How far a socket got in ``rnd``'s reveal, if it started it and none
    reached the result (a page reloaded mid deal or mid squeeze). A round
    whose reveal never started (the socket was down at BET) is not one: its
    page shows it settled, as a page without a socket must."""
    if rnd is None or rnd.game != Game.BACCARAT or not _unshown(rnd):
        return None
    return reveal_progress(rnd.pk)


def unshown_round(user: User, slug: str) -> Round | None:
    """The player's latest Baccarat round at this table, settled within
    ``CASINO_REVEAL_RESUME_SECONDS``, whose reveal no socket finished."""
    rnd = (
        Round.objects.select_related("player", "table", "version")
        .filter(player=user, game=Game.BACCARAT, table__slug=slug)
        .order_by("-id")
        .first()
    )
    return rnd if _unshown(rnd) else None


# What a reveal reads of its round (with its table's slug; the paytable
# version comes from the process's memo of versions): building and reading a
# round's other columns (seeds, times, the player's row) cost a good part of
# the reveal's CPU for nothing. A field left out here is read by a query of
# its own when used (tests/games/test_reveal_cost.py counts them).
REVEAL_FIELDS = (
    "player_id",
    "table_id",
    "version_id",
    "bets",
    "returns",
    "total_bet",
    "total_return",
    "balance_before",
    "balance_after",
    "outcome",
    "cards",
    "detail",
    "winner",
    "seq",  # the roads through it (selectors.roads.rounds_through)
    "player_pair",
    "banker_pair",
)


@lru_cache(maxsize=1)
def _reveal_select() -> str:
    quote = connection.ops.quote_name
    column = {f.attname: f.column for f in Round._meta.concrete_fields}
    columns = ", ".join(f"r.{quote(column[name])}" for name in REVEAL_FIELDS)
    rounds, tables = quote(Round._meta.db_table), quote(Table._meta.db_table)
    return (
        f"SELECT r.id, {columns}, t.slug AS table_slug "  # noqa: S608 - names are ours
        f"FROM {rounds} r JOIN {tables} t ON t.id = r.table_id "
        "WHERE r.id = %s AND r.player_id = %s AND r.game = %s"
    )


def revealed_round(user: User, round_id: int) -> Round | None:
    """The player's Baccarat round ``round_id`` with what its reveal shows
    (``REVEAL_FIELDS``), or None if it is not theirs: for a reveal resumed
    on a socket that did not place the round (one that placed it reveals
    the round it holds).

    One plain SELECT (a raw queryset): the ORM's joined query cost about
    three times its statement in CPU."""
    raw = Round.objects.raw(_reveal_select(), [round_id, user.pk, Game.BACCARAT])
    rnd = next(iter(raw), None)
    if rnd is None:
        return None
    rnd.player = user  # the filter's player: no second read of the user
    slug = vars(rnd)["table_slug"]  # the query's extra column
    rnd.table = Table.from_db(DEFAULT_DB_ALIAS, ["id", "slug"], [rnd.table_id, slug])
    rnd.version = table_version(rnd.version_id)
    return rnd
