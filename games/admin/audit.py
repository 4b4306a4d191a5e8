"""The audit log in the operator console: who did what to which object, when,
in the operator's words (``games.admin.audit_words``), amounts in chips.
Read-only; filtered by operator, object type, action and date.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.audit_words import (
    ACTION_LABELS,
    OBJECT_TYPE_LABELS,
    action_label,
    change_lines,
    summary,
)
from games.admin.base import ReadOnlyAdmin
from games.models import AuditEntry

CHANGES_TEMPLATE = "admin/games/auditentry/changes.html"


class AuditActionFilter(admin.SimpleListFilter):
    title = _("action")
    parameter_name = "action"

    def lookups(self, request, model_admin):
        present = AuditEntry.objects.values_list("action", flat=True).distinct()
        return [(a, ACTION_LABELS.get(a, a)) for a in sorted(set(present))]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(action=value) if value else queryset


class ObjectTypeFilter(admin.SimpleListFilter):
    title = _("object type")
    parameter_name = "object_type"

    def lookups(self, request, model_admin):
        present = AuditEntry.objects.values_list("object_type", flat=True).distinct()
        return [(t, OBJECT_TYPE_LABELS.get(t, t)) for t in sorted(set(present))]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(object_type=value) if value else queryset


class OperatorFilter(admin.RelatedOnlyFieldListFilter):
    """The staff who appear in the log (not every user of the site)."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        super().__init__(field, request, params, model, model_admin, field_path)
        self.title = _("operator")
        self.empty_value_display = format_html("{}", gettext("the system"))


def object_url(entry: AuditEntry) -> str:
    """Where the object of an entry is seen: the table's page, the player's,
    the account's or the role's."""
    try:
        if entry.object_type == "table":
            return reverse("admin:games_table_change", args=[entry.object_id])
        if entry.object_type == "wallet":
            return reverse("admin:games_wallet_change", args=[entry.object_id])
        if entry.object_type == "player":
            return reverse("operator_player", args=[entry.object_id])
        if entry.object_type == "account":
            return reverse("admin:auth_user_change", args=[entry.object_id])
        if entry.object_type == "group":
            return reverse("admin:auth_group_change", args=[entry.object_id])
    except NoReverseMatch:
        pass
    return ""


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Who did what to which object, when, in chips."""

    list_display = ("created_at", "operator", "action_label", "object_link", "changes")
    list_filter = (
        ("actor", OperatorFilter),
        ObjectTypeFilter,
        AuditActionFilter,
        ("created_at", admin.DateFieldListFilter),
    )
    date_hierarchy = "created_at"
    search_fields = ("object_repr", "actor__username")
    list_select_related = ("actor",)
    fields = (
        "created_at",
        "operator",
        "summary_line",
        "action_label",
        "object_type_label",
        "object_link",
        "changes_table",
        "before_json",
        "after_json",
    )
    readonly_fields = fields

    class Media:
        css = {"all": ("css/admin.css",)}

    @admin.display(description=_("operator"), ordering="actor__username")
    def operator(self, obj: AuditEntry) -> str:
        return obj.actor.get_username() if obj.actor else str(_("the system"))

    @admin.display(description=_("action"), ordering="action")
    def action_label(self, obj: AuditEntry) -> str:
        return action_label(obj.action)

    @admin.display(description=_("object type"), ordering="object_type")
    def object_type_label(self, obj: AuditEntry) -> str:
        return str(OBJECT_TYPE_LABELS.get(obj.object_type, obj.object_type))

    @admin.display(description=_("object"), ordering="object_repr")
    def object_link(self, obj: AuditEntry) -> SafeString:
        url = object_url(obj)
        kind = OBJECT_TYPE_LABELS.get(obj.object_type, obj.object_type)
        if url:
            return format_html(
                '<a href="{}">{}</a> <small>({})</small>', url, obj.object_repr, kind
            )
        return format_html("{} <small>({})</small>", obj.object_repr, kind)

    @admin.display(description=_("entry"))
    def summary_line(self, obj: AuditEntry) -> str:
        return summary(obj)

    @admin.display(description=_("what changed"))
    def changes(self, obj: AuditEntry) -> SafeString:
        return render_to_string(f"{CHANGES_TEMPLATE}#lines", {"lines": change_lines(obj)})

    @admin.display(description=_("what changed"))
    def changes_table(self, obj: AuditEntry) -> SafeString:
        return render_to_string(f"{CHANGES_TEMPLATE}#table", {"lines": change_lines(obj)})

    @admin.display(description=_("stored before (units)"))
    def before_json(self, obj: AuditEntry) -> SafeString:
        return format_html(
            "<pre>{}</pre>", json.dumps(obj.before, indent=2, ensure_ascii=False, sort_keys=True)
        )

    @admin.display(description=_("stored after (units)"))
    def after_json(self, obj: AuditEntry) -> SafeString:
        return format_html(
            "<pre>{}</pre>", json.dumps(obj.after, indent=2, ensure_ascii=False, sort_keys=True)
        )
