"""Operator-only screens reached through the admin site (its get_urls wraps
them in ``admin_site.admin_view``: logged-in active staff only). Each view
checks the model permission it needs at the top.

- ``live_rtp``: the exact-odds figures for a paytable as it is being typed.
- ``adjust_wallets``: credit or debit players with a reason.
- ``dashboard``: rounds, takings and hold per table, today and this week.
"""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.display import format_chips
from games.errors import GameError
from games.models import UNITS_PER_CHIP, Table, Wallet
from games.selectors.dashboard import PAY_KEYS, dashboard_periods, live_paytable
from games.services.wallet import adjust_balance


def _require_table_view(request: HttpRequest) -> None:
    user = request.user
    if not (user.has_perm("games.view_table") or user.has_perm("games.change_table")):
        raise PermissionDenied


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
    amount = forms.DecimalField(
        label=gettext_lazy("Amount (chips)"),
        min_value=Decimal("0.01"),
        max_digits=14,
        decimal_places=2,
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
        units = int(self.cleaned_data["amount"] * UNITS_PER_CHIP)
        return -units if self.cleaned_data["direction"] == "debit" else units


def check_adjustment(*, wallet: Wallet, amount: int) -> None:
    """Refuse a debit larger than the player's balance, naming both."""
    if amount < 0 and -amount > wallet.balance:
        raise GameError(
            _(
                "Cannot debit %(amount)s chips from %(player)s: "
                "the balance is only %(balance)s chips. Nothing was changed."
            )
            % {
                "amount": format_chips(-amount),
                "player": wallet.user,
                "balance": format_chips(wallet.balance),
            },
            code="balance",
        )


@transaction.atomic
def do_adjustments(
    *, wallet_ids: list[int], amount: int, reason: str, actor: AbstractBaseUser
) -> list[Wallet]:
    """Adjust every wallet or none: one refusal rolls the others back."""
    wallets = list(
        Wallet.objects.select_for_update().select_related("user").filter(pk__in=wallet_ids)
    )
    for wallet in wallets:
        check_adjustment(wallet=wallet, amount=amount)
        adjust_balance(user=wallet.user, amount=amount, reason=reason, actor=actor)
    return wallets


def _wallet_ids(request: HttpRequest) -> list[int]:
    raw = request.POST.get("ids") or request.GET.get("ids") or ""
    return [int(part) for part in raw.split(",") if part.strip().isdigit()]


def adjust_wallets(request: HttpRequest) -> HttpResponse:
    """Credit or debit the chosen players (``?ids=1,2``) with a reason."""
    if not request.user.has_perm("games.change_wallet"):
        raise PermissionDenied
    ids = _wallet_ids(request)
    wallets = list(Wallet.objects.select_related("user").filter(pk__in=ids).order_by("pk"))
    changelist = reverse("admin:games_wallet_changelist")
    if not wallets:
        messages.error(request, _("Choose at least one player's wallet to adjust."))
        return redirect(changelist)
    form = AdjustmentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        amount = form.signed_units()
        try:
            done = do_adjustments(
                wallet_ids=[w.pk for w in wallets],
                amount=amount,
                reason=form.cleaned_data["reason"],
                actor=request.user,
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
    return render(request, "admin/games/wallet/adjust.html", context)


def dashboard(request: HttpRequest) -> HttpResponse:
    """Per table, today and the last 7 days: rounds, chips bet and returned,
    actual hold beside the theoretical hold from the exact odds, players."""
    _require_table_view(request)
    context = {
        **admin.site.each_context(request),
        "title": _("Tables dashboard"),
        "opts": Table._meta,
        "periods": dashboard_periods(),
    }
    return render(request, "admin/games/dashboard.html", context)
