"""Players' wallets, ledger, rounds and profiles in the operator console: all
read-only. Chips move only through the adjustment screen
(``games.views.operator.adjust_wallets``), which posts a ledger row through
``games.services.operator.do_adjustments``. Each wallet links to the
player's page (``games.views.operator.player_page``).
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from games.admin.base import UNOPENED, ReadOnlyAdmin, opened_seed
from games.cards import server_seed_hash
from games.display import format_chips
from games.models import LedgerEntry, Profile, Round, Wallet
from games.selectors.round_facts import is_open
from games.views import operator


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    """Balances are never edited in place: the adjustment screen posts a
    ledger row through the wallet service."""

    list_display = ("user", "balance_chips", "player_page", "last_topup_on", "updated_at")
    search_fields = ("user__username",)
    fields = ("user", "balance_chips", "last_topup_on", "updated_at")
    readonly_fields = fields
    actions = ("adjust_balances",)
    change_form_template = "admin/games/wallet/change_form.html"

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_wallet")

    def get_urls(self):
        return [
            path(
                "adjust/",
                self.admin_site.admin_view(operator.adjust_wallets),
                name="games_wallet_adjust",
            ),
            *super().get_urls(),
        ]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "can_adjust": self.has_adjust_permission(request)}
        return super().changeform_view(request, object_id, form_url, extra_context)

    @admin.display(description=_("player page"))
    def player_page(self, obj: Wallet) -> SafeString:
        url = reverse("operator_player", args=[obj.user_id])
        return format_html('<a href="{}">{}</a>', url, _("rounds, play, state"))

    @admin.display(description=_("balance (chips)"), ordering="balance")
    def balance_chips(self, obj: Wallet) -> str:
        return format_chips(obj.balance)

    @admin.action(description=_("Credit or debit the selected players"), permissions=["adjust"])
    def adjust_balances(self, request: HttpRequest, queryset: QuerySet[Wallet]) -> HttpResponse:
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return HttpResponseRedirect(f"{reverse('admin:games_wallet_adjust')}?ids={ids}")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "wallet",
        "kind",
        "amount_chips",
        "balance_after_chips",
        "round",
        "reason",
        "actor",
        "created_at",
    )
    list_filter = ("kind",)
    search_fields = ("wallet__user__username", "reason")
    list_select_related = ("wallet__user", "actor", "round")

    @admin.display(description=_("amount (chips)"), ordering="amount")
    def amount_chips(self, obj: LedgerEntry) -> str:
        return ("+" if obj.amount > 0 else "") + format_chips(obj.amount)

    @admin.display(description=_("balance after (chips)"))
    def balance_after_chips(self, obj: LedgerEntry) -> str:
        return format_chips(obj.balance_after)


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "player",
        "table",
        "version",
        "game",
        "status",
        "bet_chips",
        "return_chips",
        "created_at",
    )
    list_filter = ("game", "status", "table")
    search_fields = ("player__username",)
    list_select_related = ("player", "table", "version")
    # The server seed only through ``revealed_seed``: a round waiting for a
    # War decision still has cards to deal from it.
    fields = (
        "player",
        "table",
        "version",
        "game",
        "status",
        "seq",
        "slip_key",
        "server_seed_hash",
        "revealed_seed",
        "client_seed",
        "nonce",
        "bets",
        "returns",
        "total_bet",
        "total_return",
        "balance_before",
        "balance_after",
        "outcome",
        "cards",
        "detail",
        "winner",
        "player_pair",
        "banker_pair",
        "created_at",
        "settled_at",
        "decision_deadline",
        "void_reason",
    )
    readonly_fields = fields

    @admin.display(description=_("server seed"))
    def revealed_seed(self, obj: Round) -> str:
        if is_open(obj):  # the round page's rule: its war is still to be dealt
            return str(_("Sealed until the round is over."))
        seed = opened_seed(obj, "server_seed")
        return str(UNOPENED) if seed is None else seed

    @admin.display(description=_("bet (chips)"), ordering="total_bet")
    def bet_chips(self, obj: Round) -> str:
        return format_chips(obj.total_bet)

    @admin.display(description=_("returned (chips)"), ordering="total_return")
    def return_chips(self, obj: Round) -> str:
        return format_chips(obj.total_return)


@admin.register(Profile)
class ProfileAdmin(ReadOnlyAdmin):
    """A player's settings. The next server seed is sealed and never shown
    (only its SHA-256, which the player sees too), and the PIN only as set
    or not: its hash is nobody's business."""

    list_display = ("user", "nonce", "personal_max_bet")
    fields = (
        "user",
        "demo",
        "client_seed",
        "next_seed_hash",
        "nonce",
        "personal_max_bet_chips",
        "max_bet_changed_at",
        "pin_set",
        "pin_failures",
        "pin_locked_until",
        "sound",
        "effects",
        "music",
        "history_panel",
        "fast_play",
        "volume",
        # Play safe: the player's own; changed only by them (games/services/play_safe.py).
        "time_zone",
        "reality_check_minutes",
        "session_started_at",
        "break_until",
    )
    readonly_fields = fields

    @admin.display(description=_("next server seed (SHA-256 only)"))
    def next_seed_hash(self, obj: Profile) -> str:
        seed = opened_seed(obj, "next_server_seed")
        return str(UNOPENED) if seed is None else server_seed_hash(bytes.fromhex(seed))

    @admin.display(description=_("personal max bet (chips)"))
    def personal_max_bet_chips(self, obj: Profile) -> str:
        return "" if obj.personal_max_bet is None else format_chips(obj.personal_max_bet)

    @admin.display(description=_("PIN set"), boolean=True)
    def pin_set(self, obj: Profile) -> bool:
        return bool(obj.pin_hash)
