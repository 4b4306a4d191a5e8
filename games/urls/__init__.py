"""The casino's pages. Each game and screen owns its own URL module."""

from __future__ import annotations

from django.urls import include, path

from games.views import accounts

urlpatterns = [
    path("", accounts.lobby, name="lobby"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/topup/", accounts.topup, name="topup"),
    path("baccarat/", include("games.urls.baccarat")),
    path("war/", include("games.urls.war")),
    path("history/", include("games.urls.history")),
    path("account/", include("games.urls.account")),
    path("play-safe/", include("games.urls.play_safe")),
    path("", include("games.urls.demo")),
]
