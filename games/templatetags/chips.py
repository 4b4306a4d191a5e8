"""Display amounts stored in minor units as chips: ``1,234`` or ``1,234.5``."""

from __future__ import annotations

from django import template

from games.models import UNITS_PER_CHIP

register = template.Library()


def format_chips(units: int | None) -> str:
    if units is None:
        return ""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(int(units)), UNITS_PER_CHIP)
    text = f"{whole:,}"
    if frac:
        text += f".{frac:02d}".rstrip("0")
    return sign + text


@register.filter
def chips(units: int | None) -> str:
    return format_chips(units)


@register.filter
def signed_chips(units: int | None) -> str:
    if units is None:
        return ""
    return ("+" if units > 0 else "") + format_chips(units)


@register.filter
def area_label(area: str) -> str:
    from games.labels import AREA_LABELS

    return str(AREA_LABELS.get(area, area))
