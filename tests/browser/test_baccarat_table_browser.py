"""The Baccarat table as a live table, in Chromium: the stakes stay on the
felt through the reveal and show each area's result, the banner states the
net, and chips go down by dragging (mouse), swiping (touch), clicking, or
come off with the remove tool; NEW BET and REBET."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from playwright.sync_api import expect

from games.baccarat.rules import play_coup
from games.models import Profile, Wallet
from games.services.wallet import Posting, post
from tests.browser.helpers import log_in, stored_round
from tests.seeds import find_seed

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-classic/"
CLIENT_SEED = "felt-tests"


def player_wins_seed() -> str:
    """A shoe where PLAYER wins with no pair (a TIE bet loses)."""

    def wanted(shoe) -> bool:
        coup = play_coup(shoe)
        return coup.winner == "player" and not coup.player_pair and not coup.banker_pair

    return find_seed("felt-player-wins", CLIENT_SEED, 8, wanted)


def open_table(page, live_url) -> None:
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)


def test_stakes_stay_on_the_felt_and_each_area_shows_its_result(page, live_url, signed_up, orm):
    seed = player_wins_seed()
    Profile.objects.filter(user__username=signed_up).update(
        next_server_seed=seed, client_seed=CLIENT_SEED, nonce=0
    )
    open_table(page, live_url)
    # What each area shows at every step the socket pushes.
    page.evaluate(
        """() => { window.seen = [];
        document.addEventListener('htmx:wsAfterMessage', () => window.seen.push({
          player: document.querySelector('[data-testid=amount-player]').textContent,
          tie: document.querySelector('[data-testid=amount-tie]').textContent,
          phase: document.getElementById('bac-phase').dataset.phase,
          total: document.querySelector('[data-testid=bet-total]').textContent,
        })); }"""
    )
    page.get_by_test_id("chip-5").click()
    for area in ("player", "player", "tie", "tie"):
        page.get_by_test_id(f"area-{area}").click()
    expect(page.get_by_test_id("bet-total")).to_have_text("20")
    page.get_by_test_id("bet").click()
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done")
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")
    rnd = stored_round(signed_up)
    assert rnd.bets == {"player": 1_000, "tie": 1_000} and rnd.returns["player"] == 2_000

    # The stakes were on the felt at every step of the reveal, BET showing their total.
    seen = page.evaluate("window.seen")
    assert seen and all(s["player"] == "10" and s["tie"] == "10" for s in seen), seen
    assert all(s["total"] == "20" for s in seen), seen
    assert any(s["phase"] == "revealing" for s in seen)

    # Each area's own result; the winning one lights up; the banner says Net 0.
    expect(page.get_by_test_id("outcome-player")).to_have_attribute("data-outcome", "won")
    expect(page.get_by_test_id("outcome-player")).to_have_text("WIN 20")
    expect(page.get_by_test_id("outcome-tie")).to_have_attribute("data-outcome", "lost")
    expect(page.get_by_test_id("outcome-tie")).to_have_text("LOSE")
    glow = page.locator(".area-player").evaluate("el => getComputedStyle(el).boxShadow")
    assert "inset" in glow
    net = page.get_by_test_id("result-net")
    expect(net).to_have_text("Net 0")
    assert "Push" not in net.inner_text()

    # The next chip takes the old stakes and results back to the rack.
    page.get_by_test_id("area-banker").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("")
    expect(page.get_by_test_id("amount-banker")).to_have_text("5")
    expect(page.get_by_test_id("outcome-player")).not_to_have_attribute("data-outcome", "won")


def test_a_chip_dragged_with_the_mouse_lands_on_banker_and_the_tools_work(
    page, live_url, signed_up, orm
):
    open_table(page, live_url)
    chip = page.get_by_test_id("chip-face-25")
    target = page.get_by_test_id("area-banker")
    chip.hover()
    page.mouse.down()
    box = target.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=12)
    page.mouse.up()
    expect(page.get_by_test_id("amount-banker")).to_have_text("25")

    # Clicks add the selected chip (the dragged one is now selected).
    page.get_by_test_id("chip-1").click()
    target.click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("26")
    # The remove tool takes the last chip off per click.
    page.get_by_test_id("remove-tool").click()
    expect(page.get_by_test_id("remove-tool")).to_have_attribute("aria-pressed", "true")
    target.click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("25")
    target.click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("")
    page.get_by_test_id("remove-tool").click()

    # A round, then NEW BET clears the felt and REBET brings the last bet back.
    page.get_by_test_id("chip-5").click()
    target.click()
    page.get_by_test_id("bet").click()
    rnd = stored_round(signed_up)
    expect(page.locator("#bac-phase")).to_have_attribute("data-round", str(rnd.pk))
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done")
    expect(page.get_by_test_id("amount-banker")).to_have_text("5")
    page.get_by_test_id("new-bet").click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("")
    expect(page.get_by_test_id("bet-total")).to_have_text("0")
    page.get_by_test_id("rebet").click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("5")
    page.get_by_test_id("rebet2").click()
    expect(page.get_by_test_id("amount-banker")).to_have_text("10")


def test_a_touch_swipe_puts_a_chip_on_banker_on_a_phone(browser, live_url, signed_up, orm):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="en-US"
    )
    page = context.new_page()
    # The same player, on a phone.
    log_in(context, live_url, get_user_model().objects.get(username=signed_up))
    open_table(page, live_url)
    area = page.get_by_test_id("area-banker")
    area.scroll_into_view_if_needed()
    page.get_by_test_id("chip-face-1").scroll_into_view_if_needed()
    chip = page.get_by_test_id("chip-face-1").bounding_box()
    box = area.bounding_box()
    start = (chip["x"] + chip["width"] / 2, chip["y"] + chip["height"] / 2)
    end = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    cdp = context.new_cdp_session(page)

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
    expect(page.get_by_test_id("amount-banker")).to_have_text("1")
    context.close()


def test_chips_that_cannot_go_down_are_greyed_on_the_rack(page, live_url, signed_up, orm):

    wallet = Wallet.objects.get(user__username=signed_up)
    with transaction.atomic():
        post(wallet_id=wallet.pk, postings=[Posting("adjustment", 2_000 - wallet.balance, "test")])
    open_table(page, live_url)  # 20 chips left: the 25 and 100 chips cannot go down
    expect(page.get_by_test_id("chip-25")).to_have_class(re.compile("unavailable"))
    expect(page.get_by_test_id("chip-100")).to_have_class(re.compile("unavailable"))
    expect(page.get_by_test_id("chip-5")).not_to_have_class(re.compile("unavailable"))
    page.get_by_test_id("chip-5").click()
    for _ in range(4):
        page.get_by_test_id("area-banker").click()
    expect(page.get_by_test_id("chip-5")).to_have_class(re.compile("unavailable"))
