"""Operator-only screens. Each view checks, at the top, that the user is
staff and holds the model permission it needs, with the second factor where
it is required (``games.views.staff_access``; anyone else gets a 404); the admin
routes are also wrapped in ``admin_site.admin_view`` (logged-in active staff
only, verified where required: ``casino.otp``).

In the admin:
- ``live_rtp``: the exact-odds figures for a paytable as it is being typed.
- ``adjust_wallets``: credit or debit players with a reason.
- ``dashboard``: per table and for a chosen period, takings and hold, and
  charts of hold, rounds per hour and players over time.
- ``floor_export``: every player's rounds for a date range and table, as CSV.

On the site, beside the history (``games/urls/history.py``):
- ``player_search``: one box, username, e-mail or account number, results
  as you type; ``player_page``: one player's account for staff;
  ``player_active``: deactivate or reactivate it with a reason.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games.display import format_chips
from games.errors import GameError
from games.models import Table, Wallet
from games.presenters.charts import table_charts
from games.selectors.dashboard import (
    DEFAULT_PERIOD,
    PAY_KEYS,
    PERIODS,
    live_paytable,
    period_takings,
    table_series,
)
from games.selectors.history_export import FloorFilter, csv_chunks, floor_rounds
from games.selectors.operator_players import player_overview, search_players
from games.services.operator import check_adjustment, do_adjustments, set_player_active
from games.services.staff import may_change as may_change_account
from games.views.amounts import ChipsField
from games.views.staff_access import PLAYER_ACCOUNTS, ROUNDS, TABLES, may_view, staff_reader


def _operator(request: HttpRequest) -> User:
    """The signed-in staff member (verified where a second factor is
    required); anyone else is told the page does not exist."""
    return staff_reader(request, ())


def _require_table_view(request: HttpRequest) -> None:
    staff_reader(request, TABLES)


@require_POST
def live_rtp(request: HttpRequest, game: str) -> HttpResponse:
    """The live RTP panel plus, out of band, the figure beside each multiplier.

    It only computes (nothing is saved), so viewing staff may call it too.
    """
    _require_table_view(request)
    if game not in PAY_KEYS:
        raise Http404
    pays = {key: request.POST.get(f"pay_{key}") for key in PAY_KEYS[game]}
    live = live_paytable(game=game, decks=request.POST.get("decks"), pays=pays)
    return render(
        request, "admin/games/table/change_form.html#live_rtp", {"live": live, "oob": True}
    )


class AdjustmentForm(forms.Form):
    direction = forms.ChoiceField(
        label=gettext_lazy("Credit or debit"),
        choices=[
            ("credit", gettext_lazy("Credit: give chips")),
            ("debit", gettext_lazy("Debit: take chips")),
        ],
        widget=forms.RadioSelect,
        initial="credit",
    )
    # Units, from ASCII digits only: DecimalField would take "１０" or "1e3".
    amount = ChipsField(
        label=gettext_lazy("Amount (chips)"),
        min_units=1,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
        help_text=gettext_lazy("Up to two decimal places (1 chip = 100 units)."),
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=255,
        help_text=gettext_lazy("Required; the player's ledger and the audit log show it."),
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("An adjustment needs a reason."))
        return reason

    def signed_units(self) -> int:
        units = int(self.cleaned_data["amount"])
        return -units if self.cleaned_data["direction"] == "debit" else units


def _wallet_ids(request: HttpRequest) -> list[int]:
    raw = request.POST.get("ids") or request.GET.get("ids") or ""
    # Anything but a plausible id is ignored (and kept within the databases' integers).
    return [
        int(part)
        for part in (p.strip() for p in raw.split(","))
        if part.isascii() and part.isdigit() and len(part) <= 18
    ]


def adjust_wallets(request: HttpRequest) -> HttpResponse:
    """Credit or debit the chosen players (``?ids=1,2``) with a reason."""
    operator = _operator(request)
    if not operator.has_perm("games.change_wallet"):
        raise PermissionDenied
    ids = _wallet_ids(request)
    wallets = list(Wallet.objects.select_related("user").filter(pk__in=ids).order_by("pk"))
    changelist = reverse("admin:games_wallet_changelist")
    if not wallets:
        messages.error(request, _("Choose at least one player's wallet to adjust."))
        return redirect(changelist)
    try:  # a demo, own or staff wallet is refused before the form is shown (and by the service)
        for wallet in wallets:
            check_adjustment(wallet=wallet, actor=operator)
    except GameError as exc:
        messages.error(request, exc.message)
        return redirect(changelist)
    form = AdjustmentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        amount = form.signed_units()
        try:
            done = do_adjustments(
                wallet_ids=[w.pk for w in wallets],
                amount=amount,
                reason=form.cleaned_data["reason"],
                actor=operator,
            )
        except GameError as exc:
            form.add_error(None, exc.message)
        else:
            message = (
                _("Credited %(amount)s chips to %(players)s.")
                if amount > 0
                else _("Debited %(amount)s chips from %(players)s.")
            )
            messages.success(
                request,
                message
                % {
                    "amount": format_chips(abs(amount)),
                    "players": ", ".join(str(w.user) for w in done),
                },
            )
            if len(done) == 1:
                return redirect(reverse("admin:games_wallet_change", args=[done[0].pk]))
            return redirect(changelist)
    context = {
        **admin.site.each_context(request),
        "title": _("Adjust balances"),
        "opts": Wallet._meta,
        "form": form,
        "wallets": wallets,
        "ids": ",".join(str(w.pk) for w in wallets),
    }
    # A posted form that comes back was refused (its errors say why): a 400.
    status = 400 if form.is_bound else 200
    return render(request, "admin/games/wallet/adjust.html", context, status=status)


class DashboardForm(forms.Form):
    period = forms.ChoiceField(
        label=gettext_lazy("Period"),
        choices=[(p.key, p.label) for p in PERIODS.values()],
        required=False,
    )
    table = forms.ModelChoiceField(
        label=gettext_lazy("Table"),
        queryset=Table.objects.order_by("position", "id"),
        to_field_name="slug",
        required=False,
        empty_label=gettext_lazy("All tables"),
    )


class FloorExportForm(forms.Form):
    date_from = forms.DateField(
        label=gettext_lazy("From"), widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=gettext_lazy("To"), widget=forms.DateInput(attrs={"type": "date"})
    )
    table = forms.ModelChoiceField(
        label=gettext_lazy("Table"),
        queryset=Table.objects.order_by("position", "id"),
        to_field_name="slug",
        required=False,
        empty_label=gettext_lazy("All tables"),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError(_("The start date is after the end date."))
        return data

    def floor_filter(self) -> FloorFilter:
        data = self.cleaned_data
        return FloorFilter(
            date_from=data["date_from"], date_to=data["date_to"], table=data["table"]
        )


def dashboard(request: HttpRequest) -> HttpResponse:
    """Per table and for the chosen period: rounds, chips bet and returned,
    actual hold beside the theoretical hold, players; and the same over time
    as charts (hold, rounds per hour, active players), each with its figures
    as a table."""
    _require_table_view(request)
    form = DashboardForm(request.GET or None)
    period, table = DEFAULT_PERIOD, None
    if form.is_bound and form.is_valid():
        period = form.cleaned_data["period"] or DEFAULT_PERIOD
        table = form.cleaned_data["table"]
    now = timezone.now()
    chosen = PERIODS[period]
    today = timezone.localdate(now)
    export_form = FloorExportForm(
        initial={
            "date_from": today - dt.timedelta(days=6),
            "date_to": today,
            "table": table.slug if table else None,
        }
    )
    rows = period_takings(period=period, now=now, table=table)
    context = {
        **admin.site.each_context(request),
        "title": _("Tables dashboard"),
        "opts": Table._meta,
        "form": form,
        "period": chosen,
        "rows": rows,
        "charts": [
            table_charts(series, unit=chosen.unit)
            for series in table_series(period=period, now=now, table=table)
        ],
        "export_form": export_form,
        "can_export": may_view(_operator(request), "games.round"),
    }
    return render(request, "admin/games/dashboard.html", context)


@require_GET
def floor_export(request: HttpRequest) -> HttpResponseBase:
    """Every player's rounds for a date range (one table or all) as CSV,
    streamed: the same columns and formula guard as a player's own export."""
    staff_reader(request, ROUNDS)
    form = FloorExportForm(request.GET)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return redirect("admin:games_dashboard")
    filters = form.floor_filter()
    response = StreamingHttpResponse(
        csv_chunks(floor_rounds(filters)), content_type="text/csv; charset=utf-8"
    )
    where = filters.table.slug if filters.table else "all-tables"
    filename = f"floor-{where}-{filters.date_from:%Y%m%d}-{filters.date_to:%Y%m%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- find a player ------------------------------------------------------------------------


@login_required
@require_GET
def player_search(request: HttpRequest) -> HttpResponse:
    """One box: username, e-mail or account number, with results as you type.

    An old link's ``?username=`` goes straight to that player's history."""
    staff_reader(request, PLAYER_ACCOUNTS)
    username = request.GET.get("username", "").strip()
    if username:
        user = User.objects.filter(username=username).first()
        if user is not None:
            return redirect("history_player", user_id=user.pk)
        messages.error(request, _("No player is called “%(name)s”.") % {"name": username})
    query = request.GET.get("q", "").strip()[:150]
    context = {"query": query, "players": search_players(query) if query else []}
    template = "history/player_search.html"
    htmx = getattr(request, "htmx", None)  # django-htmx's middleware sets it
    if htmx and not htmx.history_restore_request:
        template += "#results"
    return render(request, template, context)


class ActiveForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=255,
        help_text=gettext_lazy("Required; the audit log records it."),
    )


@login_required
@require_GET
def player_page(request: HttpRequest, user_id: int) -> HttpResponse:
    """A player's account for staff: balance, play, last rounds, adjustments,
    personal max bet, and whether the account is active."""
    operator = staff_reader(request, PLAYER_ACCOUNTS)
    player = get_object_or_404(User.objects.select_related("wallet", "profile"), pk=user_id)
    context = {
        "overview": player_overview(player=player),
        "player": player,
        "form": ActiveForm(),
        "can_change_active": may_change_account(actor=operator, account=player)
        and player.pk != operator.pk,
        "can_adjust": operator.has_perm("games.change_wallet")
        and hasattr(player, "wallet")
        and not (hasattr(player, "profile") and player.profile.demo),  # demo chips: refused
        "search_url": reverse("history_player_lookup"),
    }
    return render(request, "history/player.html", context)


@login_required
@require_POST
def player_active(request: HttpRequest, user_id: int) -> HttpResponse:
    """Deactivate (``active=0``) or reactivate (``active=1``) with a reason."""
    operator = _operator(request)
    if not operator.has_perm("auth.change_user"):
        raise PermissionDenied
    player = get_object_or_404(User, pk=user_id)
    active = request.POST.get("active") == "1"
    form = ActiveForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason: the audit log records it. Nothing was changed."))
        return redirect("operator_player", user_id=player.pk)
    try:
        set_player_active(
            player=player, active=active, reason=form.cleaned_data["reason"], actor=operator
        )
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            (
                _("%(player)s is active again and can log in.")
                if active
                else _("%(player)s is deactivated: signed out everywhere and cannot log in.")
            )
            % {"player": player.get_username()},
        )
    return redirect("operator_player", user_id=player.pk)
