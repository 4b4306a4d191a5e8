"""Sign-up, the lobby and the daily top-up."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.errors import GameError
from games.models import Table
from games.selectors.demo import is_demo
from games.selectors.lobby import lobby_roads
from games.services import account as account_service
from games.services import wallet as wallet_service
from games.views import demo
from games.views.requests import PlayerRequest


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # the stubs declare no Meta
        fields = ("username",)
        widgets = {
            "username": forms.TextInput(attrs={"autocomplete": "username", "autofocus": True})
        }


def signup(request: HttpRequest) -> HttpResponse:
    # A demo may sign up: its demo is logged out first, and its chips stay behind.
    from_demo = is_demo(request.user)
    if request.user.is_authenticated and not from_demo:
        return redirect("lobby")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        # The password is hashed in save(), and a hash may be refused
        # (casino/hashing.py: a 429, casino/throttle.py): nothing has
        # changed by then, the demo still signed in.
        user = form.save()
        if from_demo:
            logout(request)
        wallet_service.open_account(user=user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Your starting chips are in your wallet."))
        return redirect("lobby")
    return render(request, "registration/signup.html", {"form": form})


def lobby(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return demo.welcome(request)  # the visitor's front page: Play demo
    wallet = wallet_service.open_account(user=request.user)
    # Closed tables stay listed, marked closed, so a player knows why.
    tables = list(Table.objects.order_by("position", "id"))
    roads = lobby_roads(user=request.user, tables=tables)
    entries = [{"table": t, "road": roads.get(t.pk)} for t in tables]
    return render(
        request, "games/lobby.html", {"tables": tables, "entries": entries, "wallet": wallet}
    )


@login_required
@require_POST
@demo.not_in_demo("topup", back="lobby")
def topup(request: PlayerRequest) -> HttpResponse:
    try:
        account_service.claim_daily_topup(user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your daily top-up has been added."))
    return redirect("lobby")
