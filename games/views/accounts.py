"""Sign-up, the lobby and the daily top-up."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.errors import GameError
from games.models import UNITS_PER_CHIP, Profile, Table
from games.selectors.demo import is_demo
from games.selectors.lobby import lobby_roads
from games.services import account as account_service
from games.services import play_safe
from games.services import wallet as wallet_service
from games.views import demo
from games.views.amounts import WholeChipsField
from games.views.requests import PlayerRequest


class SignUpForm(UserCreationForm):
    # Every new player is offered a loss limit on the way in (play safe).
    loss_limit = WholeChipsField(
        label=gettext_lazy("Daily loss limit (chips, optional)"),
        required=False,
        min_units=0,
        widget=forms.NumberInput(attrs={"min": "0", "step": "1"}),
        help_text=gettext_lazy(
            "The most you may lose in a day, across all games. You can change it later "
            "on the Play safe page."
        ),
    )
    # The browser's zone (static/js/zone.js); days and months start there.
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # the stubs declare no Meta
        fields = ("username",)
        widgets = {
            "username": forms.TextInput(attrs={"autocomplete": "username", "autofocus": True})
        }

    def clean_time_zone(self) -> str:
        name = (self.cleaned_data.get("time_zone") or "").strip()
        return name if play_safe.valid_zone(name) else "UTC"


def signup(request: HttpRequest) -> HttpResponse:
    # A demo may sign up: its demo is logged out first, and its chips stay behind.
    from_demo = is_demo(request.user)
    if request.user.is_authenticated and not from_demo:
        return redirect("lobby")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        # The password is hashed in save(), and a hash may be refused
        # (casino/frontdoor/hash_pool.py: a 429, casino/frontdoor/throttle.py): nothing has
        # changed by then, the demo still signed in.
        user = form.save()
        if from_demo:
            logout(request)
        Profile.objects.filter(user=user).update(time_zone=form.cleaned_data["time_zone"])
        if form.cleaned_data["loss_limit"] is not None:
            play_safe.set_loss_limit(
                user=user, period="day", amount=form.cleaned_data["loss_limit"] * UNITS_PER_CHIP
            )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Your starting chips are in your wallet."))
        return redirect("lobby")
    return render(request, "registration/signup.html", {"form": form})


def lobby(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return demo.welcome(request)  # the visitor's front page: Play demo
    # The wallet; and the account of a user made before accounts were opened
    # at creation (wallet.open_new_users_account), opened at its first lobby.
    wallet = wallet_service.open_account(user=request.user)
    # Closed tables stay listed, marked closed, so a player knows why.
    tables = list(Table.objects.order_by("position", "id"))
    roads = lobby_roads(user=request.user, tables=tables)
    entries = [{"table": t, "road": roads.get(t.pk)} for t in tables]
    # Today's top-up taken (its day as services.wallet counts it): the lobby
    # says so instead of offering a claim that would be refused.
    claimed = wallet.last_topup_on == timezone.localdate()
    context = {"tables": tables, "entries": entries, "wallet": wallet, "topup_claimed": claimed}
    return render(request, "games/lobby.html", context)


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
