"""{% translate %} with constant messages kept per language
(casino/templatetags/kept_i18n.py): the page still speaks the player's
language, whichever language rendered the template first."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.template import engines
from django.template.loader import get_template
from django.utils import translation

from casino.templatetags.kept_i18n import KeptTranslateNode


def _template(source: str):
    return engines["django"].from_string("{% load kept_i18n %}" + source)


def test_a_kept_message_follows_the_language_of_each_render():
    page = _template('<a>{% translate "Lobby" %}</a>')
    seen = []
    for language in ("en", "ja", "en", "ja"):
        with translation.override(language):
            seen.append(page.render({}))
    assert seen == ["<a>Lobby</a>", "<a>ロビー</a>", "<a>Lobby</a>", "<a>ロビー</a>"]


def test_only_constant_messages_are_kept():
    page = _template(
        '{% translate "Lobby" %}|{% translate word %}|{% translate "Lobby" as x %}{{ x }}'
        '|{% translate "Lobby"|upper %}|{% translate "May" context "month name" %}'
    )
    kept = [n for n in page.template.nodelist if isinstance(n, KeptTranslateNode)]
    assert len(kept) == 1
    with translation.override("ja"):
        assert page.render({"word": "Lobby"}) == "ロビー|ロビー|ロビー|ロビー|May"
        # A variable message is translated afresh each time.
        assert page.render({"word": "Rules"}).split("|")[1] != "ロビー"


def test_every_site_template_loads_the_kept_library():
    """A template that loads Django's i18n still works, only slower: none of
    the site's own does."""
    root = Path(settings.BASE_DIR) / "templates"
    loads = re.compile(r"{%\s*load\s+([^%]*?)\s*%}")
    slow = [
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        for match in loads.finditer(path.read_text(encoding="utf-8"))
        if "i18n" in match.group(1).split()
    ]
    assert slow == []
    table = get_template("baccarat/table.html").template
    assert table.nodelist.get_nodes_by_type(KeptTranslateNode)
