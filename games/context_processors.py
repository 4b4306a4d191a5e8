from __future__ import annotations

from django.http import HttpRequest

from games.models import Wallet


def casino(request: HttpRequest) -> dict:
    """The header's balance, for logged-in users, when a page shows it without
    the view having given it: the wallet read with the user (casino.auth)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def balance() -> int | None:
        try:
            return user.wallet.balance
        except Wallet.DoesNotExist:  # an account made outside sign-up, before its first table
            return None

    return {"header_balance": balance}
