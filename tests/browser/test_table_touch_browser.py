"""Both tables on a touch screen: every bet is built with taps and swipes
alone (no right click, no key), chips come off with the REMOVE tool, the
paytable opens by tapping MIN/MAX and stays readable with chips on the area,
the help speaks of taps, and a win counts up under a chip shower (none when
the player asks for reduced motion)."""

from __future__ import annotations

from functools import cache

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.models import Profile
from tests.browser.helpers import log_in
from tests.seeds import find_seed, war_cases

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser, live_url, signed_up, orm):
    """The signed-up player on an upright touch phone."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US")
    page = context.new_page()
    log_in(context, live_url, get_user_model().objects.get(username=signed_up))
    yield page
    context.close()


def swipe(page, source, target) -> None:
    """A finger put down on source, moved in steps, lifted over target."""
    start_box = source.bounding_box()
    end_box = target.bounding_box()
    start = (start_box["x"] + start_box["width"] / 2, start_box["y"] + start_box["height"] / 2)
    end = (end_box["x"] + end_box["width"] / 2, end_box["y"] + end_box["height"] / 2)
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", *start)
    for i in range(1, 13):
        touch(
            "touchMove",
            start[0] + (end[0] - start[0]) * i / 12,
            start[1] + (end[1] - start[1]) * i / 12,
        )
    touch("touchEnd", *end)


def test_a_war_bet_is_built_and_taken_apart_with_taps_and_a_swipe(phone, live_url):
    page = phone
    page.goto(f"{live_url}/war/casino-war/")
    page.get_by_test_id("spot-ante").tap()
    page.get_by_test_id("chip-5").tap()
    page.get_by_test_id("chip-25").tap()
    page.get_by_test_id("spot-tie").tap()
    page.get_by_test_id("chip-1").tap()
    expect(page.get_by_test_id("ante-amount")).to_have_text("30")
    expect(page.get_by_test_id("tie-amount")).to_have_text("1")

    # REMOVE: a tap on a chip takes one of that value off the chosen spot,
    # a tap on a spot takes its top chip off.
    remove = page.get_by_test_id("remove-tool")
    remove.tap()
    expect(remove).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("spot-ante").tap()
    expect(page.get_by_test_id("ante-amount")).to_have_text("5")
    page.get_by_test_id("chip-5").tap()
    expect(page.get_by_test_id("ante-amount")).to_have_text("")
    page.get_by_test_id("spot-tie").tap()
    expect(page.get_by_test_id("tie-amount")).to_have_text("")
    remove.tap()
    expect(remove).to_have_attribute("aria-pressed", "false")

    # A swipe from the rack carries a chip onto the spot under the finger.
    swipe(page, page.get_by_test_id("chip-25"), page.get_by_test_id("spot-ante"))
    expect(page.get_by_test_id("ante-amount")).to_have_text("25")
    swipe(page, page.get_by_test_id("chip-1"), page.get_by_test_id("spot-tie"))
    expect(page.get_by_test_id("tie-amount")).to_have_text("1")
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-round")).not_to_have_attribute("data-status", "empty")


def test_war_help_speaks_of_taps_on_a_touch_screen(phone, live_url):
    page = phone
    page.goto(f"{live_url}/war/casino-war/")
    panel = page.get_by_test_id("help-panel")
    panel.locator("summary").tap()
    expect(panel).to_contain_text("Tap ANTE or TIE BONUS")
    # No key is offered on the buttons of a touch screen.
    expect(page.get_by_test_id("btn-deal").locator("kbd")).to_be_hidden()
    assert "click" not in page.get_by_test_id("war-round").inner_text().lower()


def test_a_baccarat_bet_is_placed_and_taken_off_with_taps(phone, live_url):
    page = phone
    page.goto(f"{live_url}/baccarat/baccarat-social/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.get_by_test_id("chip-5").tap()
    page.get_by_test_id("area-banker").tap()
    page.get_by_test_id("area-banker").tap()
    expect(page.get_by_test_id("amount-banker")).to_have_text("10")
    page.get_by_test_id("remove-tool").tap()
    page.get_by_test_id("area-banker").tap()
    expect(page.get_by_test_id("amount-banker")).to_have_text("5")


def test_the_paytable_opens_by_tapping_min_max_with_chips_on_the_area(phone, live_url):
    page = phone
    page.goto(f"{live_url}/baccarat/baccarat-social/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.get_by_test_id("chip-25").tap()
    for _ in range(3):
        page.get_by_test_id("area-banker").tap()
    expect(page.get_by_test_id("amount-banker")).to_have_text("75")
    minmax = page.get_by_test_id("minmax-banker")
    box = minmax.bounding_box()
    # Big enough for a fingertip.
    assert box["height"] >= 24, box
    minmax.tap()
    tip = minmax.get_by_test_id("paytable-tip")
    expect(tip).to_be_visible()
    tip_box = tip.bounding_box()
    assert tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= PHONE["width"], tip_box
    centre = (tip_box["x"] + tip_box["width"] / 2, tip_box["y"] + tip_box["height"] / 2)
    on_top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('[data-testid=paytable-tip]') !== null",
        list(centre),
    )
    assert on_top, "the paytable is under something"
    # The chips stay on the area meanwhile.
    expect(page.get_by_test_id("amount-banker")).to_have_text("75")


@cache
def war_win_seed() -> str:
    return find_seed("touch-war-win", "touch-tests", 6, lambda shoe: "win" in war_cases(shoe))


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_war_win_counts_up_under_a_chip_shower_unless_motion_is_reduced(
    browser, live_url, signed_up, orm, motion
):
    Profile.objects.filter(user__username=signed_up).update(
        next_server_seed=war_win_seed(), client_seed="touch-tests", nonce=0
    )
    context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US", reduced_motion=motion
    )
    page = context.new_page()
    log_in(context, live_url, get_user_model().objects.get(username=signed_up))
    page.goto(f"{live_url}/war/casino-war/")
    page.get_by_test_id("spot-ante").tap()
    page.get_by_test_id("chip-100").tap()
    page.get_by_test_id("btn-deal").tap()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "win")
    expect(page.get_by_test_id("war-net")).to_have_text("+100")
    # Read out to screen readers, in the same step that starts the shower
    # (static/js/war_round.js): once it is read out, a shower would be falling.
    expect(page.get_by_test_id("announce")).to_contain_text("+100")
    shower = page.get_by_test_id("chip-shower")
    if motion == "reduce":
        # Read at once, not waited for: a shower removes itself 1.9 s later.
        assert shower.count() == 0
    else:
        expect(shower).to_have_count(1)
        # 6 chips for the smallest win, more for more: log10(101) * 6 + 6.
        expect(shower).to_have_attribute("data-chips", "18")
        expect(shower).to_have_count(0, timeout=5000)  # and it is gone again
    context.close()
