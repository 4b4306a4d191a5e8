"""The Content Security Policy in a real Chromium: signing up, playing a War
round over htmx and the table's websocket, the account page, the history and
a round's replay all run without a single policy violation.

Violations are collected two ways: the ``securitypolicyviolation`` DOM event
(recorded by a script Playwright injects before any page script, which the
policy does not govern) and the console, where Chromium reports each refusal.
"""

from __future__ import annotations

import re
import time

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.models import Profile, Table
from tests.security.conftest import CLIENT_SEED, war_seed

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} ` +
    `at ${event.sourceFile}:${event.lineNumber}`
  );
});
"""


@pytest.fixture
def violations(page: Page):
    """Every CSP violation and console error so far in the test."""
    found: list[str] = []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            found.append(f"console {message.type}: {message.text}")
            if message.type == "error" or "Content Security Policy" in message.text
            else None
        ),
    )
    page.on("pageerror", lambda error: found.append(f"page error: {error}"))

    def check() -> list[str]:
        recorded = page.evaluate("window.__cspViolations || []")
        return found + [f"violation: {v}" for v in recorded]

    return check


def assert_clean(violations) -> None:
    found = violations()
    assert not found, "\n".join(found)


def test_no_page_of_a_players_visit_violates_the_policy(
    page: Page, live_url, signed_up, orm, violations
):

    # The sign-up page and the lobby it lands on.
    assert_clean(violations)
    response = page.request.get(f"{live_url}/")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    # The War table: htmx swaps, inline card positions, the websocket.
    Profile.objects.filter(user__username=signed_up).update(
        next_server_seed=war_seed(False), client_seed=CLIENT_SEED, nonce=0
    )
    with page.expect_websocket(lambda ws: "/ws/war/casino-war/" in ws.url) as socket:
        page.goto(f"{live_url}/war/casino-war/")
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "lose")
    assert not socket.value.is_closed()  # connect-src 'self' let the socket in
    assert_clean(violations)

    # The account page: its script (a file) rewrites the next allowed max
    # bet change in the browser's time zone, which proves it ran.
    Profile.objects.filter(user__username=signed_up).update(max_bet_changed_at=timezone.now())
    page.goto(f"{live_url}/account/")
    expect(page.locator("time[data-local-time]")).to_have_attribute("data-zone", re.compile(r"."))
    assert_clean(violations)

    # The history, its filter (htmx with push-url), and the round's replay.
    page.goto(f"{live_url}/history/")
    expect(page.get_by_test_id("history-row")).to_have_count(1)
    page.get_by_test_id("history-filter").locator("select[name=game]").select_option("war")
    expect(page.get_by_test_id("history-row")).to_have_count(1)
    page.get_by_test_id("round-link").first.click()
    page.wait_for_load_state("networkidle")
    assert_clean(violations)


def test_the_baccarat_table_does_not_violate_the_policy(
    page: Page, live_url, signed_up, orm, violations
):
    """A BET and its reveal over the websocket: chip stacks, cards, roads
    (all positioned with style attributes), the sounds and the squeeze code."""
    with page.expect_websocket(lambda ws: "/ws/baccarat/baccarat-social/" in ws.url) as socket:
        page.goto(f"{live_url}/baccarat/baccarat-social/")
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("bet-total")).to_have_text("25")
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", re.compile("."))
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(1)
    assert not socket.value.is_closed()
    assert_clean(violations)


def _log_in_as_operator(page: Page, live_url: str):
    """An operator's session cookie in the browser (the admin login is Django's own)."""

    suffix = int(time.time() * 1000) % 1_000_000
    operator = get_user_model().objects.create_superuser(f"csp{suffix}", f"csp{suffix}@e.test")
    session = SessionStore()
    session[SESSION_KEY] = str(operator.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = operator.get_session_auth_hash()
    session.create()
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": live_url}]
    )


def test_the_operators_table_editor_does_not_violate_the_policy(
    page: Page, live_url, orm, violations
):

    _log_in_as_operator(page, live_url)
    table = Table.objects.get(slug="baccarat-classic")
    page.goto(f"{live_url}/admin/games/table/{table.pk}/change/")
    expect(page.get_by_test_id("rtp-tie")).to_be_visible()
    # Only the policy counts here: the admin's pages link no icon, so Chromium's
    # own /favicon.ico request is a 404 in the console.
    found = [v for v in violations() if "Content Security Policy" in v or v.startswith("violation")]
    assert not found, "\n".join(found)
