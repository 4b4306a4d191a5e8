"""The squeeze in Chromium: a player past the threshold turns SQUEEZE on,
BETs on PLAYER, and peels the Player's 2nd card by dragging it (a mouse on a
desktop, a finger on a phone) while the navigator shows CHANCE NO.

The shoes are seeded (the player's next server seed, client seed and nonce
are set through the ORM) so the position is known: P1 = 9, B1 = a ten-value
card at the 1-deck Social table, where CHANCE NO. is 0, 8, 9 (worked by hand
and brute-forced in tests/games/services/test_squeeze.py)."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import expect

from games.models import Profile, Table
from tests.browser.helpers import eventually, stored_round

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-social/"  # 1 deck; squeeze from 1,000 chips
CLIENT_SEED = "squeeze-browser"
# hashlib.sha256(f"squeeze-browser-{i}".encode()).hexdigest(), nonce 0, 1 deck:
SEED_169 = "squeeze-browser-169"  # 9C KH 9S 5S: the Player's 2nd card is 9S (a PAIR), Player wins
SEED_210 = "squeeze-browser-210"  # 9H JS 8H 5S AH: the Player's 2nd card is 8H, Player 7 wins


def server_seed(name: str) -> str:

    return hashlib.sha256(name.encode()).hexdigest()


def seed_next_round(username: str, name: str) -> None:

    Profile.objects.filter(user__username=username).update(
        next_server_seed=server_seed(name), client_seed=CLIENT_SEED, nonce=0
    )


def watch_console(page) -> list[str]:
    """Errors in the console (CSP violations included) while the test runs."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def squeeze_bet(page, live_url, *, pair: bool = False) -> None:
    """Open the table, put 1,000 on PLAYER (the threshold), SQUEEZE ON, BET."""
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    toggle = page.get_by_test_id("squeeze-toggle")
    expect(toggle).to_have_attribute("data-unlocked", "0")
    page.get_by_test_id("chip-100").click()
    page.get_by_test_id("multiplier").click()  # x10
    expect(page.get_by_test_id("multiplier")).to_have_text("×10")
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("1,000")
    expect(toggle).to_have_attribute("data-unlocked", "1")
    if pair:
        page.get_by_test_id("multiplier").click()
        page.get_by_test_id("multiplier").click()  # back to x1
        page.get_by_test_id("chip-25").click()
        page.get_by_test_id("area-player_pair").click()
        expect(page.get_by_test_id("amount-player_pair")).to_have_text("25")
    page.get_by_test_id("squeeze-button").click()
    expect(toggle).to_have_attribute("data-on", "1")
    expect(page.get_by_test_id("squeeze-state")).to_have_text("ON")
    page.get_by_test_id("bet").click()


@pytest.mark.browser_context_args(reduced_motion="reduce")
def test_with_less_motion_asked_the_card_to_peel_glows_still(page, live_url, signed_up, orm):
    """A player whose system asks for reduced motion: the stage opens without
    sliding in, and the card waiting to be peeled glows without pulsing."""
    seed_next_round(signed_up, SEED_210)
    squeeze_bet(page, live_url)
    expect(page.get_by_test_id("squeeze-stage")).to_be_visible()
    waiting = page.get_by_test_id("card-p2")
    expect(waiting).to_have_class(re.compile(r"\bpeeling\b"))
    assert waiting.evaluate("el => getComputedStyle(el, '::after').opacity") == "1"
    # Nothing on the felt or the stage is given an animation (a toast's fade
    # is not motion). Computed styles, not running animations: a short one
    # may have ended before the check on a quick machine.
    assert animated(page, "#bac-board, [data-testid=squeeze-stage]") == []
    page.get_by_test_id("peel-open").click()
    expect(page.get_by_test_id("peel-face")).to_have_attribute("data-card", "8H")
    assert animated(page, "[data-testid=squeeze-stage]") == []


def animated(page, roots: str) -> list[str]:
    """The animations the page's styles give to the roots and everything in them."""
    return page.evaluate(
        """(roots) => [...document.querySelectorAll(roots)]
            .flatMap((r) => [r, ...r.querySelectorAll('*')])
            .flatMap((el) => [getComputedStyle(el), getComputedStyle(el, '::after')])
            .map((style) => style.animationName).filter((name) => name !== 'none')""",
        roots,
    )


# The peel as static/js/squeeze.js holds it (the page's own module instance).
PEEL = "(await import('/static/js/squeeze.js')).state()"


def peel_state(page) -> dict | None:
    return page.evaluate(f"async () => {PEEL}")


def index_visibility(page) -> str:
    return page.evaluate(
        "() => getComputedStyle(document.querySelector('#bac-peel-face .pc-corner')).visibility"
    )


def test_a_mouse_drag_peels_the_players_second_card_beside_the_navigator(
    page, live_url, signed_up, orm
):
    errors = watch_console(page)
    seed_next_round(signed_up, SEED_169)
    squeeze_bet(page, live_url, pair=True)

    stage = page.get_by_test_id("squeeze-stage")
    expect(stage).to_have_attribute("data-slot", "p2")
    expect(stage).to_be_visible()
    # P1 and B1 are open; the Player's 2nd card lies face down, its face not sent yet.
    expect(page.get_by_test_id("card-p1")).to_have_attribute("data-card", "9C")
    expect(page.get_by_test_id("card-b1")).to_have_attribute("data-card", "KH")
    expect(page.get_by_test_id("card-p2")).not_to_have_attribute("data-card", "9S")
    assert page.get_by_test_id("peel-face").get_attribute("data-card") is None
    # The navigator: CHANCE NO. 0, 8, 9, and PAIR WIN NO. 9 (PLAYER PAIR was bet).
    navigator = page.get_by_test_id("navigator")
    expect(navigator).to_have_attribute("data-numbers", "0 8 9")
    expect(page.get_by_test_id("nav-title")).to_have_text("CHANCE NO.")
    expect(page.get_by_test_id("nav-hits")).to_have_text("0 8 9")
    expect(page.get_by_test_id("nav-pair")).to_have_text("9")
    for value in range(10):
        lit = "nav-num hit" if value in (0, 8, 9) else "nav-num"
        expect(page.get_by_test_id(f"nav-{value}")).to_have_class(lit)

    card = page.get_by_test_id("peel-card")
    box = card.bounding_box()
    x, bottom = box["x"] + box["width"] / 2, box["y"] + box["height"] - 3

    # A short lift from the bottom edge: the face arrives, the index stays hidden,
    # and letting go before halfway drops the card back.
    page.mouse.move(x, bottom)
    page.mouse.down()
    page.mouse.move(x, bottom - box["height"] * 0.3, steps=8)
    expect(page.get_by_test_id("peel-face")).to_have_attribute("data-card", "9S")
    assert index_visibility(page) == "hidden"
    state = peel_state(page)
    assert state["started"] and 0.25 < state["progress"] < 0.35
    page.mouse.up()
    page.wait_for_function(
        f"async () => {PEEL}.progress === 0", polling=100, timeout=5_000
    )  # fallen back
    assert not peel_state(page)["opened"]
    expect(stage).to_be_visible()

    # All the way up: it flips open, the index shows, and the reveal goes on.
    page.mouse.move(x, bottom)
    page.mouse.down()
    page.mouse.move(x, box["y"] - 10, steps=12)
    page.mouse.up()
    expect(card).to_have_class("peel-card started opened")
    assert index_visibility(page) == "visible"
    expect(page.get_by_test_id("card-p2")).to_have_attribute("data-card", "9S")
    expect(stage).to_be_hidden()
    rnd = stored_round(signed_up)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", rnd.winner)
    assert rnd.cards == ["9C", "KH", "9S", "5S"] and rnd.player_pair
    expect(page.get_by_test_id("score-player")).to_have_text("8")
    expect(page.get_by_test_id("header-balance")).to_have_text(f"{rnd.balance_after // 100:,}")
    assert not errors, errors


@pytest.mark.browser_context_args(
    viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=2
)
def test_a_finger_peels_the_card_from_a_corner_on_a_phone(page, live_url, signed_up, orm):
    errors = watch_console(page)
    seed_next_round(signed_up, SEED_210)
    squeeze_bet(page, live_url)
    stage = page.get_by_test_id("squeeze-stage")
    expect(stage).to_have_attribute("data-slot", "p2")
    expect(page.get_by_test_id("navigator")).to_have_attribute("data-numbers", "0 8 9")
    expect(page.get_by_test_id("nav-pair")).to_have_count(0)  # no PAIR bet
    # The card's classes are recorded as they change: the reveal goes on 0.9 s
    # after the card opens, and the rest of the swipe (one round trip a move)
    # can take longer than that on a busy machine.
    page.evaluate(
        "() => { window.pointerTypes = []; window.peelClasses = [];"
        " document.addEventListener('pointerdown', e => window.pointerTypes.push(e.pointerType));"
        " new MutationObserver(() => { const c = document.querySelector('[data-testid=peel-card]');"
        " if (c) window.peelClasses.push(c.className); })"
        ".observe(document.body, {subtree: true, attributeFilter: ['class']}); }"
    )
    card = page.get_by_test_id("peel-card")
    card.scroll_into_view_if_needed()
    box = card.bounding_box()
    nav = page.get_by_test_id("navigator").bounding_box()
    assert box["x"] >= 0 and nav["x"] + nav["width"] <= 390  # both fit the phone's width
    assert nav["x"] > box["x"] + box["width"] - 1  # the navigator beside the card

    # A real touch (Chromium's touch emulation): from the bottom-right corner to the top-left.
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float | None = None, y: float | None = None) -> None:
        points = [] if x is None else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    x0, y0 = box["x"] + box["width"] - 4, box["y"] + box["height"] - 4
    touch("touchStart", x0, y0)
    for k in range(1, 9):  # about a third of the way: not open yet
        touch("touchMove", x0 - k * 6, y0 - k * 8)
    expect(page.get_by_test_id("peel-face")).to_have_attribute("data-card", "8H")
    assert index_visibility(page) == "hidden"
    assert not peel_state(page)["opened"]
    for k in range(9, 40):
        touch("touchMove", x0 - k * 6, y0 - k * 8)
    touch("touchEnd")
    assert page.evaluate("window.pointerTypes")[0] == "touch"
    assert "peel-card started opened" in page.evaluate("window.peelClasses")
    expect(page.get_by_test_id("card-p2")).to_have_attribute("data-card", "8H")
    expect(stage).to_be_hidden()
    rnd = stored_round(signed_up)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", rnd.winner)
    assert rnd.cards == ["9H", "JS", "8H", "5S", "AH"]
    assert not errors, errors


def test_open_shows_the_card_at_once(page, live_url, signed_up, orm):
    seed_next_round(signed_up, SEED_210)
    squeeze_bet(page, live_url)
    expect(page.get_by_test_id("squeeze-stage")).to_have_attribute("data-slot", "p2")
    page.get_by_test_id("peel-open").click()
    expect(page.get_by_test_id("peel-face")).to_have_attribute("data-card", "8H")
    expect(page.get_by_test_id("card-p2")).to_have_attribute("data-card", "8H")
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")


def session_state(page, live_url) -> tuple:
    """The player's session (the ORM's view of it) and the squeeze state key."""

    cookie = next(c for c in page.context.cookies(live_url) if c["name"] == "sessionid")
    key = f"baccarat:squeeze:{Table.objects.get(slug='baccarat-social').pk}"
    return SessionStore(session_key=cookie["value"]), key


def test_the_clip_watched_to_its_end_unlocks_the_squeeze_until_the_player_leaves(
    page, live_url, signed_up, orm
):
    """The clip's own time runs on Playwright's clock; the server, which wants a
    clip's length between the start and the end it hears of, has its recorded
    start moved back instead of the test waiting 12 seconds."""
    errors = watch_console(page)
    seed_next_round(signed_up, SEED_210)
    page.clock.install()
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    toggle = page.get_by_test_id("squeeze-toggle")
    expect(toggle).to_have_attribute("data-unlocked", "0")
    page.get_by_test_id("watch-promo").click()
    expect(page.get_by_test_id("promo-dialog")).to_be_visible()

    def recorded() -> tuple | None:
        session, key = session_state(page, live_url)
        return (session, key) if (session.get(key) or {}).get("promo_started") else None

    session, key = eventually(recorded, "the clip's start")
    started = session[key]["promo_started"]
    state = dict(session[key], promo_started=started - 15)
    session[key] = state
    session.save()

    page.clock.run_for(13_000)  # the clip plays to its end
    expect(page.get_by_test_id("promo-note")).to_be_visible()
    expect(page.get_by_test_id("promo-progress")).to_have_attribute("value", "12")
    expect(toggle).to_have_attribute("data-unlocked", "1")
    expect(toggle).to_have_attribute("data-on", "1")
    expect(page.get_by_test_id("squeeze-lock")).to_contain_text("Unlocked for this visit")
    page.clock.run_for(2_000)
    expect(page.get_by_test_id("promo-dialog")).to_be_hidden()

    # 25 chips on PLAYER, far under the 1,000 threshold: squeezed all the same.
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("25")
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("squeeze-stage")).to_have_attribute("data-slot", "p2")
    page.get_by_test_id("peel-open").click()
    page.clock.run_for(2_000)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")

    # Leaving the table screen (here: coming back to it) locks the squeeze again.
    page.goto(live_url + TABLE)
    expect(page.get_by_test_id("squeeze-toggle")).to_have_attribute("data-unlocked", "0")
    expect(page.get_by_test_id("squeeze-lock")).to_contain_text("Not this round: bet 1,000 or more")
    assert not errors, errors
