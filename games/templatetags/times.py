"""Times as every page writes them: ``{% local_time value %}`` gives a
``<time>`` in UTC, named as such (what a browser without JavaScript shows),
which static/js/times.js rewrites in the browser's own time zone;
``{% local_zone %}`` names that zone in a heading ("Time (UTC)");
``{% local_times_script %}`` loads the script."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def local_time(value: datetime | None, precision: str = "seconds") -> SafeString | str:
    """``precision``: "seconds" or "minutes"."""
    if value is None:
        return "—"
    utc = value.astimezone(UTC)
    shown = utc.strftime("%Y-%m-%d %H:%M:%S" if precision == "seconds" else "%Y-%m-%d %H:%M")
    return format_html(
        '<time datetime="{}" data-local-time="{}">{} UTC</time>',
        utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "minutes" if precision == "minutes" else "seconds",
        shown,
    )


@register.simple_tag
def local_zone() -> SafeString:
    return mark_safe("<span data-local-zone>UTC</span>")


@register.simple_tag
def local_times_script() -> SafeString:
    return format_html('<script type="module" src="{}"></script>', static("js/times.js"))
