"""The Casino War table as a player sees it: the stakes stay on their spots
from DEAL to the result, the burnt cards of a war go down face down, and the
table's menu holds the settings, the history and the personal max bet (that
the table fits a phone and a desktop through a war: test_table_fit_browser)."""

from __future__ import annotations

from functools import cache

import pytest
from playwright.sync_api import expect

from games.models import Profile, Round
from tests.browser.helpers import eventually
from tests.seeds import find_seed, war_cases

pytestmark = pytest.mark.browser

CLIENT_SEED = "war-table"
TABLE = "/war/casino-war/"


@cache
def seed_for(case: str) -> str:
    return find_seed("war-table", CLIENT_SEED, 6, lambda shoe: case in war_cases(shoe))


def next_shoe(username: str, case: str) -> None:
    Profile.objects.filter(user__username=username).update(
        next_server_seed=seed_for(case), client_seed=CLIENT_SEED, nonce=0
    )


def bet(page, *, ante: list[int], tie: list[int] = ()) -> None:
    page.get_by_test_id("spot-ante").click()
    for chip in ante:
        page.get_by_test_id(f"chip-{chip}").click()
    if tie:
        page.get_by_test_id("spot-tie").click()
        for chip in tie:
            page.get_by_test_id(f"chip-{chip}").click()


def result_of(page, spot: str):
    return page.get_by_test_id(f"result-{spot}")


def test_the_stakes_stay_on_the_spots_through_a_tie_and_a_war(page, live_url, signed_up, orm):
    next_shoe(signed_up, "war_win")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[25, 5, 5], tie=[1, 1])
    expect(page.get_by_test_id("ante-amount")).to_have_text("35")
    expect(page.get_by_test_id("tie-amount")).to_have_text("2")
    page.get_by_test_id("btn-deal").click()

    # The tie decision: the ante and the tie bonus are still on the felt,
    # the tie bonus already paid, the raise spot still empty.
    expect(page.get_by_test_id("decision-panel")).to_be_visible()
    expect(page.get_by_test_id("ante-amount")).to_have_text("35")
    expect(page.get_by_test_id("spot-ante").locator(".disc")).to_have_count(3)
    expect(page.get_by_test_id("tie-amount")).to_have_text("2")
    expect(result_of(page, "tie")).to_have_attribute("data-outcome", "won")
    expect(result_of(page, "tie")).to_have_text("WON +20")
    expect(result_of(page, "ante")).to_have_count(0)
    expect(page.get_by_test_id("raise-amount")).to_have_text("")
    expect(page.get_by_test_id("burn-card")).to_have_count(0)

    page.get_by_test_id("btn-war").click()
    # The raise goes down beside the ante, equal to it.
    expect(page.get_by_test_id("raise-amount")).to_have_text("35")
    expect(page.get_by_test_id("spot-raise").locator(".disc")).to_have_count(3)
    # Three burnt cards, face down: no face of theirs reaches the page.
    burns = page.get_by_test_id("burn-card")
    expect(burns).to_have_count(3)
    for i in range(3):
        expect(burns.nth(i)).to_have_class("playing-card face-down dealt")
        assert burns.nth(i).get_attribute("data-card") is None
        expect(burns.nth(i).locator(".pc-face")).to_have_count(0)
    expect(page.get_by_test_id("war-player-card")).to_be_visible()
    # Each spot says what it did: the ante pushes, the raise and the tie bonus win.
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "war_win")
    expect(result_of(page, "ante")).to_have_attribute("data-outcome", "push")
    expect(result_of(page, "ante")).to_have_text("PUSH")
    expect(result_of(page, "raise")).to_have_text("WON +35")
    expect(result_of(page, "tie")).to_have_text("WON +20")
    expect(page.get_by_test_id("war-payout")).to_have_text("127")
    rnd = Round.objects.get(player__username=signed_up)
    assert rnd.bets == {"ante": 3_500, "tie_bet": 200, "raise": 3_500}


def test_a_surrender_shows_half_the_ante_back(page, live_url, signed_up, orm):
    next_shoe(signed_up, "surrender")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[25, 5, 5])
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("decision-panel")).to_contain_text("get 17.50 back")
    page.get_by_test_id("btn-surrender").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "surrender")
    expect(result_of(page, "ante")).to_have_attribute("data-outcome", "half")
    expect(result_of(page, "ante")).to_have_text("HALF BACK 17.50")
    expect(page.get_by_test_id("ante-amount")).to_have_text("35")
    expect(page.get_by_test_id("raise-amount")).to_have_text("")
    expect(page.get_by_test_id("burn-card")).to_have_count(0)


def test_a_tie_in_war_is_announced_as_the_players_win(page, live_url, signed_up, orm):
    next_shoe(signed_up, "war_tie")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[5])
    page.get_by_test_id("btn-deal").click()
    page.get_by_test_id("btn-war").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "war_tie")
    expect(page.get_by_test_id("war-result")).to_contain_text("you win")
    expect(result_of(page, "raise")).to_have_text("WON +5")
    expect(page.get_by_test_id("burn-card")).to_have_count(3)


def test_a_new_chip_clears_the_finished_round_and_builds_the_next_bet(
    page, live_url, signed_up, orm
):
    next_shoe(signed_up, "lose")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[5])
    page.get_by_test_id("btn-deal").click()
    expect(result_of(page, "ante")).to_have_text("LOST")
    expect(page.get_by_test_id("ante-amount")).to_have_text("5")
    page.get_by_test_id("chip-25").click()
    expect(page.get_by_test_id("war-round")).to_have_attribute("data-status", "empty")
    expect(result_of(page, "ante")).to_have_count(0)
    expect(page.get_by_test_id("ante-amount")).to_have_text("25")
    expect(page.get_by_test_id("bet-total")).to_have_text("25")


def set_pin_on_the_account_page(page, live_url, pin: str) -> None:
    page.goto(f"{live_url}/account/")
    form = page.get_by_test_id("pin-form")
    form.locator("input[name=password]").fill("pw-Secret-123")
    form.locator("input[name=new_pin]").fill(pin)
    form.locator("input[name=confirm_pin]").fill(pin)
    page.get_by_test_id("pin-submit").click()
    expect(page.locator("#messages")).to_contain_text("Your PIN is set")


def open_bet_options(page) -> None:
    page.get_by_test_id("open-menu").click()
    expect(page.get_by_test_id("war-menu")).to_be_visible()
    page.get_by_test_id("tab-bet-options").click()


def test_the_personal_max_bet_is_set_from_the_table_menu_with_the_pin(
    page, live_url, signed_up, orm
):
    # Without a PIN on the account, the menu says where to set one.
    page.goto(f"{live_url}{TABLE}")
    open_bet_options(page)
    expect(page.get_by_test_id("max-bet-no-pin")).to_contain_text("Set a PIN first")

    set_pin_on_the_account_page(page, live_url, "2468")
    page.goto(f"{live_url}{TABLE}")
    expect(page.get_by_test_id("round-max")).to_have_text("10,500")
    open_bet_options(page)

    # Without the PIN: refused, with the reason, and nothing changes.
    page.get_by_test_id("menu-max-bet").fill("100")
    page.get_by_test_id("menu-max-bet-submit").click()
    expect(page.get_by_test_id("max-bet-error")).to_have_text(
        "Enter your PIN to confirm the change."
    )
    # A wrong PIN is refused too.
    page.get_by_test_id("menu-pin").fill("1111")
    page.get_by_test_id("menu-max-bet-submit").click()
    expect(page.get_by_test_id("max-bet-message")).to_have_text("The PIN is not correct.")
    assert Profile.objects.get(user__username=signed_up).personal_max_bet is None
    expect(page.get_by_test_id("round-max")).to_have_text("10,500")

    # With it: set, said in the menu, and the table's MAX BET follows at once.
    page.get_by_test_id("menu-max-bet").fill("100")
    page.get_by_test_id("menu-pin").fill("2468")
    page.get_by_test_id("menu-max-bet-submit").click()
    expect(page.get_by_test_id("max-bet-message")).to_contain_text(
        "Your personal max bet is now 100 chips per round"
    )
    expect(page.get_by_test_id("menu-personal-max")).to_have_text("100")
    # Once a week: the next change waits for the next Friday in New York.
    expect(page.get_by_test_id("max-bet-next")).to_contain_text("Fri")
    expect(page.get_by_test_id("round-max")).to_have_text("100")
    expect(page.get_by_test_id("personal-limit")).to_be_visible()
    assert Profile.objects.get(user__username=signed_up).personal_max_bet == 10_000

    # The limit bounds a war's raise too: the table says which ante can still
    # go to war, and the chip rack checks it as chips go down.
    expect(page.get_by_test_id("war-ante-most")).to_have_text("50")
    page.get_by_test_id("close-menu").click()
    bet(page, ante=[25, 25, 5])
    expect(page.get_by_test_id("bet-note")).to_contain_text(
        "the largest ANTE that can still go to war is 50 chips"
    )
    expect(page.get_by_test_id("ante-amount")).to_have_text("50")
    # A tie bet takes room beside it: the line follows the bet being built.
    page.get_by_test_id("btn-clear").click()
    bet(page, ante=[], tie=[5, 5])
    expect(page.get_by_test_id("war-ante-most")).to_have_text("45")
    bet(page, ante=[25, 25])
    expect(page.get_by_test_id("bet-note")).to_contain_text("can still go to war is 45 chips")
    expect(page.get_by_test_id("ante-amount")).to_have_text("25")


def test_the_menu_shows_the_settings_and_the_last_rounds_at_this_table(
    page, live_url, signed_up, orm
):
    next_shoe(signed_up, "win")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[5])
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "win")
    rnd = Round.objects.get(player__username=signed_up)

    page.get_by_test_id("open-menu").click()
    page.get_by_test_id("setting-fast-play").check()
    expect(page.get_by_test_id("settings-saved")).to_be_visible()
    assert Profile.objects.get(user__username=signed_up).fast_play is True

    page.get_by_test_id("tab-history").click()
    rows = page.get_by_test_id("game-history-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("You win")
    expect(rows.first).to_contain_text("+5")
    page.get_by_test_id("game-history-link").first.click()
    page.wait_for_url(f"{live_url}/history/round/{rnd.pk}/")


def test_reduced_motion_deals_without_movement(browser, live_url, orm):
    context = browser.new_context(reduced_motion="reduce", locale="en-US")
    page = context.new_page()
    username = f"still{id(page) % 100000}"
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", "pw-Secret-123")
    page.fill("input[name=password2]", "pw-Secret-123")
    page.click("[data-testid=signup-submit]")
    page.wait_for_url(f"{live_url}/")
    next_shoe(username, "lose")
    page.goto(f"{live_url}{TABLE}")
    bet(page, ante=[5])
    page.get_by_test_id("btn-deal").click()
    card = page.get_by_test_id("player-card")
    expect(card).to_be_visible()
    assert card.evaluate("el => el.classList.contains('dealt')")
    assert card.evaluate("el => getComputedStyle(el).animationName") == "none"
    context.close()


def test_the_volume_set_in_the_war_menu_is_the_players_and_survives_a_reload(
    page, live_url, signed_up, orm
):
    page.goto(f"{live_url}/war/casino-war/")
    page.get_by_test_id("open-menu").click()
    slider = page.get_by_test_id("setting-volume")
    expect(slider).to_be_visible()
    slider.fill("30")
    slider.dispatch_event("change")
    eventually(
        lambda: Profile.objects.get(user__username=signed_up).volume == 30, "the volume's setting"
    )
    page.reload()
    expect(page.get_by_test_id("setting-volume")).to_have_value("30")
