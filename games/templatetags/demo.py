"""``{% demo_unavailable "csv" %}``: a feature a demo cannot use, drawn as its
disabled control with the one-line reason and a sign-up link."""

from __future__ import annotations

from django import template

from games.services.demo import UNAVAILABLE

register = template.Library()


@register.inclusion_tag("demo/unavailable.html")
def demo_unavailable(feature: str) -> dict[str, object]:
    label, reason = UNAVAILABLE[feature]
    return {"feature": feature, "label": label, "reason": reason}
