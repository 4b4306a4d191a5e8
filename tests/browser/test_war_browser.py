"""Casino War in a real browser: a seeded tie taken to war, the keys, and the
decision timeout taking the player off the table and back."""

from __future__ import annotations

from functools import cache

import pytest
from playwright.sync_api import expect

from games.models import Profile, Round, Table
from games.presets import WAR_PAYS
from games.services.tables import snapshot_version
from games.verify import derive_shoe
from tests.browser.helpers import MOTION
from tests.seeds import find_seed, war_cases

pytestmark = [pytest.mark.browser, MOTION]

CLIENT_SEED = "war-browser"


@cache
def seed_for(case: str) -> str:
    return find_seed("war-browser", CLIENT_SEED, 6, lambda shoe: case in war_cases(shoe))


def shoe_of(case: str) -> list[str]:
    return [str(c) for c in derive_shoe(seed_for(case), CLIENT_SEED, 0, 6)]


def next_shoe(username: str, case: str) -> None:
    Profile.objects.filter(user__username=username).update(
        next_server_seed=seed_for(case), client_seed=CLIENT_SEED, nonce=0
    )


def test_a_seeded_tie_goes_to_war_and_shows_the_war_cards_and_the_payout(
    page, live_url, signed_up, orm
):
    next_shoe(signed_up, "war_win")
    shoe = shoe_of("war_win")
    page.goto(f"{live_url}/war/casino-war/")
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("spot-tie").click()
    page.get_by_test_id("chip-1").click()
    expect(page.get_by_test_id("ante-amount")).to_have_text("10")
    expect(page.get_by_test_id("tie-amount")).to_have_text("1")
    page.get_by_test_id("btn-deal").click()

    expect(page.get_by_test_id("decision-panel")).to_be_visible()
    expect(page.get_by_test_id("player-card")).to_have_attribute("data-card", shoe[0])
    expect(page.get_by_test_id("dealer-card")).to_have_attribute("data-card", shoe[1])
    expect(page.get_by_test_id("countdown")).to_have_text("30")
    # 10,000 - 10 ante - 1 tie bonus + 11 tie bonus paid at once
    expect(page.get_by_test_id("header-balance")).to_have_text("10,000")

    page.get_by_test_id("btn-war").click()
    expect(page.get_by_test_id("burn-card")).to_have_count(3)
    expect(page.get_by_test_id("war-player-card")).to_have_attribute("data-card", shoe[5])
    expect(page.get_by_test_id("war-dealer-card")).to_have_attribute("data-card", shoe[6])
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "war_win")
    # ante 10 back + raise 10 x 2 + tie bonus 11
    expect(page.get_by_test_id("war-payout")).to_have_text("41")
    expect(page.get_by_test_id("header-balance")).to_have_text("10,020")

    rnd = Round.objects.get(player__username=signed_up)
    assert rnd.cards == shoe[:7]
    assert rnd.returns == {"ante": 1_000, "raise": 2_000, "tie_bet": 1_100}


def test_the_keys_and_the_chip_rack(page, live_url, signed_up, orm):
    page.goto(f"{live_url}/war/casino-war/")
    ante = page.get_by_test_id("ante-amount")
    # Left click adds, right click takes one off, with no browser menu.
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("chip-5").click()
    expect(ante).to_have_text("30")
    page.get_by_test_id("chip-5").click(button="right")
    expect(ante).to_have_text("25")
    page.keyboard.press("Delete")
    expect(ante).to_have_text("")

    # An ante under the table minimum is raised to it, with a note.
    next_shoe(signed_up, "lose")
    page.get_by_test_id("chip-1").click()
    expect(page.get_by_test_id("bet-note")).to_contain_text("raised to 5")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "lose")
    expect(page.get_by_test_id("ante-raised")).to_be_visible()
    # The ante the server took stays on its spot with its result.
    expect(ante).to_have_text("5")
    expect(page.get_by_test_id("result-ante")).to_have_text("LOST")
    expect(page.get_by_test_id("header-balance")).to_have_text("9,995")

    # PgDn clears the finished round; 0 repeats the last bet.
    page.keyboard.press("PageDown")
    expect(page.get_by_test_id("war-round")).to_have_attribute("data-status", "empty")
    page.keyboard.press("0")
    expect(ante).to_have_text("5")

    # - surrenders a tie.
    next_shoe(signed_up, "tie")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("decision-panel")).to_be_visible()
    # htmx drops a form's submit while its previous request is still settling.
    expect(page.locator(".htmx-request")).to_have_count(0)
    page.keyboard.press("Enter")  # a new deal waits for the decision
    expect(page.get_by_test_id("bet-note")).to_contain_text("Finish your war decision first")
    page.keyboard.press("-")
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "surrender")
    expect(page.get_by_test_id("war-payout")).to_have_text("2.50")

    # + goes to war.
    next_shoe(signed_up, "war_lose")
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("decision-panel")).to_be_visible()
    page.keyboard.press("+")
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "war_lose")
    expect(page.get_by_test_id("war-dealer-card")).to_have_attribute(
        "data-card", shoe_of("war_lose")[6]
    )

    # The help panel lists the keys.
    page.get_by_test_id("help-panel").locator("summary").click()
    for key in ("0", "Enter", "+", "-", "PgDn", "Del"):
        expect(page.get_by_test_id("help-panel").locator("kbd", has_text=key).first).to_be_visible()


def test_time_running_out_takes_the_player_off_the_table_and_back(page, live_url, signed_up, orm):
    slug = f"quick-{signed_up}"[:50]
    table = Table.objects.create(
        game="war",
        name="Quick War",
        slug=slug,
        decks=6,
        chips=[1, 5, 25, 100, 500],
        pays=WAR_PAYS,
        limits={"ante": {"min": 100, "max": 100_000}, "tie_bet": {"min": 100, "max": 10_000}},
        max_bet=110_000,
        decision_timeout=2,
        position=99,
    )
    snapshot_version(table=table)
    next_shoe(signed_up, "tie")
    shoe = shoe_of("tie")
    page.goto(f"{live_url}/war/{slug}/")
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("decision-panel")).to_be_visible()

    page.wait_for_url(f"{live_url}/", timeout=12_000)
    expect(page.locator("#messages")).to_contain_text("Time ran out for your war decision")
    expect(page.locator("#messages")).to_contain_text("Your round is saved")
    resume = page.get_by_test_id("resume-round")
    expect(resume).to_contain_text("Your round at Quick War waits for you")
    resume.get_by_test_id("resume-link").click()
    page.wait_for_url(f"{live_url}/war/{slug}/")
    expect(page.get_by_test_id("decision-panel")).to_be_visible()
    expect(page.get_by_test_id("player-card")).to_have_attribute("data-card", shoe[0])
    expect(page.get_by_test_id("dealer-card")).to_have_attribute("data-card", shoe[1])
    page.get_by_test_id("btn-surrender").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "surrender")
    Table.objects.filter(pk=table.pk).update(enabled=False)
