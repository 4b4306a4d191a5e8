"""The "Play safe" page and what hangs off it: loss limits, reality checks,
time-outs, self-exclusion, the player's zone, the monthly statement; the
log-in form that turns away a player on a break; the reality check's answer.

Each POST parses one form and calls one ``games.services.play_safe``
function; the rules (what may be shortened, when a raise takes effect) are
the service's.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games.display import format_chips
from games.errors import GameError
from games.models import UNITS_PER_CHIP, LossLimit, Profile, Round
from games.selectors import play_safe as reads
from games.selectors.demo import is_demo
from games.services import bets, play_safe
from games.views import account as account_views
from games.views.amounts import WholeChipsField
from games.views.requests import PlayerRequest

TEMPLATE = "play_safe/play_safe.html"


class PlaySafeLoginForm(AuthenticationForm):
    """Log-in that a player on a time-out or self-exclusion cannot pass:
    they see when it ends, and nothing else."""

    def confirm_login_allowed(self, user) -> None:
        super().confirm_login_allowed(user)
        pause = reads.active_break(user)
        if pause is not None:
            profile = Profile.objects.filter(user=user).first()
            raise ValidationError(bets.break_message(pause, profile), code="on_break")


class LossLimitForm(forms.Form):
    period = forms.ChoiceField(label=gettext_lazy("Period"), choices=LossLimit.Period.choices)
    amount = WholeChipsField(
        label=gettext_lazy("Most I may lose (chips)"),
        required=False,
        min_units=0,
        widget=forms.NumberInput(attrs={"min": "0", "step": "1"}),
        help_text=gettext_lazy("Leave empty to remove the limit."),
    )


class RealityCheckForm(forms.Form):
    minutes = forms.TypedChoiceField(
        label=gettext_lazy("Remind me every"),
        coerce=int,
        choices=[
            (0, gettext_lazy("Off")),
            (15, gettext_lazy("15 minutes")),
            (30, gettext_lazy("30 minutes")),
            (60, gettext_lazy("60 minutes")),
        ],
    )


def _lengths(choices: dict) -> list[tuple[str, str]]:
    return [(code, label) for code, (label, _delta, _months) in choices.items()]


class _BreakForm(forms.Form):
    """A break's length and the player's confirmation that it cannot be undone."""

    confirm = forms.BooleanField(
        label=gettext_lazy(
            "I understand I cannot play or log in until it ends, and it cannot be undone."
        )
    )
    field_order = ["length", "confirm"]


class TimeoutForm(_BreakForm):
    length = forms.ChoiceField(
        label=gettext_lazy("Take a break for"), choices=_lengths(play_safe.TIMEOUTS)
    )


class ExclusionForm(_BreakForm):
    length = forms.ChoiceField(
        label=gettext_lazy("Exclude me for"), choices=_lengths(play_safe.EXCLUSIONS)
    )


class ZoneForm(forms.Form):
    time_zone = forms.CharField(label=gettext_lazy("My time zone"), max_length=64)

    def clean_time_zone(self) -> str:
        name = self.cleaned_data["time_zone"].strip()
        if not play_safe.valid_zone(name):
            raise ValidationError(_("Choose a time zone such as Asia/Tokyo or Europe/London."))
        return name


def _chips(units: int | None) -> str | None:
    return None if units is None else format_chips(units)


def _context(request: PlayerRequest, **forms_: forms.Form) -> dict:
    user = request.user
    profile = Profile.objects.get(user=user)
    now = timezone.now()
    in_force = reads.limits_in_force(user, now)
    pending = reads.pending_changes(user, now)
    rooms = {room.period: room for room in reads.loss_rooms(user, profile, now)}
    limits = [
        {
            "period": period,
            "label": LossLimit.Period(period).label,
            "limit": in_force[period],
            "room": rooms.get(period),
            "pending": pending.get(period),
        }
        for period in reads.PERIODS
    ]
    return {
        # The personal max bet and its PIN (templates/account/max_bet_sections.html).
        **account_views.context(request),
        "back": "play_safe",
        "profile": profile,
        "zone": reads.zone_of(profile).key,
        "limits": limits,
        "summary": reads.session_summary(user, profile, now),
        "demo": is_demo(user),
        "loss_limit_form": forms_.get("loss_limit_form") or LossLimitForm(),
        "reality_form": forms_.get("reality_form")
        or RealityCheckForm(initial={"minutes": profile.reality_check_minutes}),
        "timeout_form": forms_.get("timeout_form") or TimeoutForm(),
        "exclusion_form": forms_.get("exclusion_form") or ExclusionForm(),
        "zone_form": forms_.get("zone_form") or ZoneForm(initial={"time_zone": profile.time_zone}),
    }


def _invalid(request: PlayerRequest, **form: forms.Form) -> HttpResponse:
    return render(request, TEMPLATE, _context(request, **form), status=400)


def _demo_refused(request: PlayerRequest) -> HttpResponse | None:
    if not is_demo(request.user):
        return None
    messages.error(request, _("Demo chips have no limits or breaks: sign up to set them."))
    return redirect("play_safe")


@login_required
@require_GET
def page(request: PlayerRequest) -> HttpResponse:
    return render(request, TEMPLATE, _context(request))


@login_required
@require_POST
def loss_limit(request: PlayerRequest) -> HttpResponse:
    if (refused := _demo_refused(request)) is not None:
        return refused
    form = LossLimitForm(request.POST)
    if not form.is_valid():
        return _invalid(request, loss_limit_form=form)
    chips = form.cleaned_data["amount"]
    try:
        row = play_safe.set_loss_limit(
            user=request.user,
            period=form.cleaned_data["period"],
            amount=None if chips is None else chips * UNITS_PER_CHIP,
        )
    except GameError as exc:
        form.add_error(None, exc.message)
        return _invalid(request, loss_limit_form=form)
    if row.effective_at > row.requested_at:
        messages.success(
            request,
            _(
                "Your change takes effect in 24 hours, at %(when)s. Until then your current limit applies."
            )
            % {"when": reads.local_time(row.effective_at, Profile.objects.get(user=request.user))},
        )
    else:
        messages.success(request, _("Your loss limit is in force now."))
    return redirect("play_safe")


@login_required
@require_POST
def reality_interval(request: PlayerRequest) -> HttpResponse:
    return _apply(
        request,
        RealityCheckForm(request.POST),
        "reality_form",
        lambda data: play_safe.set_reality_interval(user=request.user, minutes=data["minutes"]),
        _("Your reality check is saved."),
    )


def _apply(
    request: PlayerRequest,
    form: forms.Form,
    name: str,
    change: Callable[[dict[str, Any]], object],
    done: str,
) -> HttpResponse:
    """A play-safe form posted: the change made and ``done`` said, or the
    page again with the form's errors or the service's refusal."""
    if not form.is_valid():
        return _invalid(request, **{name: form})
    try:
        change(form.cleaned_data)
    except GameError as exc:
        form.add_error(None, exc.message)
        return _invalid(request, **{name: form})
    messages.success(request, done)
    return redirect("play_safe")


CHOICES = ("keep", "history", "logout")


@login_required
@require_POST
def reality_answer(request: PlayerRequest) -> HttpResponse:
    """The pause's three choices: each answers the check, then goes its way."""
    choice = request.POST.get("choice", "")
    if choice not in CHOICES:
        return HttpResponse(_("Choose one of the three answers."), status=400)
    play_safe.answer_reality_check(user=request.user)
    if choice == "logout":
        logout(request)
        return redirect("login")
    if choice == "history":
        return redirect("history")
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        return redirect(back)
    return redirect("lobby")


@login_required
@require_GET
def reality_status(request: PlayerRequest) -> JsonResponse:
    """For the table's pause (static/js/reality.js): whether a check is due
    and the session's figures to show in it."""
    profile = Profile.objects.get(user=request.user)
    now = timezone.now()
    summary = reads.session_summary(request.user, profile, now)
    due_in = None
    if profile.reality_check_minutes and profile.reality_due_at is not None:
        due_in = max(0, int((profile.reality_due_at - now).total_seconds()))
    return JsonResponse(
        {
            "due": reads.reality_due(profile, now),
            # A War round waiting for its decision is never interrupted.
            "round_open": Round.objects.filter(
                player=request.user, status=Round.Status.OPEN
            ).exists(),
            "due_in": due_in,
            "played_minutes": summary.played_minutes,
            "net": format_chips(summary.net),
        }
    )


def _take_break(
    request: PlayerRequest, form: TimeoutForm | ExclusionForm, name: str
) -> HttpResponse:
    if (refused := _demo_refused(request)) is not None:
        return refused
    if not form.is_valid():
        return _invalid(request, **{name: form})
    try:
        pause = play_safe.take_break(user=request.user, length=form.cleaned_data["length"])
    except GameError as exc:
        form.add_error(None, exc.message)
        return _invalid(request, **{name: form})
    message = bets.break_message(pause, Profile.objects.get(user=request.user))
    logout(request)  # its session is already gone; this clears the browser's cookie too
    return render(request, "play_safe/break_taken.html", {"message": message})


@login_required
@require_POST
def timeout(request: PlayerRequest) -> HttpResponse:
    return _take_break(request, TimeoutForm(request.POST), "timeout_form")


@login_required
@require_POST
def exclusion(request: PlayerRequest) -> HttpResponse:
    return _take_break(request, ExclusionForm(request.POST), "exclusion_form")


@login_required
@require_POST
def zone(request: PlayerRequest) -> HttpResponse:
    return _apply(
        request,
        ZoneForm(request.POST),
        "zone_form",
        lambda data: play_safe.set_time_zone(user=request.user, name=data["time_zone"]),
        _("Your time zone is saved."),
    )


@login_required
@require_GET
def statement(request: PlayerRequest) -> HttpResponse:
    profile = Profile.objects.get(user=request.user)
    zone_ = reads.zone_of(profile)
    months = reads.statement_months(request.user)
    return render(request, "play_safe/statement.html", {"months": months, "zone": zone_.key})


@login_required
@require_GET
def statement_csv(request: PlayerRequest) -> HttpResponse:
    months = reads.statement_months(request.user)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="statement.csv"'
    writer = csv.writer(response)
    writer.writerow(["month", "rounds", "staked", "returned", "net"])
    for row in months:
        writer.writerow(
            [
                row["month"],
                row["rounds"],
                f"{row['staked'] / UNITS_PER_CHIP:.2f}",
                f"{row['returned'] / UNITS_PER_CHIP:.2f}",
                f"{row['net'] / UNITS_PER_CHIP:.2f}",
            ]
        )
    return response
