"""The five roads beside the Baccarat table in Chromium: "Ask P" and "Ask B"
blink, in every road, the mark one more PLAYER or BANKER win would add,
where games.baccarat.roads puts it for the same history plus that round.

Set ROADS_SHOTS to a directory to also write screenshots there (roads-*.png)."""

from __future__ import annotations

import datetime as dt
import os
import random

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from games.baccarat import roads as core
from games.models import Round
from tests.browser.helpers import MOTION, all_in_view, stored_round
from tests.stored_results import store_results

pytestmark = [pytest.mark.browser, MOTION]

SLUG = "baccarat-classic"
TABLE = f"/baccarat/{SLUG}/"
ROADS = {
    "bead_plate": "bead-plate",
    "big_road": "big-road",
    "big_eye_boy": "table-big-eye-boy",
    "small_road": "table-small-road",
    "cockroach_pig": "table-cockroach-pig",
}
SHOTS = os.environ.get("ROADS_SHOTS", "")


def history(seed: int, n: int) -> list[core.Result]:
    """A shoe's worth of results with streaks long enough for dragon tails."""
    rng = random.Random(seed)
    out, side = [core.Result("banker")], "banker"
    while len(out) < n:
        roll = rng.random()
        if roll < 0.09:
            out.append(core.Result("tie", rng.random() < 0.2, False))
            continue
        if roll < 0.45:
            side = "player" if side == "banker" else "banker"
        out.append(core.Result(side, rng.random() < 0.08, rng.random() < 0.08))
    return out


def store(username: str, results: list[core.Result]) -> None:
    # Played an hour ago: older than the reveal's resume window, so the
    # table's socket does not swap the roads mid-measurement by resending the
    # last result on connect.
    store_results(
        get_user_model().objects.get(username=username),
        results,
        slug=SLUG,
        settled_at=timezone.now() - dt.timedelta(hours=1),
    )


READ = """el => [...el.children].map(c => {
  const s = getComputedStyle(c);
  return {cls: c.className, col: +s.gridColumnStart, row: +s.gridRowStart,
          shown: s.display !== 'none' && c.getBoundingClientRect().width > 0,
          blink: s.animationName};
})"""


def screen(page) -> dict[str, list[dict]]:
    return {name: page.get_by_test_id(testid).evaluate(READ) for name, testid in ROADS.items()}


def kind(cell) -> str:
    """What a core cell looks like on screen: its side or colour class."""
    if isinstance(cell, core.DerivedCell):
        return f"d-{cell.colour}"
    return f"w-{cell.winner}"


def check_ask(page, results: list[core.Result], side: str) -> None:
    """Hold Ask for ``side``; each road blinks exactly the cell the core adds.
    Held, not clicked: a click's marks go after three seconds, which a loaded
    machine reading the five roads can outlast."""
    button = page.get_by_test_id(f"ask-button-{side}")
    button.hover()
    page.mouse.down()
    try:
        expect(button).to_have_attribute("aria-pressed", "true")
        shown = screen(page)
    finally:
        page.mouse.up()
    before = core.all_roads(results)
    after = core.all_roads([*results, core.Result(side)])
    for name, cells in shown.items():
        marks = [c for c in cells if "ask-mark" in c["cls"] and c["shown"]]
        drawn = [c for c in cells if "ask-mark" not in c["cls"]]
        assert all(f"ask-mark-{side}" in m["cls"] for m in marks), name
        # The road on screen is the core's road, cut to its latest columns.
        offset = before[name][-1].col + 1 - drawn[-1]["col"] if drawn else 0
        assert [(c["col"], c["row"]) for c in drawn] == [
            (c.col - offset + 1, c.row + 1) for c in before[name] if c.col >= offset
        ], name
        if len(after[name]) == len(before[name]):
            assert marks == [], f"{name} gets no mark for {side}"
            continue
        new = after[name][-1]
        assert len(marks) == 1, (name, marks)
        mark = marks[0]
        assert (mark["col"], mark["row"]) == (new.col - offset + 1, new.row + 1), name
        assert kind(new) in mark["cls"].split(), (name, mark["cls"])
        assert mark["blink"] == "road-ask-blink", name
        cols = int(
            page.get_by_test_id(ROADS[name]).evaluate("el => el.style.getPropertyValue('--cols')")
        )
        assert 1 <= mark["col"] <= cols, name


def zoom(page, live_url: str, path: str, width: int, height: int) -> None:
    """The roads at twice the pixels, Ask P held, the blink stopped at its visible state."""
    context = page.context.browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=2,
        storage_state=page.context.storage_state(),
    )
    try:
        other = context.new_page()
        other.goto(live_url + TABLE)
        other.get_by_test_id("ask-button-player").click()
        other.get_by_test_id("roads").screenshot(path=path, animations="disabled")
    finally:
        context.close()


def test_ask_p_and_ask_b_blink_the_next_mark_of_every_road(page, live_url, signed_up, orm):
    results = history(80, 80)
    store(signed_up, results)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(live_url + TABLE)
    roads = page.get_by_test_id("roads")
    expect(roads).to_be_visible()
    # All five roads are on the first screen, beside the felt: no scrolling.
    for testid in ROADS.values():
        box = page.get_by_test_id(testid).bounding_box()
        assert box and box["width"] > 100 and box["y"] + box["height"] <= 800, testid
    assert roads.bounding_box()["x"] > page.locator(".felt").bounding_box()["x"] + 300
    expect(page.locator(".ask-mark")).not_to_have_count(0)
    assert not any(
        c["shown"] for cells in screen(page).values() for c in cells if "ask-mark" in c["cls"]
    )

    check_ask(page, results, "player")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/roads-desktop-ask-p.png")
        zoom(page, live_url, f"{SHOTS}/roads-desktop-zoom.png", 1280, 800)
    check_ask(page, results, "banker")
    # A few seconds after the click the marks are hidden again.
    expect(page.locator(".ask-mark-banker").first).to_be_hidden(timeout=6_000)
    expect(page.get_by_test_id("ask-button-banker")).to_have_attribute("aria-pressed", "false")


def test_a_road_that_has_not_started_blinks_nothing(page, live_url, signed_up, orm):
    # B P: a PLAYER win starts the big eye boy; the small road and the
    # cockroach pig have nothing to add yet.
    results = [core.Result("banker"), core.Result("player")]
    store(signed_up, results)
    page.goto(live_url + TABLE)
    check_ask(page, results, "player")
    check_ask(page, results, "banker")
    page.get_by_test_id("ask-button-player").click()
    expect(page.get_by_test_id("table-small-road").locator(".ask-mark")).to_have_count(0)
    expect(page.get_by_test_id("table-big-eye-boy").locator(".ask-mark-player")).to_be_visible()


def test_on_a_phone_the_big_road_is_a_strip_and_the_others_fold_under_a_toggle(
    page, live_url, signed_up, orm
):
    results = history(81, 80)
    store(signed_up, results)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_url + TABLE)
    toggle = page.get_by_test_id("roads-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_test_id("big-road")).to_be_visible()
    for testid in ROADS.values():
        if testid != "big-road":
            expect(page.get_by_test_id(testid)).to_be_hidden()
    expect(page.get_by_test_id("last60")).to_be_visible()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    for testid in ROADS.values():
        box = page.get_by_test_id(testid).bounding_box()
        assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390, testid
    check_ask(page, results, "player")
    if SHOTS:
        page.get_by_test_id("roads").scroll_into_view_if_needed()
        page.get_by_test_id("ask-button-player").click()
        page.screenshot(path=f"{SHOTS}/roads-phone-ask-p.png")
        page.screenshot(path=f"{SHOTS}/roads-phone-full.png", full_page=True)
        zoom(page, live_url, f"{SHOTS}/roads-phone-zoom.png", 390, 844)
    # The whole roads (the menu's Roads): the dialog's close stays in reach
    # scrolled to its end, and closes it.
    page.get_by_test_id("table-menu-button").click()
    page.get_by_test_id("open-roads").click()
    dialog = page.get_by_test_id("roads-dialog")
    expect(dialog.get_by_test_id("roads-detail")).to_be_visible()
    dialog.evaluate("d => d.scrollTo(0, d.scrollHeight)")
    assert dialog.evaluate("d => d.scrollTop") > 0  # it did scroll
    all_in_view(page, ["close-roads"], "at the end of the roads dialog")
    page.get_by_test_id("close-roads").click()
    expect(dialog).to_be_hidden()
    # The choice is remembered on this device.
    page.reload()
    expect(page.get_by_test_id("roads-toggle")).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_test_id("big-road")).to_be_visible()


def test_after_a_round_the_new_roads_ask_from_the_new_history(page, live_url, signed_up, orm):
    """The websocket replaces the roads at the round's end: Ask still works,
    from the history that now includes that round."""
    results = history(82, 40)
    store(signed_up, results)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    before = page.get_by_test_id("bead-plate").locator(".bead").count()
    stored = Round.objects.filter(player__username=signed_up).latest("pk").pk
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-banker").click()
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(
        before + 1, timeout=15_000
    )
    rnd = stored_round(signed_up, after=stored)
    assert rnd.seq == 41
    results.append(core.Result(rnd.winner, rnd.player_pair, rnd.banker_pair))
    check_ask(page, results, "banker")
    check_ask(page, results, "player")
