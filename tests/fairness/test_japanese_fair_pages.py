"""The fairness page and a round's page in Japanese have no word in Latin
letters outside code: not even the game's terms or names such as Python,
which the wider scan of tests/games/test_japanese_pages.py allows. What stays
in Latin letters is code (``<code>``, ``<pre>``, ``<kbd>``), a time stamp
(``<time>``), the drawing of a card (``aria-hidden``) and a name written in
its own language (``lang="en"``: the language switch's "English")."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from django.urls import reverse
from django.utils import translation

from games.presenters.fair import verifier_labels
from tests.games.views.test_history_views import baccarat_round, war_round

JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}
CODE = {"code", "pre", "kbd", "time", "script", "style"}
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class ShownText(HTMLParser):
    """The text a Japanese reader sees, and the attributes read aloud."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: is its text code or not Japanese?
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        shown = dict(attrs)
        skipped = (
            (bool(self.open) and self.open[-1])
            or tag in CODE
            or shown.get("aria-hidden") == "true"
            or (shown.get("lang") or "ja") != "ja"
        )
        if not skipped:
            self.words += [shown[a] or "" for a in ("title", "aria-label", "alt") if a in shown]
        if tag not in VOID:
            self.open.append(skipped)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if not (self.open and self.open[-1]):
            self.words.append(data)


def latin_words(page: str) -> list[str]:
    parser = ShownText()
    parser.feed(page)
    return sorted(set(re.findall(r"[A-Za-z]+", " ".join(parser.words))))


def test_the_japanese_fair_page_has_no_latin_word_outside_code(client, db):
    page = client.get(reverse("fair"), **JA).content.decode()
    assert 'data-testid="fair-log"' in page
    assert latin_words(page) == []


def test_a_japanese_round_page_has_no_latin_word_outside_code(client, make_player):
    player = make_player("やまだ")  # a Latin name would be data on the page
    rounds = [baccarat_round(player), war_round(player)]
    client.force_login(player)
    for rnd in rounds:
        page = client.get(reverse("history_round", args=[rnd.pk]), **JA).content.decode()
        assert 'data-testid="log-index"' in page
        assert latin_words(page) == [], rnd.game


def test_the_words_verify_js_shows_in_japanese_have_no_latin_word():
    """The browser's VERIFY and log check write these into the page; only
    their %(placeholders)s are filled with data."""

    def sentences(labels: object) -> list[str]:
        if isinstance(labels, dict):
            return [s for value in labels.values() for s in sentences(value)]
        return [re.sub(r"%\(\w+\)s", "", str(labels))]

    with translation.override("ja"):
        found = [s for s in sentences(verifier_labels()) if re.search("[A-Za-z]", s)]
    assert found == []


def test_the_scan_finds_a_latin_word_in_prose_and_passes_code():
    assert latin_words("<p>シード <b>nonce</b></p>") == ["nonce"]
    assert latin_words('<p title="VERIFY">検証</p>') == ["VERIFY"]
    assert latin_words("<p><code>nonce</code> <kbd>BET</kbd><pre>x <b>y</b></pre>です</p>") == []
    assert latin_words('<p><span lang="en">English</span><i aria-hidden="true">K</i></p>') == []
