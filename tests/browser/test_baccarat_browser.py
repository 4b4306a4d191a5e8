"""A player at the Baccarat table in Chromium: chips down, BET, the cards
open one by one over the websocket, and what the screen shows agrees with the
stored round."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Profile
from tests.browser.helpers import MOTION, eventually, stored_round

pytestmark = [pytest.mark.browser, MOTION]

TABLE = "/baccarat/baccarat-classic/"


def chips(units: int) -> str:
    whole, frac = divmod(units, 100)
    return f"{whole:,}" + (f".{frac:02d}" if frac else "")


def deal_order(rnd) -> list[tuple[str, str]]:
    player, banker = rnd.detail["player"], rnd.detail["banker"]
    order = [("p1", player[0]), ("b1", banker[0]), ("p2", player[1]), ("b2", banker[1])]
    order += [("p3", c) for c in player[2:]] + [("b3", c) for c in banker[2:]]
    return order


def open_table(page, live_url) -> None:
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    # Keep every fragment the socket pushes, to check the order afterwards.
    page.evaluate(
        "() => { window.pushed = [];"
        " document.addEventListener('htmx:wsAfterMessage', e => window.pushed.push(e.detail.message)); }"
    )


def test_a_player_bets_watches_the_cards_open_and_the_roads_grow(page, live_url, signed_up, orm):
    open_table(page, live_url)
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(0)
    expect(page.get_by_test_id("big-road").locator(".ring")).to_have_count(0)

    page.get_by_test_id("chip-5").click()
    for _ in range(4):
        page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("20")
    page.get_by_test_id("area-banker").click()  # refused inline, nothing changes
    expect(page.get_by_test_id("slip-error")).to_contain_text("PLAYER and BANKER")
    expect(page.get_by_test_id("bet-total")).to_have_text("20")

    page.get_by_test_id("bet").click()
    rnd = stored_round(signed_up)
    phase = page.locator("#bac-phase")
    expect(phase).to_have_attribute("data-round", str(rnd.pk))
    expect(phase).to_have_attribute("data-phase", "done")

    # Cards arrived one per message, in deal order, each side's score with them.
    pushed = page.evaluate("window.pushed")
    opened = [
        re.findall(r'data-card="(\w\w)"', m)
        for m in pushed
        if "bac-card-" in m and "bac-board" not in m
    ]
    assert opened == [[code] for _slot, code in deal_order(rnd)]
    for slot, code in deal_order(rnd):
        expect(page.get_by_test_id(f"card-{slot}")).to_have_attribute("data-card", code)
    expect(page.get_by_test_id("score-player")).to_have_text(str(rnd.detail["player_total"]))
    expect(page.get_by_test_id("score-banker")).to_have_text(str(rnd.detail["banker_total"]))

    # The result, PAYOUT and balance are the stored round's.
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", rnd.winner)
    expect(page.get_by_test_id("payout")).to_have_text(chips(rnd.total_return))
    expect(page.get_by_test_id("table-balance")).to_have_text(chips(rnd.balance_after))
    expect(page.get_by_test_id("header-balance")).to_have_text(chips(rnd.balance_after))
    assert rnd.bets == {"player": 2_000}
    assert rnd.balance_after == 1_000_000 - 2_000 + rnd.total_return

    # The bead plate and the big road each gained a cell; the stakes stay on
    # the felt with their result until NEW BET (or the next chip or BET).
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(1)
    expect(page.get_by_test_id("big-road").locator(".ring")).to_have_count(1)
    expect(page.get_by_test_id("amount-player")).to_have_text("20")
    page.get_by_test_id("new-bet").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("")


def test_a_reload_during_the_reveal_ends_on_the_finished_round(page, live_url, signed_up, orm):
    open_table(page, live_url)
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("area-banker").click()
    page.get_by_test_id("area-banker").click()
    expect(page.get_by_test_id("bet-total")).to_have_text("50")
    page.get_by_test_id("bet").click()
    rnd = stored_round(signed_up)
    expect(page.get_by_test_id("card-p1")).to_have_attribute("data-card", rnd.cards[0])
    assert page.locator("#bac-phase").get_attribute("data-phase") == "revealing"
    page.reload()
    # The reveal goes on after the reload (tests/browser/test_table_reload_browser.py)
    # and ends on the round settled at BET.
    for slot, code in deal_order(rnd):
        expect(page.get_by_test_id(f"card-{slot}")).to_have_attribute("data-card", code)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", rnd.winner)
    expect(page.get_by_test_id("header-balance")).to_have_text(chips(rnd.balance_after))
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(1)


def test_fast_forward_and_back_and_the_settings_panel(page, live_url, signed_up, orm):
    open_table(page, live_url)
    page.get_by_test_id("speed-fast").click()
    expect(page.get_by_test_id("speed-normal")).to_be_visible()
    page.get_by_test_id("speed-normal").click()
    expect(page.get_by_test_id("speed-fast")).to_be_visible()

    expect(page.get_by_test_id("score-history")).to_be_visible()
    page.get_by_test_id("open-settings").click()
    page.get_by_test_id("setting-history-panel").uncheck()
    expect(page.get_by_test_id("score-history")).to_be_hidden()

    eventually(
        lambda: not Profile.objects.get(user__username=signed_up).history_panel,
        "the history panel's setting",
    )
