from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest

from games.middleware import DEMO_SESSION_KEY
from games.selectors.players import wallet_for


def casino(request: HttpRequest) -> dict[str, Any]:
    """The header's balance for a signed-in player, read only when a page
    shows it and its view did not give it (the table views do); and
    ``demo_mode`` for a demo account (the DEMO marker, the disabled
    controls), from its session: no query."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def balance() -> int:
        return wallet_for(user).balance

    header: Callable[[], int] = balance
    session = getattr(request, "session", None) or {}
    return {"header_balance": header, "demo_mode": bool(session.get(DEMO_SESSION_KEY))}
