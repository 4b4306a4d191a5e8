"""The operator console (Django admin).

Tables are edited through a form that shows amounts in chips and the
paytable as one field per multiplier, each with its exact RTP beside it,
refreshed over htmx while the operator types (``games.views.operator``).
Saving goes through ``games.services.tables.save_table``: a change to the
paytable or limits makes a new TableVersion (rounds in progress keep theirs)
and every change is written to the audit log. Wallets, the ledger, rounds and
the audit log are read-only here; chips move only through the adjustment
screen, which calls ``games.services.wallet.adjust_balance``.

Permissions are Django's model permissions: ``games.change_table`` edits
tables, ``games.change_wallet`` adjusts balances, the view permissions only
look.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.labels import AREA_LABELS
from games.models import (
    UNITS_PER_CHIP,
    AuditEntry,
    Game,
    LedgerEntry,
    Profile,
    Round,
    Table,
    TableVersion,
    Wallet,
)
from games.services.dashboard import (
    LIMIT_AREAS,
    PAY_KEYS,
    PAY_PRESETS,
    LivePaytable,
    live_paytable,
)
from games.services.tables import PRESETS, save_table, table_snapshot
from games.display import format_chips

LIVE_RTP_TEMPLATE = "admin/games/table/change_form.html"
# "Start from preset" on the add page: the SPEC presets by a short name.
TABLE_PRESETS: dict[str, dict[str, Any]] = {
    "social": next(p for p in PRESETS if p["slug"] == "baccarat-social"),
    "classic": next(p for p in PRESETS if p["slug"] == "baccarat-classic"),
    "war": next(p for p in PRESETS if p["slug"] == "casino-war"),
}
PRESET_LABELS = {
    "social": _("Social (1 deck: TIE x8, PAIRS x10)"),
    "classic": _("Classic (8 decks: TIE x9, PAIRS x12)"),
    "war": _("War defaults (ante x2, raise x2, tie bonus x11)"),
}
VERSIONS_SHOWN = 10

admin.site.site_header = _("The Casino · operator console")
admin.site.site_title = _("The Casino operator console")
admin.site.index_title = _("Tables, players and the audit log")


def chips_value(units: int | None) -> int | Decimal | None:
    """Units as chips for a form field: a whole number when it is one."""
    if units is None:
        return None
    whole, frac = divmod(int(units), UNITS_PER_CHIP)
    return whole if frac == 0 else Decimal(units) / UNITS_PER_CHIP


def pay_text(value: Decimal) -> str:
    """A multiplier as the paytable stores it: "1.95", "9", "0" (no trailing zeros)."""
    return format(value.normalize(), "f")


def pays_line(pays: dict[str, str]) -> str:
    return " · ".join(f"{AREA_LABELS.get(k, k)} x{v}" for k, v in pays.items())


def limits_line(limits: dict[str, dict[str, int]]) -> str:
    return " · ".join(
        f"{AREA_LABELS.get(area, area)} {format_chips(lim.get('min'))}–{format_chips(lim.get('max'))}"
        for area, lim in limits.items()
    )


# --- Table form ----------------------------------------------------------------


class PayInput(forms.NumberInput):
    """A multiplier input with its live RTP figure beside it.

    The form sets ``live`` (a callable giving the LivePaytable for the values
    shown) and ``pay_key`` on its own copy of the widget.
    """

    live = None
    pay_key = ""

    def render(self, name, value, attrs=None, renderer=None) -> SafeString:
        html = super().render(name, value, attrs, renderer)
        if self.live is None:
            return html
        figure = next((f for f in self.live().figures if f.key == self.pay_key), None)
        if figure is None:
            return html
        extra = render_to_string(f"{LIVE_RTP_TEMPLATE}#rtp_figure", {"figure": figure})
        return SafeString(html + extra)


class TableForm(forms.ModelForm):
    """Base form; ``TABLE_FORMS[game]`` (made by ``_make_table_form``) adds
    the game's multiplier and MIN/MAX fields. Amounts are typed in chips and
    stored in units."""

    game_code = "baccarat"

    preset = forms.ChoiceField(
        label=_("Start from preset"),
        required=False,
        help_text=_(
            "Fills the multipliers with a preset's paytable; any multiplier left blank "
            "takes the preset's value when saved."
        ),
    )
    decks = forms.IntegerField(label=_("Decks"), min_value=1, max_value=8)
    chips = forms.CharField(
        label=_("Chip values (chips)"),
        help_text=_("Comma-separated whole chips, e.g. 1, 5, 25, 100, 500."),
    )
    max_bet = forms.IntegerField(label=_("MAX BET per round (chips)"), min_value=1)

    class Meta:
        model = Table
        fields = (
            "name",
            "slug",
            "enabled",
            "position",
            "decks",
            "chips",
            "max_bet",
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        given = set((kwargs.get("initial") or {}).keys())
        super().__init__(*args, **kwargs)
        table = self.instance
        if table.pk is None:
            table.game = self.game_code
        # What save_table compares against: taken before the form writes to
        # the instance (the admin hands us the same object it will save).
        self.before = copy.deepcopy(table_snapshot(table)) if table.pk else None
        for name, value in initial_from_table(table).items():
            if name not in given:
                self.initial[name] = value
        presets = PAY_PRESETS[self.game_code]
        self.fields["preset"].choices = [("", "—")] + [(k, PRESET_LABELS[k]) for k in presets]
        self.fields["preset"].widget.attrs.update(
            {"data-presets": json.dumps(presets), "class": "table-preset"}
        )
        live_url = reverse("admin:games_table_rtp", args=[self.game_code])
        htmx = {
            "hx-post": live_url,
            "hx-trigger": "input changed delay:300ms",
            "hx-target": "#live-rtp",
            "hx-swap": "outerHTML",
            "hx-sync": "closest form:replace",
        }
        for key in PAY_KEYS[self.game_code]:
            field = self.fields[f"pay_{key}"]
            field.label = gettext("%(area)s multiplier") % {"area": AREA_LABELS[key]}
            field.widget.attrs.update(htmx)
            field.widget.attrs["data-pay"] = key
            field.widget.live = self.live_paytable
            field.widget.pay_key = key
        for area in LIMIT_AREAS[self.game_code]:
            label = AREA_LABELS[area]
            self.fields[f"limit_{area}_min"].label = gettext("%(area)s MIN (chips)") % {
                "area": label
            }
            self.fields[f"limit_{area}_max"].label = gettext("%(area)s MAX (chips)") % {
                "area": label
            }
        self.fields["decks"].widget.attrs.update(htmx)
        self._live: LivePaytable | None = None

    def live_paytable(self) -> LivePaytable:
        """Figures for the values on screen: as typed when the form is bound."""
        if self._live is None:
            source = self.data if self.is_bound else self.initial
            pays = {key: source.get(f"pay_{key}") for key in PAY_KEYS[self.game_code]}
            self._live = live_paytable(game=self.game_code, decks=source.get("decks"), pays=pays)
        return self._live

    def clean_chips(self) -> list[int]:
        raw = self.cleaned_data["chips"]
        values = []
        for part in raw.replace("、", ",").split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit() or int(part) < 1:
                raise forms.ValidationError(
                    gettext("Chip values are whole chips of 1 or more: %(value)s is not.")
                    % {"value": part}
                )
            values.append(int(part))
        if not values:
            raise forms.ValidationError(gettext("Give at least one chip value."))
        return sorted(set(values))

    def clean_max_bet(self) -> int:
        return self.cleaned_data["max_bet"] * UNITS_PER_CHIP

    def clean_squeeze_threshold(self) -> int:
        # Declared for Baccarat tables only (see _make_table_form).
        return self.cleaned_data["squeeze_threshold"] * UNITS_PER_CHIP

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        preset = PAY_PRESETS[self.game_code].get(cleaned.get("preset") or "")
        pays: dict[str, str] = {}
        for key in PAY_KEYS[self.game_code]:
            name = f"pay_{key}"
            value = cleaned.get(name)
            if value is None and name not in self.errors:
                if preset is None:
                    self.add_error(name, gettext("Enter a multiplier or choose a preset."))
                    continue
                value = Decimal(preset[key])
            if value is not None:
                pays[key] = pay_text(value)
        limits: dict[str, dict[str, int]] = {}
        max_bet = cleaned.get("max_bet")
        for area in LIMIT_AREAS[self.game_code]:
            lo = cleaned.get(f"limit_{area}_min")
            hi = cleaned.get(f"limit_{area}_max")
            if lo is None or hi is None:
                continue
            if hi < lo:
                self.add_error(f"limit_{area}_max", gettext("MAX must be at least MIN."))
                continue
            if max_bet is not None and lo * UNITS_PER_CHIP > max_bet:
                self.add_error(
                    f"limit_{area}_min",
                    gettext("MIN is over the MAX BET per round: nobody could bet here."),
                )
                continue
            limits[area] = {"min": lo * UNITS_PER_CHIP, "max": hi * UNITS_PER_CHIP}
        if not self.errors:
            # Not model form fields: written to the instance here, saved by save_table.
            self.instance.pays = pays
            self.instance.limits = limits
        return cleaned


def initial_from_table(table: Table) -> dict[str, Any]:
    """The table form's values for ``table``, in chips."""
    initial: dict[str, Any] = {
        "decks": table.decks,
        "chips": ", ".join(str(c) for c in table.chips or []),
        "max_bet": chips_value(table.max_bet),
        "squeeze_threshold": chips_value(table.squeeze_threshold),
        "decision_timeout": table.decision_timeout,
    }
    game = table.game or "baccarat"
    for key in PAY_KEYS[game]:
        if key in (table.pays or {}):
            initial[f"pay_{key}"] = Decimal(str(table.pays[key]))
    for area in LIMIT_AREAS[game]:
        limit = (table.limits or {}).get(area)
        if limit:
            initial[f"limit_{area}_min"] = chips_value(limit.get("min"))
            initial[f"limit_{area}_max"] = chips_value(limit.get("max"))
    return initial


def _make_table_form(game: str) -> type[TableForm]:
    attrs: dict[str, Any] = {"game_code": game, "__module__": __name__}
    # Each game edits only the settings it uses: a field on the form but not
    # on the page would be "required" and never posted.
    if game == Game.BACCARAT:
        attrs["squeeze_threshold"] = forms.IntegerField(
            label=_("Squeeze threshold (chips)"),
            min_value=0,
            help_text=_("A round's total bet from which the squeeze is unlocked."),
        )
    else:
        attrs["decision_timeout"] = forms.IntegerField(
            label=_("War decision timeout (seconds)"), min_value=5, max_value=3600
        )
    own = "squeeze_threshold" if game == Game.BACCARAT else "decision_timeout"
    attrs["Meta"] = type("Meta", (TableForm.Meta,), {"fields": (*TableForm.Meta.fields, own)})
    for key in PAY_KEYS[game]:
        attrs[f"pay_{key}"] = forms.DecimalField(
            min_value=0, max_digits=9, decimal_places=4, required=False, widget=PayInput
        )
    for area in LIMIT_AREAS[game]:
        attrs[f"limit_{area}_min"] = forms.IntegerField(min_value=1)
        attrs[f"limit_{area}_max"] = forms.IntegerField(min_value=1)
    return type(f"{game.title()}TableForm", (TableForm,), attrs)


TABLE_FORMS: dict[str, type[TableForm]] = {game: _make_table_form(game) for game in PAY_KEYS}


# --- Admin classes ---------------------------------------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


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
        "game",
        "decks",
        "enabled",
        "max_bet_chips",
        "pays_summary",
        "current_version",
    )
    list_filter = ("game", "enabled")
    actions = ("close_tables", "open_tables")
    change_form_template = "admin/games/table/change_form.html"

    class Media:
        css = {"all": ("css/admin.css",)}
        js = ("js/admin_rtp.js",)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Rounds point at tables and their versions: close a table instead.
        return False

    def get_urls(self):
        from games.views import operator

        wrap = self.admin_site.admin_view
        return [
            path("rtp/<str:game>/", wrap(operator.live_rtp), name="games_table_rtp"),
            path("dashboard/", wrap(operator.dashboard), name="games_dashboard"),
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
        table_fields: tuple[Any, ...] = ("name", "slug", "game", "enabled", "position", "decks")
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
        fields = {k: v for k, v in preset.items() if k not in ("name", "slug", "position")}
        initial.update(initial_from_table(Table(**fields)))
        return initial

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "table_presets": [(key, PRESET_LABELS[key]) for key in TABLE_PRESETS],
        }
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change) -> None:
        save_table(table=obj, actor=request.user, before=form.before)
        for _key, warning in form.live_paytable().warnings:
            messages.warning(request, warning)

    def _set_enabled(self, request: HttpRequest, queryset: QuerySet[Table], enabled: bool) -> int:
        changed = 0
        for table in queryset:
            if table.enabled == enabled:
                continue
            before = table_snapshot(table)
            table.enabled = enabled
            save_table(table=table, actor=request.user, before=copy.deepcopy(before))
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
        versions = list(
            TableVersion.objects.filter(table=obj)
            .select_related("created_by")
            .order_by("-number")[:VERSIONS_SHOWN]
        )
        total = TableVersion.objects.filter(table=obj).count()
        rows = format_html_join(
            "",
            '<tr data-testid="version-row"><td><a href="{}">v{}</a></td><td>{}</td><td>{}</td>'
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:games_tableversion_change", args=[v.pk]),
                    v.number,
                    v.created_at.strftime("%Y-%m-%d %H:%M"),
                    v.created_by or "—",
                    v.decks,
                    pays_line(v.pays),
                    limits_line(v.limits),
                    format_chips(v.max_bet),
                )
                for v in versions
            ),
        )
        link = format_html(
            '<a href="{}?table__id__exact={}">{}</a>',
            reverse("admin:games_tableversion_changelist"),
            obj.pk,
            gettext("All %(count)s versions") % {"count": total},
        )
        return format_html(
            '<table class="version-history"><thead><tr><th>{}</th><th>{}</th><th>{}</th>'
            "<th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>"
            "<p>{}</p>",
            gettext("version"),
            gettext("created"),
            gettext("by"),
            gettext("decks"),
            gettext("paytable"),
            gettext("limits (chips)"),
            gettext("MAX BET"),
            rows,
            link,
        )


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


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    """Balances are never edited in place: the adjustment screen posts a
    ledger row through the wallet service."""

    list_display = ("user", "balance_chips", "last_topup_on", "updated_at")
    search_fields = ("user__username",)
    fields = ("user", "balance_chips", "last_topup_on", "updated_at")
    readonly_fields = fields
    actions = ("adjust_balances",)
    change_form_template = "admin/games/wallet/change_form.html"

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_wallet")

    def get_urls(self):
        from games.views import operator

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
        "total_bet",
        "total_return",
        "created_at",
    )
    list_filter = ("game", "status", "table")
    search_fields = ("player__username",)


@admin.register(Profile)
class ProfileAdmin(ReadOnlyAdmin):
    list_display = ("user", "nonce", "personal_max_bet")


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


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
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
        return format_html_join(
            mark_safe("<br>"),  # a constant separator
            "{}: {} → {}",
            ((k, _short(b), _short(a)) for k, b, a in self._changed(obj)),
        )

    @admin.display(description=_("before → after"))
    def changes_table(self, obj: AuditEntry) -> SafeString:
        return format_html(
            '<table class="audit-changes">{}</table>',
            format_html_join(
                "",
                "<tr><th>{}</th><td><code>{}</code></td><td>→</td><td><code>{}</code></td></tr>",
                (
                    (k, json.dumps(b, ensure_ascii=False), json.dumps(a, ensure_ascii=False))
                    for k, b, a in self._changed(obj)
                ),
            ),
        )

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
