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
from games.services import play_safe

REPORT_DAYS = 30


@admin.register(PlayBreak)
class PlayBreakAdmin(ReadOnlyAdmin):
    list_display = ("user", "kind", "length_shown", "starts_at", "ends_at", "in_force")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "kind", "length_shown", "starts_at", "ends_at", "created_at")
    readonly_fields = fields

    @admin.display(description=_("length"))
    def length_shown(self, obj: PlayBreak) -> str:
        return play_safe.length_label(obj.length)

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

    list_display = ("created_at", "user", "reason")
    list_filter = ("code",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    change_list_template = "admin/games/limitrefusal/change_list.html"

    @admin.display(description=_("reason"), ordering="code")
    def reason(self, obj: LimitRefusal) -> str:
        return str(play_safe.REFUSAL_LABELS.get(obj.code, obj.code))

    def changelist_view(self, request, extra_context=None):
        since = timezone.now() - dt.timedelta(days=REPORT_DAYS)
        per_day = (
            LimitRefusal.objects.filter(created_at__gte=since)
            .annotate(day=TruncDate("created_at"))
            .values("day", "code")
            .annotate(count=Count("id"))
            .order_by("-day", "code")
        )
        rows = [
            {**row, "reason": play_safe.REFUSAL_LABELS.get(row["code"], row["code"])}
            for row in per_day
        ]
        extra_context = {**(extra_context or {}), "per_day": rows, "days": REPORT_DAYS}
        return super().changelist_view(request, extra_context)
