"""What a stored round tells a viewer, the same on every history screen (the
list, the round's page, its check and the CSV): whether it is still open, its
result, and which of its cards may be seen.
"""

from __future__ import annotations

from games.labels import WAR_RESULT_LABELS, WINNER_LABELS
from games.models import Game, Round


def is_open(rnd: Round) -> bool:
    """An open round (a war waiting for the tie decision) keeps its seed and
    its undealt cards secret: revealing them would tell the player what war
    would bring."""
    return rnd.status == Round.Status.OPEN


def result_code(rnd: Round) -> str:
    """``player``/``banker``/``tie`` for baccarat, the war result for war."""
    if rnd.game == Game.WAR:
        return str((rnd.detail or {}).get("result") or rnd.winner or "")
    return rnd.winner or str((rnd.detail or {}).get("winner") or "")


def result_label(rnd: Round) -> str:
    if rnd.status == Round.Status.VOID:
        return str(Round.Status.VOID.label)
    if is_open(rnd):
        return str(Round.Status.OPEN.label)
    code = result_code(rnd)
    labels = WAR_RESULT_LABELS if rnd.game == Game.WAR else WINNER_LABELS
    return str(labels.get(code, code))


def shown_cards(rnd: Round) -> list[str]:
    """The cards a viewer may see: an open war round shows only the two dealt."""
    cards = [str(c) for c in (rnd.cards or [])]
    return cards[:2] if is_open(rnd) else cards
