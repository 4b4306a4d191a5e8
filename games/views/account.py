"""The account page: the PIN and the personal max bet (seed 004's bet options)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games.errors import GameError
from games.models import UNITS_PER_CHIP, Profile
from games.services import account as account_service
from games.views.amounts import WholeChipsField
from games.views.demo import not_in_demo
from games.views.requests import PlayerRequest


class PinForm(forms.Form):
    password = forms.CharField(
        label=gettext_lazy("Account password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    current_pin = forms.CharField(
        label=gettext_lazy("Current PIN"),
        required=False,
        widget=forms.PasswordInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    new_pin = forms.RegexField(
        label=gettext_lazy("New PIN (4-6 digits)"),
        regex=account_service.PIN_PATTERN,
        error_messages={"invalid": gettext_lazy("A PIN is 4 to 6 digits.")},
        widget=forms.PasswordInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    confirm_pin = forms.CharField(
        label=gettext_lazy("New PIN again"),
        widget=forms.PasswordInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("new_pin") and data.get("new_pin") != data.get("confirm_pin"):
            self.add_error("confirm_pin", _("The two PINs do not match."))
        return data


class MaxBetForm(forms.Form):
    # ASCII digits only: IntegerField would take "１０" or "1e3" (games.views.amounts).
    max_bet = WholeChipsField(
        label=gettext_lazy("Personal max bet per round (chips)"),
        required=False,
        min_units=UNITS_PER_CHIP,
        widget=forms.NumberInput(attrs={"min": "1", "step": "1"}),
        help_text=gettext_lazy("Leave empty to remove your personal limit."),
    )
    pin = forms.CharField(
        label=gettext_lazy("PIN"),
        widget=forms.PasswordInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


def context(request: PlayerRequest, **forms_: forms.Form) -> dict:
    profile = Profile.objects.get(user=request.user)
    now = timezone.now()
    next_change = account_service.next_change_allowed(profile.max_bet_changed_at)
    return {
        "profile": profile,
        "has_pin": bool(profile.pin_hash),
        "pin_locked": account_service.pin_locked(profile, now),
        "next_change": next_change,
        "can_change": next_change is None or now >= next_change,
        "week_start": account_service.week_start(now),
        "tables_max_bet": account_service.tables_max_bet(),
        "pin_form": forms_.get("pin_form") or PinForm(),
        "max_bet_form": forms_.get("max_bet_form")
        or MaxBetForm(
            initial={
                "max_bet": profile.personal_max_bet // UNITS_PER_CHIP
                if profile.personal_max_bet
                else None
            }
        ),
    }


def _back(request: PlayerRequest) -> str:
    """Where a saved form returns: the play-safe page shows these forms too."""
    return "play_safe" if request.POST.get("back") == "play_safe" else "account"


@login_required
@require_GET
def account(request: PlayerRequest) -> HttpResponse:
    return render(request, "account/account.html", context(request))


@login_required
@require_POST
@not_in_demo("pin", back="account")
def pin(request: PlayerRequest) -> HttpResponse:
    form = PinForm(request.POST)
    if form.is_valid():
        try:
            account_service.set_pin(
                user=request.user,
                password=form.cleaned_data["password"],
                current_pin=form.cleaned_data["current_pin"],
                new_pin=form.cleaned_data["new_pin"],
            )
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Your PIN is set."))
            return redirect(_back(request))
    return render(request, "account/account.html", context(request, pin_form=form), status=400)


@login_required
@require_POST
@not_in_demo("max_bet", back="account")
def max_bet(request: PlayerRequest) -> HttpResponse:
    form = MaxBetForm(request.POST)
    if form.is_valid():
        chips = form.cleaned_data["max_bet"]
        try:
            account_service.set_personal_max_bet(
                user=request.user,
                max_bet=None if chips is None else chips * UNITS_PER_CHIP,
                pin=form.cleaned_data["pin"],
            )
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            if chips is None:
                messages.success(request, _("Your personal max bet is removed."))
            else:
                messages.success(
                    request,
                    _("Your personal max bet is now %(max)s chips per round, in every game.")
                    % {"max": f"{chips:,}"},
                )
            return redirect(_back(request))
    return render(request, "account/account.html", context(request, max_bet_form=form), status=400)
