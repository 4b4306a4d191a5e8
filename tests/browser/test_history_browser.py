"""A player reviews a past coup: opens the history, the round, verifies its
shuffle and watches the replay."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.stored_results import settled_coup

pytestmark = pytest.mark.browser


def _coup_for(username: str) -> dict:
    """Store a settled coup for the player, dealt from a real shoe, as the
    baccarat service would; returns what the page should show."""
    rnd, coup = settled_coup(
        get_user_model().objects.get(username=username),
        bets={"banker": 1_000},
        client_seed="browser",
        # A coup with a third card, so the replay has something to deal.
        wanted=lambda coup: len(coup.player) >= 3,
    )
    return {"pk": rnd.pk, "cards": rnd.cards, "player_total": coup.player_total}


def test_a_player_opens_a_round_verifies_it_and_replays_it(page, live_url, signed_up, orm):
    coup = _coup_for(signed_up)
    page.goto(f"{live_url}/history/")
    expect(page.get_by_test_id("history-row")).to_have_count(1)
    expect(page.get_by_test_id("summary-rounds")).to_have_text("1")
    expect(page.get_by_test_id("summary-bet")).to_have_text("10")

    # Filtering to Casino War re-renders the list in place: no rounds there.
    page.locator("select[name=game]").select_option("war")
    expect(page.get_by_test_id("history-empty")).to_be_visible()
    expect(page.get_by_test_id("summary-rounds")).to_have_text("0")
    expect(page).to_have_url(re.compile(r"[?&]game=war"))
    page.locator("select[name=game]").select_option("")
    expect(page.get_by_test_id("history-row")).to_have_count(1)

    page.get_by_test_id("round-link").click()
    page.wait_for_url(f"{live_url}/history/round/{coup['pk']}/")
    expect(page.get_by_test_id("deal-order").locator("li")).to_have_count(len(coup["cards"]))

    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text("✔ Matches")

    replay = page.get_by_test_id("replay")
    page.get_by_test_id("replay-start").click()
    expect(replay).to_have_attribute("data-state", "playing")
    page.get_by_test_id("replay-fast").click()
    expect(page.get_by_test_id("replay-fast")).to_have_attribute("aria-pressed", "true")
    expect(replay).to_have_attribute("data-state", "done")
    expect(replay.locator("[data-hand] .playing-card")).to_have_count(len(coup["cards"]))
    expect(page.get_by_test_id("player-total")).to_have_text(str(coup["player_total"]))
    expect(page.get_by_test_id("round-result")).not_to_be_empty()
