"""Template filters for amounts stored in minor units, written as chips."""

from __future__ import annotations

from django import template

from games import display
from games.labels import AREA_LABELS

register = template.Library()


@register.filter
def chips(units: int | None) -> str:
    return display.format_chips(units)


@register.filter
def signed_chips(units: int | None) -> str:
    return display.signed_chips(units)


@register.filter
def area_label(area: str) -> str:
    return str(AREA_LABELS.get(area, area))
