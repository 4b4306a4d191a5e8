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


class BadAmount(GameError):
    """A sent amount that is not one (``parse_chips`` refused its form): the
    table's own pages never send it, so the views answer it as a client
    error (422), not as a refusal by the rules."""

    code = "amount"
