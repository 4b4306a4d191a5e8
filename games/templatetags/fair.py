"""The round page's in-browser VERIFY and standalone snippet:
``{% round_verify_data report %}`` writes the JSON static/js/verify.js reads,
``{% round_snippet round %}`` the Python program a player can copy, and
``|pyliteral`` writes a value as a Python literal inside that program."""

from __future__ import annotations

import json

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


@register.simple_tag
def round_snippet(rnd: Round) -> str:
    """The snippet's text; the page escapes it like any other text."""
    return presenter.round_snippet(rnd)


@register.filter
def pyliteral(value: object) -> str:
    """A string, number or list of strings as a Python literal (JSON's
    escapes, ASCII only, are Python's too)."""
    return json.dumps(value, ensure_ascii=True)
