from __future__ import annotations

from django.urls import path

from games.views import account

urlpatterns = [
    path("", account.account, name="account"),
    path("pin/", account.pin, name="account_pin"),
    path("max-bet/", account.max_bet, name="account_max_bet"),
]
