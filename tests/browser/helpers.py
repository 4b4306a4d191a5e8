"""What the browser tests share: a user's session put in a browser, and
waiting for what the server stores.

The server commits in a process of its own, a moment after the page's
request or socket message went out; the page's own state is awaited with
Playwright's ``expect``, the database's with ``eventually``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Round
from games.services import play_safe
from games.services.wallet import open_account

T = TypeVar("T")

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
    """A new player at the live table in a browser of ``size``, its socket open: (page, user)."""
    user = get_user_model().objects.create(
        username=f"{name}{timezone.now().timestamp():.0f}", password=password_hash
    )
    open_account(user=user)
    now = timezone.now()
    play_safe.start_session(user=user, now=now)
    context = browser.new_context(**{**context_args, "viewport": size})
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
    page.wait_for_function(_FRESH_WINDOW, arg=seconds, timeout=30_000)
