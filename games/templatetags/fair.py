"""The round page's in-browser VERIFY and standalone snippet:
``{% round_verify_data report %}`` writes the JSON static/js/verify.js reads,
``{% round_snippet round %}`` the Python program a player can copy, and
``|pyliteral`` writes a value as a Python literal inside that program."""

from __future__ import annotations

import math

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from games.models import Round
from games.presenters import fair as presenter
from games.selectors.round_report import RoundReport

register = template.Library()


@register.simple_tag
def round_verify_data(report: RoundReport) -> SafeString:
    return json_script(presenter.round_verify_data(report), "verify-data")


@register.simple_tag(takes_context=True)
def round_snippet(context: template.Context, rnd: Round) -> str:
    """The snippet's text, plain (not marked safe): the page escapes it like
    any other text, so a client seed such as ``</pre><script>`` stays text.
    It reads the log at this site's /log/, under the page's ``log_key`` and
    at its ``log_index`` when the page has them."""
    request = context.get("request")
    return presenter.round_snippet(
        rnd,
        log_url=request.build_absolute_uri("/log") if request else None,
        log_key=context.get("log_key"),
        log_index=context.get("log_index"),
    )


@register.filter
def pyliteral(value: object) -> str:
    """A value of the round (None, a bool, a number, a string, or lists and
    dicts of them) as a Python literal on one line, ASCII only: ``ascii()``
    escapes quotes, backslashes, line breaks and every non-ASCII character, so
    no client seed can end the literal or the line it sits on."""
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        # inf and nan have no literal; JSON fields may still hold them.
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(pyliteral(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{pyliteral(k)}: {pyliteral(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return ascii(str(value))
