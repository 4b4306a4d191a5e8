from __future__ import annotations

from django.http import HttpRequest

from games.models import Wallet


def casino(request: HttpRequest) -> dict:
    """The header's balance; one indexed lookup, only for logged-in users."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    balance = Wallet.objects.filter(user=user).values_list("balance", flat=True).first()
    return {"header_balance": balance}
