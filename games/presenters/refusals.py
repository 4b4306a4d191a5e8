"""What a refused round says beside the table's own message, for either
game and either transport (an HTTP answer or a socket frame)."""

from __future__ import annotations

from django.template.loader import render_to_string

from games.errors import GameError
from games.services import bets


def play_safe_refusal(exc: GameError) -> str:
    """A refusal by the player's own controls, for the table's play-safe
    region (templates/play_safe/table.html), swapped in beside the table's
    own message; empty for any other refusal."""
    if exc.code not in bets.COUNTED:
        return ""
    return render_to_string("play_safe/refusal.html", {"message": exc.message, "code": exc.code})
