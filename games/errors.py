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


class SessionEnded(Exception):
    """The session a table socket plays under is gone or expired (a logout,
    a login that replaced it, an expiry) when its round came to be placed:
    nothing was played, and the socket closes. Not a refusal the player
    reads: the page's next load takes them to the login page."""


class SessionChanged(Exception):
    """The session a table socket plays under was stored again (the squeeze
    toggled over HTTP, a request restarting its idle clock) since the socket
    read the copy it passed to the round: nothing was played. The socket
    reads the session again and places the round with what it says now."""


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
