"""Tables and their frozen versions in the operator console.

Saving goes through ``games.services.tables.save_table``: a change to the
paytable or limits makes a new TableVersion (rounds in progress keep theirs)
and every change is written to the audit log. Versions are read-only. The
live RTP panel and the dashboard are operator views (``games.views.operator``)
routed under the table admin.
"""

from __future__ import annotations

import copy
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.forms import Script
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import path
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.base import ReadOnlyAdmin
from games.admin.forms import LIVE_RTP_TEMPLATE, PRESET_LABELS, TABLE_FORMS, initial_from_table
from games.display import format_chips
from games.labels import AREA_LABELS
from games.models import Game, Table, TableVersion
from games.presets import TABLE_PRESETS
from games.selectors.dashboard import LIMIT_AREAS, PAY_KEYS, live_paytable
from games.services.tables import save_table, table_snapshot
from games.views import operator

VERSIONS_SHOWN = 10
VERSION_HISTORY_TEMPLATE = "admin/games/table/version_history.html"


def pays_line(pays: dict[str, str]) -> str:
    return " · ".join(f"{AREA_LABELS.get(k, k)} x{v}" for k, v in pays.items())


def limits_line(limits: dict[str, dict[str, int]]) -> str:
    return " · ".join(
        f"{AREA_LABELS.get(area, area)} {format_chips(lim.get('min'))}–{format_chips(lim.get('max'))}"
        for area, lim in limits.items()
    )


def _actor(request: HttpRequest) -> User | None:
    """The operator making the change (the admin lets only staff this far)."""
    return request.user if isinstance(request.user, User) else None


class LimitColumns:
    """Chip-valued columns shared by a table and its frozen versions."""

    @admin.display(description=_("MAX BET (chips)"))
    def max_bet_chips(self, obj: Table | TableVersion) -> str:
        return format_chips(obj.max_bet)

    @admin.display(description=_("squeeze threshold (chips)"))
    def squeeze_chips(self, obj: Table | TableVersion) -> str:
        return format_chips(obj.squeeze_threshold)


@admin.register(Table)
class TableAdmin(LimitColumns, admin.ModelAdmin):
    list_display = (
        "name",
        "name_ja",
        "game",
        "decks",
        "open_state",
        "max_bet_chips",
        "pays_summary",
        "current_version",
    )
    list_filter = ("game", "enabled")
    actions = ("close_tables", "open_tables")
    change_form_template = "admin/games/table/change_form.html"

    class Media:
        css = {"all": ("css/admin.css",)}
        js = (Script("js/admin_rtp.js", type="module"),)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Rounds point at tables and their versions: close a table instead.
        return False

    # In words: the admin's boolean icon carries an English alt text.
    @admin.display(description=_("open"), ordering="enabled")
    def open_state(self, obj: Table) -> str:
        return gettext("open") if obj.enabled else gettext("closed")

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("rtp/<str:game>/", wrap(operator.live_rtp), name="games_table_rtp"),
            path("dashboard/", wrap(operator.dashboard), name="games_dashboard"),
            path("dashboard/export.csv", wrap(operator.floor_export), name="games_floor_export"),
            *super().get_urls(),
        ]

    def _game(self, request: HttpRequest, obj: Table | None) -> str:
        if obj is not None:
            return obj.game
        preset = TABLE_PRESETS.get(request.GET.get("preset", ""))
        if preset is not None:
            return preset["game"]
        game = request.GET.get("game", "")
        return game if game in PAY_KEYS else Game.BACCARAT

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = TABLE_FORMS[self._game(request, obj)]
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return ("game", "current_version", "version_history")

    def get_fieldsets(self, request, obj=None):
        game = self._game(request, obj)
        can_edit = (
            self.has_change_permission(request, obj)
            if obj is not None
            else self.has_add_permission(request)
        )
        table_fields: tuple[Any, ...] = (
            "name",
            "name_ja",
            "slug",
            "game",
            "enabled",
            "position",
            "decks",
        )
        if game == Game.BACCARAT:
            table_fields += ("live", "betting_seconds", "squeeze_seconds")
        if not can_edit:
            # View-only staff: the same information, shown rather than edited.
            rules: tuple[str, ...] = ("chips_display", "max_bet_chips", "limits_display")
            rules += ("squeeze_chips",) if game == Game.BACCARAT else ("decision_timeout",)
            return (
                (None, {"fields": table_fields}),
                (_("Paytable and exact odds"), {"fields": ("paytable_display",)}),
                (_("Limits"), {"fields": rules}),
                (_("Versions"), {"fields": ("current_version", "version_history")}),
            )
        limits: list[Any] = [
            (f"limit_{area}_min", f"limit_{area}_max") for area in LIMIT_AREAS[game]
        ]
        limits.append("max_bet")
        limits.append("squeeze_threshold" if game == Game.BACCARAT else "decision_timeout")
        fieldsets: list[Any] = [
            (None, {"fields": table_fields}),
            (
                _("Paytable (total-return multipliers) and exact odds"),
                {
                    "fields": ("preset", *(f"pay_{key}" for key in PAY_KEYS[game])),
                    "classes": ("paytable",),
                },
            ),
            (_("Limits (chips)"), {"fields": (*limits, "chips")}),
        ]
        if obj is not None:
            fieldsets.append((_("Versions"), {"fields": ("current_version", "version_history")}))
        return fieldsets

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        preset = TABLE_PRESETS.get(request.GET.get("preset", ""))
        if preset is None:
            game = self._game(request, None)
            preset = next(p for p in TABLE_PRESETS.values() if p["game"] == game)
        fields = {
            k: v for k, v in preset.items() if k not in ("name", "name_ja", "slug", "position")
        }
        initial.update(initial_from_table(Table(**fields)))
        return initial

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "table_presets": [(key, PRESET_LABELS[key]) for key in TABLE_PRESETS],
        }
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change) -> None:
        save_table(table=obj, actor=_actor(request), before=form.before)
        for _key, warning in form.live_paytable().warnings:
            messages.warning(request, warning)

    def _set_enabled(self, request: HttpRequest, queryset: QuerySet[Table], enabled: bool) -> int:
        changed = 0
        for table in queryset:
            if table.enabled == enabled:
                continue
            before = table_snapshot(table)
            table.enabled = enabled
            save_table(table=table, actor=_actor(request), before=copy.deepcopy(before))
            changed += 1
        return changed

    @admin.action(description=_("Close the selected tables"), permissions=["change"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        n = self._set_enabled(request, queryset, False)
        self.message_user(
            request,
            gettext(
                "%(count)s table(s) closed: players finish the round they are in "
                "but cannot start another."
            )
            % {"count": n},
        )

    @admin.action(description=_("Open the selected tables"), permissions=["change"])
    def open_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        n = self._set_enabled(request, queryset, True)
        self.message_user(request, gettext("%(count)s table(s) opened.") % {"count": n})

    # --- read-only displays ---

    @admin.display(description=_("chip values (chips)"))
    def chips_display(self, obj: Table) -> str:
        return ", ".join(str(c) for c in obj.chips or [])

    @admin.display(description=_("paytable"))
    def pays_summary(self, obj: Table) -> str:
        return pays_line(obj.pays or {})

    @admin.display(description=_("limits per area (chips)"))
    def limits_display(self, obj: Table) -> str:
        return limits_line(obj.limits or {})

    @admin.display(description=_("paytable"))
    def paytable_display(self, obj: Table) -> SafeString:
        live = live_paytable(game=obj.game, decks=obj.decks, pays=obj.pays or {})
        return SafeString(render_to_string(f"{LIVE_RTP_TEMPLATE}#paytable_table", {"live": live}))

    @admin.display(description=_("version history"))
    def version_history(self, obj: Table) -> SafeString:
        if obj.pk is None:
            return SafeString("")
        versions = TableVersion.objects.filter(table=obj)
        shown = versions.select_related("created_by").order_by("-number")[:VERSIONS_SHOWN]
        context = {
            "table": obj,
            "total": versions.count(),
            "rows": [
                {"version": v, "pays": pays_line(v.pays), "limits": limits_line(v.limits)}
                for v in shown
            ],
        }
        return render_to_string(VERSION_HISTORY_TEMPLATE, context)


@admin.register(TableVersion)
class TableVersionAdmin(LimitColumns, ReadOnlyAdmin):
    list_display = (
        "table",
        "number",
        "decks",
        "pays_display",
        "limits_display",
        "max_bet_chips",
        "created_at",
        "created_by",
    )
    list_filter = ("table",)
    fields = (
        "table",
        "number",
        "decks",
        "pays_display",
        "limits_display",
        "max_bet_chips",
        "squeeze_chips",
        "decision_timeout",
        "created_at",
        "created_by",
    )
    readonly_fields = fields

    @admin.display(description=_("paytable"))
    def pays_display(self, obj: TableVersion) -> str:
        return pays_line(obj.pays)

    @admin.display(description=_("limits (chips)"))
    def limits_display(self, obj: TableVersion) -> str:
        return limits_line(obj.limits)
