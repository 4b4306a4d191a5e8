"""Demo mode in Chromium: a logged-out visitor presses Play demo, plays a
Baccarat round and a Casino War round with demo chips under the DEMO marker,
finds what a demo cannot use disabled with its reason, and refills; and the
screens are photographed at desktop and phone sizes (demo-*.png in the
temporary directory, or CASINO_SHOTS_DIR)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.models import Table
from games.services import baccarat as baccarat_service
from tests.browser.helpers import stored_round

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path(os.environ.get("CASINO_SHOTS_DIR") or tempfile.gettempdir())


def chips(units: int) -> str:
    whole, frac = divmod(units, 100)
    return f"{whole:,}" + (f".{frac:02d}" if frac else "")


def play_demo(page, live_url):
    """Press Play demo on the front page; the demo user it made."""
    page.goto(live_url + "/")
    expect(page.get_by_test_id("demo-marker")).to_have_count(0)
    before = set(get_user_model().objects.filter(profile__demo=True).values_list("pk", flat=True))
    page.get_by_test_id("play-demo").click()
    page.wait_for_url(live_url + "/")
    expect(page.get_by_test_id("demo-marker")).to_be_visible()
    return get_user_model().objects.filter(profile__demo=True).exclude(pk__in=before).get()


def test_a_visitor_plays_a_baccarat_round_and_a_war_round_in_demo(page, live_url, orm):
    demo = play_demo(page, live_url)
    expect(page.get_by_test_id("lobby-balance")).to_have_text("10,000")
    expect(page.get_by_test_id("header-balance")).to_have_text("10,000")

    page.goto(live_url + "/baccarat/baccarat-classic/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    expect(page.get_by_test_id("demo-marker")).to_be_visible()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    page.get_by_test_id("bet").click()
    coup = stored_round(demo, game="baccarat", settled=True)
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done")
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", coup.winner)
    expect(page.get_by_test_id("header-balance")).to_have_text(chips(coup.balance_after))
    assert coup.bets == {"player": 500} and coup.balance_before == 1_000_000

    page.goto(live_url + "/war/casino-war/")
    expect(page.get_by_test_id("demo-marker")).to_be_visible()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("btn-deal").click()
    result = page.get_by_test_id("war-result")
    expect(result.or_(page.get_by_test_id("decision-panel")).first).to_be_visible()
    if page.get_by_test_id("decision-panel").is_visible():
        page.get_by_test_id("btn-surrender").click()
    war = stored_round(demo, game="war", settled=True)
    expect(result).to_have_attribute("data-result", war.detail["result"])
    expect(page.get_by_test_id("header-balance")).to_have_text(chips(war.balance_after))
    assert war.bets["ante"] == 500


def test_the_disabled_features_say_why_and_refill_works(page, live_url, orm):
    demo = play_demo(page, live_url)
    page.goto(live_url + "/account/")
    for feature, reason in [
        ("max_bet", "a personal max bet is confirmed with a PIN"),
        ("pin", "a PIN is set with an account password"),
        ("csv", "demo rounds are deleted a day after your last visit"),
        ("topup", "use Refill to get your demo chips back"),
        ("operator", "operator pages are for the casino's staff"),
    ]:
        control = page.get_by_test_id(f"demo-unavailable-{feature}")
        expect(control).to_contain_text(reason)
        expect(control.get_by_role("button")).to_be_disabled()
        expect(control.get_by_role("link")).to_have_attribute("href", "/accounts/signup/")
    expect(page.get_by_test_id("pin-form")).to_have_count(0)

    page.goto(live_url + "/history/")
    expect(page.get_by_test_id("demo-unavailable-csv")).to_be_visible()
    expect(page.get_by_test_id("history-export")).to_have_count(0)

    page.goto(live_url + "/war/casino-war/")
    page.get_by_test_id("open-menu").click()
    page.get_by_test_id("tab-bet-options").click()
    expect(page.get_by_test_id("demo-unavailable-max_bet")).to_contain_text(
        "a personal max bet is confirmed with a PIN"
    )

    table = Table.objects.get(slug="baccarat-social")
    rnd = baccarat_service.place_bet(user=demo, table=table, bets={"tie": 50_000}, slip_key="t")
    page.goto(live_url + "/")
    expect(page.get_by_test_id("header-balance")).to_have_text(chips(rnd.balance_after))
    page.get_by_test_id("demo-refill").click()
    expect(page.get_by_test_id("header-balance")).to_have_text("10,000")
    expect(page.locator("#messages")).to_contain_text("your demo wallet holds 10,000 demo chips")
    demo.wallet.refresh_from_db()
    assert demo.wallet.balance == 1_000_000


@pytest.mark.parametrize("size", SIZES)
def test_screenshots_of_the_demo_screens(page, live_url, orm, size):
    page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
    page.goto(live_url + "/")
    expect(page.get_by_test_id("play-demo")).to_be_visible()
    page.screenshot(path=SHOTS / f"demo-front-{size}.png")
    page.goto(live_url + "/fair/")
    page.screenshot(path=SHOTS / f"demo-fair-{size}.png")
    page.get_by_test_id("vector-2").scroll_into_view_if_needed()
    page.get_by_test_id("vector-2").get_by_test_id("vector-check").click()
    expect(page.get_by_test_id("vector-2").get_by_test_id("vector-verdict")).to_be_visible()
    page.screenshot(path=SHOTS / f"demo-fair-vectors-{size}.png")
    play_demo(page, live_url)
    page.goto(live_url + "/baccarat/baccarat-classic/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    expect(page.get_by_test_id("demo-marker")).to_be_in_viewport()
    page.screenshot(path=SHOTS / f"demo-table-{size}.png")
    page.goto(live_url + "/account/")
    expect(page.get_by_test_id("demo-unavailable-operator")).to_be_visible()
    page.screenshot(path=SHOTS / f"demo-account-{size}.png")
