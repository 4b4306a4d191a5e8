"""What the browser tests share: a user's session put in a browser,
waiting for what the server stores, and whether what a screen needs is in
sight.

The server commits in a process of its own, a moment after the page's
request or socket message went out; the page's own state is awaited with
Playwright's ``expect``, the database's with ``eventually``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Round
from games.services import play_safe
from games.services.wallet import open_account

T = TypeVar("T")

# A test that looks at motion, or at a page while things move on it (the
# deal's slides, a win's count-up and chip shower, the glows, the roads'
# blink): its pages animate as a player's do, not reduced as in the other
# browser tests (tests/conftest.py's browser_context_args).
MOVING = {"reduced_motion": "no-preference"}
MOTION = pytest.mark.browser_context_args(**MOVING)

PASSWORD = "pw-Secret-123"  # every browser player's


def eventually(read: Callable[[], T | None], what: str, seconds: float = 10) -> T:
    """The first value ``read()`` gives that is neither None nor false,
    asked again every 50 ms; fails saying ``what`` never came."""
    deadline = time.monotonic() + seconds
    while not (value := read()):
        assert time.monotonic() < deadline, f"{what} never came"
        time.sleep(0.05)
    return value


def stored_round(
    player, *, game: str | None = None, after: int = 0, settled: bool = False
) -> Round:
    """The latest round of ``player`` (a user or a username), once the
    server has stored it: of ``game`` only, newer than round ``after``, and
    with ``settled`` only once it no longer waits for a decision."""
    rounds = Round.objects.filter(pk__gt=after).order_by("-pk")
    if isinstance(player, str):
        rounds = rounds.filter(player__username=player)
    else:
        rounds = rounds.filter(player=player)
    if game is not None:
        rounds = rounds.filter(game=game)

    def latest() -> Round | None:
        rnd = rounds.first()
        return None if rnd is None or (settled and rnd.status == Round.Status.OPEN) else rnd

    return eventually(latest, "the round")


def log_in(context, live_url: str, user, **values) -> None:
    """Put the user's session cookie in a browser context (no password
    hashing: the login form is Django's own and tested there), the session
    holding ``values`` besides."""
    session = SessionStore()
    session.update(values)
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": live_url}]
    )


def seat_at_live_table(browser, context_args, live_url, password_hash, name: str, size: dict):
    """A new player at the live table in a browser of ``size``, its socket
    open, the cards sliding in as a player sees them: (page, user)."""
    user = get_user_model().objects.create(
        username=f"{name}{timezone.now().timestamp():.0f}", password=password_hash
    )
    open_account(user=user)
    now = timezone.now()
    play_safe.start_session(user=user, now=now)
    context = browser.new_context(**{**context_args, **MOVING, "viewport": size})
    log_in(context, live_url, user, **{play_safe.SESSION_STARTED: now.isoformat()})
    page = context.new_page()
    page.goto(f"{live_url}/baccarat/baccarat-live/")
    expect(page.locator("body")).to_have_attribute("data-ws", "open")
    return page, user


# The live table's betting clock is open with at least ``seconds`` left.
_FRESH_WINDOW = """(seconds) => {
  const clock = document.querySelector("[data-testid=live-clock]");
  return clock !== null && clock.dataset.state === "open" && Number(clock.textContent) >= seconds;
}"""


def wait_for_fresh_window(page, seconds: int) -> None:
    """Wait for a live betting window with ``seconds`` or more left (a new
    shoe's first window opens again until somebody bets): under make test's
    load, a window found nearly over closed between a bet and its note."""
    page.wait_for_function(_FRESH_WINDOW, arg=seconds, polling=200, timeout=30_000)


# Whether an element is wholly inside the viewport and is what a tap at its
# corners and at its centre would reach. The corners are taken a little in,
# past rounded edges: on a round chip or spot, where the circle passes.
UNCOVERED = """
(el) => {
  const r = el.getBoundingClientRect();
  const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
    && r.right <= window.innerWidth && r.bottom <= window.innerHeight;
  const radius = getComputedStyle(el).borderTopLeftRadius;
  const side = Math.min(r.width, r.height);
  const round = radius.endsWith("%") ? parseFloat(radius) >= 50 : parseFloat(radius) >= side / 2 - 1;
  const inset = round ? side * 0.17 : 4 + 0.3 * (parseFloat(radius) || 0);
  const dx = Math.min(inset, r.width / 4), dy = Math.min(inset, r.height / 4);
  const points = [
    [r.left + r.width / 2, r.top + r.height / 2],
    [r.left + dx, r.top + dy], [r.right - dx, r.top + dy],
    [r.left + dx, r.bottom - dy], [r.right - dx, r.bottom - dy],
  ];
  const covered = points.map(([x, y]) => document.elementFromPoint(x, y))
    .filter((hit) => !(hit && (hit === el || el.contains(hit))))
    .map((hit) => (hit ? hit.dataset.testid || hit.id || hit.className || hit.nodeName : null));
  return { inside, covered, box: [r.left, r.top, r.right, r.bottom].map(Math.round) };
}
"""


def past_the_sides(page) -> int:
    """How many pixels the page reaches past the screen's sides (0 when
    none): a page that does pans sideways under the player's thumb, and a
    dialog opened on it is cut off (WCAG 1.4.10, reflow)."""
    return page.evaluate(
        "document.scrollingElement.scrollWidth - document.documentElement.clientWidth"
    )


def cut_off(page, testid: str) -> int:
    """How many pixels of an element's own content its box cuts off (0 when
    none): War's limits line, a strip that hides what does not fit."""
    return page.get_by_test_id(testid).evaluate(
        "el => Math.max(el.scrollWidth - el.clientWidth, el.scrollHeight - el.clientHeight)"
    )


def all_in_view(page, testids: list[str], when: str) -> None:
    """Each part wholly on screen and uncovered, once the page has come to
    rest (a rack's smooth scroll is not an animation the page waits out)."""
    page.evaluate("window.scrollTo(0, 0)")

    def problems() -> dict:
        found = {}
        for testid in testids:
            element = page.get_by_test_id(testid)
            expect(element).to_have_count(1)
            seen = element.evaluate(UNCOVERED)
            if not seen["inside"] or seen["covered"]:
                found[testid] = seen
        return found

    try:
        eventually(lambda: not problems(), "everything in view", seconds=5)
    except AssertionError:
        raise AssertionError(f"{when}: {problems()}") from None


# What a page plays, counted: the sounds are synthesised (static/js/sound.js),
# a card's as two bursts of noise, a result's as notes.
HEARD = """() => {
  window.__heard = { noise: 0, notes: 0 };
  const noise = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (...args) { window.__heard.noise += 1; return noise.apply(this, args); };
  const notes = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__heard.notes += 1; return notes.apply(this, args); };
}"""
