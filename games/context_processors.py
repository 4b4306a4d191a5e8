from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest

from games.selectors.players import wallet_for


def casino(request: HttpRequest) -> dict[str, Any]:
    """The header's balance for a signed-in player, read only when a page
    shows it and its view did not give it (the table views do)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def balance() -> int:
        return wallet_for(user).balance

    header: Callable[[], int] = balance
    return {"header_balance": header}
