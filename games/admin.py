"""Operator screens. Issue-specific admin (live RTP, adjustments, audit) builds on this."""

from __future__ import annotations

from django.contrib import admin

from games.models import AuditEntry, LedgerEntry, Profile, Round, Table, TableVersion, Wallet


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "decks", "enabled", "max_bet", "current_version")
    list_filter = ("game", "enabled")
    readonly_fields = ("current_version",)


@admin.register(TableVersion)
class TableVersionAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "decks", "max_bet", "created_at", "created_by")
    list_filter = ("table",)


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    list_display = ("user", "balance", "last_topup_on", "updated_at")
    search_fields = ("user__username",)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "wallet",
        "kind",
        "amount",
        "balance_after",
        "round",
        "actor",
        "created_at",
    )
    list_filter = ("kind",)
    search_fields = ("wallet__user__username", "reason")


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "player",
        "table",
        "game",
        "status",
        "total_bet",
        "total_return",
        "created_at",
    )
    list_filter = ("game", "status", "table")
    search_fields = ("player__username",)


@admin.register(Profile)
class ProfileAdmin(ReadOnlyAdmin):
    list_display = ("user", "nonce", "personal_max_bet")


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "object_type", "object_repr")
    list_filter = ("action", "object_type")
