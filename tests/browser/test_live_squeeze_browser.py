"""The live squeeze seen by two players: the peeler (the largest PLAYER
stake, on a desktop) drags the Player's card and the watcher (no bet, on a
phone) sees the same fold move; the peeler opens it, and both see the same
cards and the same result. The watcher's page has no handle to peel, and
hears each card turn as it opens.

With SQUEEZE_SHOTS=<folder> the test also leaves screenshots of both pages
mid-peel there (the watcher at both sizes); SQUEEZE_PEELER=phone swaps the
two players' screens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.models import Table
from games.services.tables import create_presets, save_table, table_snapshot
from tests.browser.helpers import HEARD, eventually, seat_at_live_table, wait_for_fresh_window

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-live/"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SWAPPED = os.environ.get("SQUEEZE_PEELER") == "phone"
PEELER_SIZE, WATCHER_SIZE = (PHONE, DESKTOP) if SWAPPED else (DESKTOP, PHONE)
# The peel as static/js/live_squeeze.js draws it (the page's own module instance).
PEEL = "async () => (await import('/static/js/live_squeeze.js')).state()"


@pytest.fixture
def squeeze_table(orm):
    create_presets()
    table = Table.objects.get(slug="baccarat-live")
    before = table_snapshot(table)
    table.betting_seconds = 8
    table.squeeze_threshold = 10_000  # 100 chips
    table.squeeze_seconds = 30  # the test opens the cards itself
    save_table(table=table, actor=None, before=before)
    yield table
    table.refresh_from_db()
    again = table_snapshot(table)
    table.squeeze_threshold, table.squeeze_seconds = before["squeeze_threshold"], 8
    table.betting_seconds = before["betting_seconds"]
    save_table(table=table, actor=None, before=again)


def shoot(page, role: str, sizes: tuple[dict, ...], step: str = "peel") -> None:
    """Screenshots of ``page`` at ``sizes`` (the first: its own) when asked."""
    folder = os.environ.get("SQUEEZE_SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for size in sizes:
        page.set_viewport_size(size)
        page.screenshot(path=f"{folder}/{step}-{role}-{size['width']}x{size['height']}.png")
    page.set_viewport_size(sizes[0])


def board_cards(page) -> str:
    return (
        page.get_by_test_id("board")
        .locator(".playing-card[data-card]")
        .evaluate_all("cards => cards.map(c => c.dataset.card).join(' ')")
    )


def test_the_peeler_peels_the_watcher_sees_it_and_both_see_one_result(
    browser, browser_context_args, live_url, squeeze_table, password_hash
):
    args = (browser, browser_context_args, live_url, password_hash)
    peeler, _ = seat_at_live_table(*args, "peeler", PEELER_SIZE)
    watcher, _ = seat_at_live_table(*args, "watcher", WATCHER_SIZE)
    watcher.evaluate(HEARD)
    wait_for_fresh_window(peeler, 5)
    peeler.get_by_test_id("chip-100").click()
    peeler.get_by_test_id("area-player").click()
    peeler.get_by_test_id("bet").click()
    expect(peeler.get_by_test_id("slip-note")).to_contain_text("placed on coup")
    coup = peeler.get_by_test_id("live-coup").get_attribute("data-coup")

    # At the close both see the Player's 2nd card face down; only the peeler may peel it.
    stages = {p: p.get_by_test_id("live-squeeze") for p in (peeler, watcher)}
    for page, stage in stages.items():
        expect(stage).to_have_attribute("data-slot", "p2", timeout=15_000)
        expect(page.get_by_test_id("navigator")).to_be_visible()
        expect(page.get_by_test_id("live-result")).to_have_count(0)
    expect(stages[peeler]).to_have_class("live-squeeze side-player me")
    expect(stages[watcher]).not_to_have_class("live-squeeze side-player me")
    expect(peeler.get_by_test_id("peel-open")).to_be_visible()
    expect(watcher.get_by_test_id("peel-open")).to_be_hidden()
    expect(watcher.get_by_test_id("peeler")).to_contain_text("peels the card")

    # The peeler lifts the card from its bottom edge, 40% of the way; the watcher's fold follows.
    card = peeler.get_by_test_id("peel-card")
    box = card.bounding_box()
    x, bottom = box["x"] + box["width"] / 2, box["y"] + box["height"] - 3
    peeler.mouse.move(x, bottom)
    peeler.mouse.down()
    peeler.mouse.move(x, bottom - 0.4 * box["height"], steps=6)
    expect(watcher.get_by_test_id("peel-card")).to_have_class("peel-card lifting")
    watched = eventually(
        lambda: (peel := watcher.evaluate(PEEL))["depth"] > 0.35 and peel, "the peeler's fold"
    )
    assert watched["peeler"] is False and watched["depth"] <= 0.42
    shoot(peeler, "peeler", (PEELER_SIZE,))  # (resized mid-drag, its pointer would slip)
    shoot(watcher, "watcher", (WATCHER_SIZE, PEELER_SIZE))

    # Let go past halfway: the card opens for both at once.
    heard = watcher.evaluate("() => window.__heard.noise")
    peeler.mouse.move(x, bottom - 0.7 * box["height"], steps=3)
    peeler.mouse.up()
    for page, stage in stages.items():
        expect(stage.or_(page.get_by_test_id("live-result"))).not_to_have_attribute(
            "data-slot", "p2"
        )
    opened = 1
    # Any card left to peel (a 3rd): the peeler opens it straight away.
    while peeler.get_by_test_id("live-squeeze").count():
        opened += 1
        slot = stages[peeler].get_attribute("data-slot")
        peeler.get_by_test_id("peel-open").click()
        expect(stages[peeler].or_(peeler.get_by_test_id("live-result"))).not_to_have_attribute(
            "data-slot", slot or ""
        )
    results = [page.get_by_test_id("live-result") for page in (peeler, watcher)]
    for result in results:
        expect(result).to_have_attribute("data-coup", coup, timeout=10_000)
    assert results[0].get_attribute("data-winner") == results[1].get_attribute("data-winner")
    assert board_cards(peeler) == board_cards(watcher) != ""
    # The watcher heard each card turn as it opened (a card: two bursts of noise).
    eventually(
        lambda: watcher.evaluate("() => window.__heard.noise") - heard == 2 * opened,
        "a card's sound for each card opened",
    )
    shoot(peeler, "peeler", (PEELER_SIZE,), "result")
    shoot(watcher, "watcher", (WATCHER_SIZE,), "result")
