"""Refusals a player or operator sees. Raised by services before anything is
written (or inside the transaction, which then rolls back)."""

from __future__ import annotations


class GameError(Exception):
    """A refusal with a message meant for the player (already translated or lazy)."""

    code = "refused"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(str(message))
        self.message = message
        if code is not None:
            self.code = code


class InsufficientChips(GameError):
    code = "balance"


class BetRefused(GameError):
    code = "bet"


class TableClosed(GameError):
    code = "closed"
