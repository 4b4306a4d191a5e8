"""The operator console's table form: amounts typed in chips and stored in
units, the paytable as one field per multiplier with its exact RTP beside it
(refreshed over htmx by ``games.views.operator.live_rtp``), and "start from
preset" filling the multipliers from ``games.presets``.

``TABLE_FORMS[game]`` is the form for a game's tables: each game edits only
the settings it uses.
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any, cast

from django import forms
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.display import format_chips
from games.labels import AREA_LABELS
from games.models import UNITS_PER_CHIP, Game, Table
from games.money import chip_units
from games.presets import MOST_CHIPS, PAY_PRESETS, reachable_max_bet
from games.selectors.dashboard import (
    LIMIT_AREAS,
    PAY_KEYS,
    LivePaytable,
    live_paytable,
    pay_figures,
)
from games.services.tables import table_snapshot

LIVE_RTP_TEMPLATE = "admin/games/table/change_form.html"
# What an operator types as a number: ASCII digits and at most one point.
# Django's DecimalField and IntegerField also take full-width digits (１０),
# exponents (1e3) and the like through Python's Decimal and int.
_PLAIN_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?|\.[0-9]+")
_PLAIN_WHOLE = re.compile(r"[0-9]+")


class PlainDecimalField(forms.DecimalField):
    def to_python(self, value: Any) -> Decimal | None:  # type: ignore[override]
        if value not in self.empty_values and not _PLAIN_DECIMAL.fullmatch(str(value).strip()):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class PlainIntegerField(forms.IntegerField):
    def to_python(self, value: Any) -> int | None:
        if value not in self.empty_values and not _PLAIN_WHOLE.fullmatch(str(value).strip()):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


# "Start from preset": the short names are games.presets.TABLE_PRESETS's.
PRESET_LABELS = {
    "social": _("Social (1 deck: TIE x8, PAIRS x10)"),
    "classic": _("Classic (8 decks: TIE x9, PAIRS x12)"),
    "war": _("War defaults (ante x2, raise x2, tie bonus x11)"),
}


def chips_value(units: int | None) -> int | Decimal | None:
    """Units as chips for a form field: a whole number when it is one."""
    if units is None:
        return None
    whole, frac = divmod(int(units), UNITS_PER_CHIP)
    return whole if frac == 0 else Decimal(units) / UNITS_PER_CHIP


def pay_text(value: Decimal) -> str:
    """A multiplier as the paytable stores it: "1.95", "9", "0" (no trailing zeros)."""
    return format(value.normalize(), "f")


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
    decks = PlainIntegerField(label=_("Decks"), min_value=1, max_value=8)
    chips = forms.CharField(
        label=_("Chip values (chips)"),
        help_text=_("Comma-separated, in chips: e.g. 0.1, 0.5, 1, 5, 25, 100."),
    )
    max_bet = PlainDecimalField(
        label=_("MAX BET per round (chips)"),
        min_value=Decimal("0.01"),
        max_digits=14,
        decimal_places=2,
    )

    class Meta:
        model = Table
        fields = (
            "name",
            "name_ja",
            "slug",
            "enabled",
            "position",
            "decks",
            "live",
            "betting_seconds",
            "squeeze_seconds",
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
        preset_field = cast(forms.ChoiceField, self.fields["preset"])
        preset_field.choices = [("", "—")] + [(k, PRESET_LABELS[k]) for k in presets]
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

    def clean_chips(self) -> list[int | float]:
        """Chip values in chips, cents allowed (the Classic table's 0.1 and 0.5),
        stored as the presets store them: whole chips as ints."""
        raw = self.cleaned_data["chips"]
        units: set[int] = set()
        for part in raw.replace("、", ",").split(","):
            part = part.strip()
            if not part:
                continue
            try:
                if not _PLAIN_DECIMAL.fullmatch(part):  # no 1e3, NaN, signs or ０-９
                    raise ValueError(part)
                value = Decimal(part)
                if not value.is_finite() or value > 1_000_000:
                    raise ValueError(part)
                units.add(chip_units(value))
            except (InvalidOperation, ValueError):
                raise forms.ValidationError(
                    gettext(
                        "Chip values are chips of 0.01 or more, in whole cents: %(value)s is not."
                    )
                    % {"value": part}
                ) from None
        if not units:
            raise forms.ValidationError(gettext("Give at least one chip value."))
        if len(units) > MOST_CHIPS:
            raise forms.ValidationError(
                gettext("A table has at most %(most)s chip values; %(count)s were given.")
                % {"most": MOST_CHIPS, "count": len(units)}
            )
        return [
            u // UNITS_PER_CHIP if u % UNITS_PER_CHIP == 0 else u / UNITS_PER_CHIP
            for u in sorted(units)
        ]

    def clean_max_bet(self) -> int:
        return int(self.cleaned_data["max_bet"] * UNITS_PER_CHIP)

    def clean_squeeze_threshold(self) -> int:
        # Declared for Baccarat tables only (see _make_table_form).
        return int(self.cleaned_data["squeeze_threshold"] * UNITS_PER_CHIP)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
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
            limits[area] = {"min": int(lo * UNITS_PER_CHIP), "max": int(hi * UNITS_PER_CHIP)}
        decks = cleaned.get("decks")
        if decks is not None and len(pays) == len(PAY_KEYS[self.game_code]):
            # What the live panel warns of, refused: a table whose house loses
            # on a bet in the long run mints chips for whoever plays it (its
            # operator included), and one whose winning bet returns less than
            # its stake takes a winner's chips.
            for figure in pay_figures(game=self.game_code, pays=pays, decks=decks):
                for warning in figure.warnings:
                    self.add_error(
                        f"pay_{figure.key}",
                        gettext("%(why)s No table may offer it.") % {"why": warning},
                    )
        reachable = reachable_max_bet(self.game_code, limits)
        if max_bet is not None and not self.errors and max_bet > reachable:
            self.add_error(
                "max_bet",
                gettext(
                    "No legal bet can reach this MAX BET: under these limits a round holds "
                    "at most %(most)s chips."
                )
                % {"most": format_chips(reachable)},
            )
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


def _chips_field() -> forms.DecimalField:
    """An amount in chips, cents allowed (the Classic table takes 0.10 bets)."""
    return PlainDecimalField(min_value=Decimal("0.01"), max_digits=14, decimal_places=2)


def _make_table_form(game: str) -> type[TableForm]:
    attrs: dict[str, Any] = {"game_code": game, "__module__": __name__}
    # Each game edits only the settings it uses: a field on the form but not
    # on the page would be "required" and never posted.
    if game == Game.BACCARAT:
        attrs["squeeze_threshold"] = PlainDecimalField(
            label=_("Squeeze threshold (chips)"),
            min_value=0,
            max_digits=14,
            decimal_places=2,
            help_text=_("A round's total bet from which the squeeze is unlocked."),
        )
    else:
        attrs["decision_timeout"] = PlainIntegerField(
            label=_("War decision timeout (seconds)"), min_value=5, max_value=3600
        )
    own = "squeeze_threshold" if game == Game.BACCARAT else "decision_timeout"
    attrs["Meta"] = type("Meta", (TableForm.Meta,), {"fields": (*TableForm.Meta.fields, own)})
    for key in PAY_KEYS[game]:
        attrs[f"pay_{key}"] = PlainDecimalField(
            min_value=0, max_digits=9, decimal_places=4, required=False, widget=PayInput
        )
    for area in LIMIT_AREAS[game]:
        attrs[f"limit_{area}_min"] = _chips_field()
        attrs[f"limit_{area}_max"] = _chips_field()
    return type(f"{game.title()}TableForm", (TableForm,), attrs)


TABLE_FORMS: dict[str, type[TableForm]] = {game: _make_table_form(game) for game in PAY_KEYS}
