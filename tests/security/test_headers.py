"""Every page carries a Content Security Policy and the usual security
headers, and no page needs the policy loosened: no inline scripts, no inline
event handlers, no hx-on, no eval.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Profile, Round, Table
from games.services import war as war_service
from tests.security.conftest import EN, HTMX, war_seed

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.fixture
def player(make_player):
    user = make_player(chips=100)
    Profile.objects.filter(user=user).update(
        next_server_seed=war_seed(False), client_seed="security-sweep", nonce=0
    )
    war_service.deal(
        user=user, table=Table.objects.get(slug="casino-war"), ante=500, tie_bet=0, slip_key="h"
    )
    return user


@pytest.fixture
def browser(player) -> Client:
    client = Client()
    client.force_login(player)
    return client


def page_urls(player) -> list[str]:
    rnd = Round.objects.filter(player=player).first()
    return [
        reverse("lobby"),
        reverse("war_table", args=["casino-war"]),
        reverse("war_rules", args=["casino-war"]),
        reverse("baccarat_table", args=["baccarat-social"]),
        reverse("baccarat_rules", args=["baccarat-social"]),
        reverse("baccarat_roads", args=["baccarat-social"]),
        reverse("baccarat_settings"),
        reverse("account"),
        reverse("history"),
        reverse("history_round", args=[rnd.pk]),
        reverse("password_change"),
    ]


def assert_security_headers(response) -> None:
    csp = policy(response)
    assert csp["default-src"] == ["'self'"]
    assert "'self'" in csp["script-src"]
    assert "'unsafe-inline'" not in csp["script-src"]
    assert "'unsafe-eval'" not in csp["script-src"]
    assert "'unsafe-inline'" not in csp["style-src"]
    assert csp["connect-src"] == ["'self'"]  # the same-origin websocket included
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"]
    assert csp["form-action"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def test_every_page_sends_the_policy_and_the_security_headers(browser, player):
    for url in page_urls(player):
        response = browser.get(url, **EN)
        assert response.status_code == 200, url
        assert_security_headers(response)


def test_pages_for_visitors_send_them_too(db):
    for url in (reverse("login"), reverse("signup")):
        response = Client().get(url, **EN)
        assert response.status_code == 200
        assert_security_headers(response)


def test_fragments_and_refusals_send_them_too(browser):
    response = browser.post(
        reverse("war_deal", args=["casino-war"]), {"ante": "-1", "slip_key": "x"}, **HTMX
    )
    assert 'class="war-message error"' in response.content.decode()
    assert_security_headers(response)
    response = browser.get(reverse("history"), **HTMX)
    assert_security_headers(response)


class InlineCode(HTMLParser):
    """Collects what the policy would block: inline scripts and styles,
    on*= handlers, hx-on, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.htmx_config: str | None = None
        self._in_inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script":
            kind = (named.get("type") or "").lower()
            if not named.get("src") and kind != "application/json":
                self.problems.append(f"inline <script> {named}")
                self._in_inline_script = True
        if tag == "style":
            self.problems.append("inline <style>")
        if tag == "meta" and named.get("name") == "htmx-config":
            self.htmx_config = named.get("content")
        for name, value in attrs:
            if name.startswith("on") or name.startswith(("hx-on", "data-hx-on")):
                self.problems.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action", "formaction") and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value}>")
            if name in ("hx-vals", "hx-vars") and (value or "").strip().startswith(
                ("js:", "javascript:")
            ):
                self.problems.append(f"<{tag} {name}={value}> needs eval")
            if name == "hx-trigger" and "[" in (value or ""):
                self.problems.append(f"<{tag} hx-trigger={value}> filter needs eval")


def inline_code(html: str) -> InlineCode:
    parser = InlineCode()
    parser.feed(html)
    return parser


def test_rendered_pages_carry_no_inline_code(browser, player):
    for url in page_urls(player) + [reverse("signup")]:
        html = browser.get(url, **EN).content.decode()
        found = inline_code(html)
        assert found.problems == [], (url, found.problems)


def test_htmx_is_told_not_to_inject_styles_or_eval(browser):
    found = inline_code(browser.get(reverse("lobby"), **EN).content.decode())
    assert found.htmx_config is not None
    assert '"includeIndicatorStyles": false' in found.htmx_config
    assert '"allowEval": false' in found.htmx_config


INLINE_IN_TEMPLATE = [
    (re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style\b", re.I), "inline <style>"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "on*= handler"),
    (re.compile(r"\b(data-)?hx-on", re.I), "hx-on"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
    (re.compile(r"hx-(vals|vars)='\s*(js|javascript):", re.I), "hx-vals js: (eval)"),
    (re.compile(r'hx-trigger="[^"]*\[', re.I), "hx-trigger filter (eval)"),
]


def test_no_template_needs_the_policy_loosened():
    """Every template, the ones not rendered above included (admin, partials)."""
    problems = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text()
        for pattern, what in INLINE_IN_TEMPLATE:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                problems.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert problems == []


def test_no_script_evaluates_strings():
    problems = []
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        text = path.read_text()
        for pattern in (
            r"\beval\s*\(",
            r"\bnew\s+Function\s*\(",
            r"set(Timeout|Interval)\s*\(\s*['\"`]",
        ):
            if re.search(pattern, text):
                problems.append(f"{path.relative_to(ROOT)}: {pattern}")
    assert problems == []
