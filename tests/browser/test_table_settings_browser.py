"""The Baccarat table's sound and settings in Chromium: the mute button and
the volume slider are saved for the player and come back after a reload
(and sound.js plays at that level), and the settings menu's "Game history"
lists the player's rounds at this table, each linking to its round page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.display import signed_chips
from games.models import Profile, Round
from tests.browser.helpers import eventually, stored_round

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-classic/"


def open_table(page, live_url) -> None:
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)


def sound_state(page) -> dict:
    return page.evaluate("async () => (await import('/static/js/sound.js')).sound.state()")


def test_mute_and_volume_survive_a_reload(page, live_url, signed_up, orm):
    open_table(page, live_url)
    mute = page.get_by_test_id("mute")
    volume = page.get_by_test_id("volume")
    expect(mute).to_have_attribute("aria-pressed", "false")
    expect(volume).to_have_value("70")
    assert sound_state(page)["volume"] == 70 and sound_state(page)["sound"] is True

    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    volume.fill("35")
    expect(page.locator("#bac-prefs")).to_have_attribute("data-volume", "35")
    profile = eventually(
        lambda: Profile.objects.filter(user__username=signed_up, volume=35).first(), "the volume"
    )
    assert profile.sound is False

    page.reload()
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(volume).to_have_value("35")
    state = sound_state(page)
    assert (state["sound"], state["volume"]) == (False, 35)
    assert state["gain"] == pytest.approx(0.5 * 0.35**2)
    # The mute button is the settings menu's Sound switch.
    page.get_by_test_id("open-settings").click()
    expect(page.get_by_test_id("setting-sound")).not_to_be_checked()
    page.keyboard.press("Escape")

    # Sound back on, at the level the slider kept.
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "false")
    eventually(
        lambda: Profile.objects.filter(user__username=signed_up, sound=True).exists(), "the sound"
    )
    page.reload()
    expect(mute).to_have_attribute("aria-pressed", "false")
    expect(volume).to_have_value("35")
    assert sound_state(page)["sound"] is True


def play_round(page, after: int, username: str) -> Round:
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-banker").click()
    page.get_by_test_id("bet").click()
    rnd = stored_round(username, after=after)
    expect(page.locator("#bac-phase")).to_have_attribute("data-round", str(rnd.pk))
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done")
    return rnd


def test_game_history_opens_from_settings_and_links_to_the_round_pages(
    page, live_url, signed_up, orm
):
    open_table(page, live_url)
    first = play_round(page, 0, signed_up)
    second = play_round(page, first.pk, signed_up)

    page.get_by_test_id("open-settings").click()
    expect(page.get_by_test_id("settings-dialog")).to_be_visible()
    page.get_by_test_id("open-game-history").click()
    dialog = page.get_by_test_id("game-history-dialog")
    expect(dialog).to_be_visible()
    rows = dialog.get_by_test_id("game-history-row")
    expect(rows).to_have_count(2)
    # Newest first, numbered as at this table, each with its net.
    expect(rows.nth(0)).to_have_attribute("data-round", str(second.pk))
    expect(rows.nth(0).get_by_test_id("game-history-link")).to_have_text(f"#{second.seq}")
    expect(rows.nth(1).get_by_test_id("game-history-link")).to_have_text(f"#{first.seq}")
    expect(rows.nth(1).get_by_test_id("game-history-net")).to_have_text(
        signed_chips(first.total_return - first.total_bet)
    )

    rows.nth(1).get_by_test_id("game-history-link").click()
    page.wait_for_url(f"{live_url}/history/round/{first.pk}/")
    expect(page.locator("h1")).to_contain_text(f"#{first.pk}")
