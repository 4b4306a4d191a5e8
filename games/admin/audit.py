"""The audit log in the operator console: who changed what, when, with the
values before and after. Read-only.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from games.admin.base import ReadOnlyAdmin
from games.models import AuditEntry

CHANGES_TEMPLATE = "admin/games/auditentry/changes.html"

ACTION_LABELS = {
    "table.create": _("Table created"),
    "table.change": _("Table changed"),
    "wallet.adjust": _("Balance adjusted"),
}


class AuditActionFilter(admin.SimpleListFilter):
    title = _("action")
    parameter_name = "action"

    def lookups(self, request, model_admin):
        present = AuditEntry.objects.values_list("action", flat=True).distinct()
        return [(a, ACTION_LABELS.get(a, a)) for a in sorted(set(present))]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(action=value) if value else queryset


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _short(value: Any, limit: int = 60) -> str:
    text = _json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Who changed what, when, with the values before and after."""

    list_display = ("created_at", "actor", "action_label", "object_repr", "changes")
    list_filter = (AuditActionFilter, "object_type", ("actor", admin.RelatedOnlyFieldListFilter))
    date_hierarchy = "created_at"
    search_fields = ("object_repr", "actor__username")
    list_select_related = ("actor",)
    fields = (
        "created_at",
        "actor",
        "action_label",
        "object_type",
        "object_id",
        "object_repr",
        "changes_table",
        "before_json",
        "after_json",
    )
    readonly_fields = fields

    class Media:
        css = {"all": ("css/admin.css",)}

    @admin.display(description=_("action"), ordering="action")
    def action_label(self, obj: AuditEntry) -> str:
        return str(ACTION_LABELS.get(obj.action, obj.action))

    @staticmethod
    def _changed(obj: AuditEntry) -> list[tuple[str, Any, Any]]:
        before = obj.before or {}
        after = obj.after or {}
        keys = list(dict.fromkeys([*before.keys(), *after.keys()]))
        return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]

    @admin.display(description=_("what changed"))
    def changes(self, obj: AuditEntry) -> SafeString:
        changes = [(k, _short(b), _short(a)) for k, b, a in self._changed(obj)]
        return render_to_string(f"{CHANGES_TEMPLATE}#lines", {"changes": changes})

    @admin.display(description=_("before → after"))
    def changes_table(self, obj: AuditEntry) -> SafeString:
        changes = [(k, _json(b), _json(a)) for k, b, a in self._changed(obj)]
        return render_to_string(f"{CHANGES_TEMPLATE}#table", {"changes": changes})

    @admin.display(description=_("before"))
    def before_json(self, obj: AuditEntry) -> SafeString:
        return format_html(
            "<pre>{}</pre>", json.dumps(obj.before, indent=2, ensure_ascii=False, sort_keys=True)
        )

    @admin.display(description=_("after"))
    def after_json(self, obj: AuditEntry) -> SafeString:
        return format_html(
            "<pre>{}</pre>", json.dumps(obj.after, indent=2, ensure_ascii=False, sort_keys=True)
        )
