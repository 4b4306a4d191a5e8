"""Players' own controls in the operator console: loss limits, time-outs
and self-exclusions, and the refusals they caused per day. All read-only,
for superusers too: a break is the player's and nobody ends it early
(``PlayBreak`` itself refuses a change or a delete)."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.admin.base import ReadOnlyAdmin
from games.display import format_chips
from games.models import LimitRefusal, LossLimit, PlayBreak

REPORT_DAYS = 30


@admin.register(PlayBreak)
class PlayBreakAdmin(ReadOnlyAdmin):
    list_display = ("user", "kind", "length", "starts_at", "ends_at", "in_force")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "kind", "length", "starts_at", "ends_at", "created_at")
    readonly_fields = fields

    @admin.display(description=_("in force"), boolean=True)
    def in_force(self, obj: PlayBreak) -> bool:
        return obj.starts_at <= timezone.now() < obj.ends_at


@admin.register(LossLimit)
class LossLimitAdmin(ReadOnlyAdmin):
    list_display = ("user", "period", "limit_chips", "requested_at", "effective_at", "cancelled_at")
    list_filter = ("period",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "period", "limit_chips", "requested_at", "effective_at", "cancelled_at")
    readonly_fields = fields

    @admin.display(description=_("limit (chips)"), ordering="amount")
    def limit_chips(self, obj: LossLimit) -> str:
        return str(_("none")) if obj.amount is None else format_chips(obj.amount)


@admin.register(LimitRefusal)
class LimitRefusalAdmin(ReadOnlyAdmin):
    """The report: refusals by the players' own controls, counted per day."""

    list_display = ("created_at", "user", "code")
    list_filter = ("code",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    change_list_template = "admin/games/limitrefusal/change_list.html"

    def changelist_view(self, request, extra_context=None):
        since = timezone.now() - dt.timedelta(days=REPORT_DAYS)
        per_day = (
            LimitRefusal.objects.filter(created_at__gte=since)
            .annotate(day=TruncDate("created_at"))
            .values("day", "code")
            .annotate(count=Count("id"))
            .order_by("-day", "code")
        )
        extra_context = {**(extra_context or {}), "per_day": list(per_day), "days": REPORT_DAYS}
        return super().changelist_view(request, extra_context)
