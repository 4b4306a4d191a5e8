"""The "Game history" panel of both tables (Baccarat's settings menu, War's
menu): the player's latest rounds at one table, newest first.

One query on the ``(player, table, -seq)`` index, reading only the columns
the panel shows; the round's own page (``round_report``) reads the rest.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from games.models import Round, Table

HISTORY_SHOWN = 20  # why twenty: games/presenters/table_history.py

_COLUMNS = (
    "id",
    "game",
    "status",
    "seq",
    "winner",
    "detail",
    "outcome",
    "total_bet",
    "total_return",
    "player_pair",
    "banker_pair",
    "created_at",
)


def recent_rounds(*, user: User, table: Table, limit: int = HISTORY_SHOWN) -> list[Round]:
    """The player's last ``limit`` rounds at ``table``, newest first."""
    return list(
        Round.objects.filter(player=user, table=table).only(*_COLUMNS).order_by("-seq")[:limit]
    )
