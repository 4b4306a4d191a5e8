"""The chip rack reaches each table's maximum: on an upright phone and on a
desktop, a player puts the most an area takes on Baccarat Social (5,000 on
PLAYER), Baccarat Classic (20,000) and Casino War (an ANTE of 5,000) in a
few taps, the rack's arrows included, and the server takes that bet; the
squeeze opens with one chip. A chip of a value is drawn in one colour in
both games, at any multiplier."""

from __future__ import annotations

import pytest
from django.db import transaction
from playwright.sync_api import expect

from games.models import Wallet
from games.services.wallet import Posting, post
from tests.browser.helpers import stored_round

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

# Whether the element is wholly inside the rack's visible strip.
IN_STRIP = """(el) => {
  const strip = el.closest("[data-rack-chips]").getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return r.left >= strip.left - 1 && r.right <= strip.right + 1;
}"""

# The chosen chip, lifted and ringed in gold, drawn whole: nothing of it or
# its ring cut off by the strip's edges.
DRAWN_WHOLE = r"""(el) => {
  const strip = el.closest("[data-rack-chips]").getBoundingClientRect();
  const chip = el.querySelector(".chip");
  const r = chip.getBoundingClientRect();
  // The first shadow's spread: "rgb(…) 0px 0px 0px 3px, …".
  const ring = Number(getComputedStyle(chip).boxShadow.match(/\)\s+(?:-?[\d.]+px\s+){3}(-?[\d.]+)px/)[1]);
  return r.top - ring >= strip.top - 0.5 && r.left - ring >= strip.left - 0.5 && r.right + ring <= strip.right + 0.5;
}"""


# True once the rack's strip has not moved since the last look (a smooth
# scroll has ended).
SCROLL_SETTLED = """
() => {
  const now = document.querySelector("[data-rack-chips]").scrollLeft;
  const settled = window.__rackScroll === now;
  window.__rackScroll = now;
  return settled;
}
"""


def wait_for_scroll_to_settle(page) -> None:
    page.evaluate("() => { window.__rackScroll = undefined; }")
    page.wait_for_function(SCROLL_SETTLED, polling=120, timeout=5_000)


def tap_chip(page, value: int) -> int:
    """Presses the rack's › until the chip is wholly in sight, then the chip,
    as a player would; the presses made (the chip's included)."""
    chip = page.get_by_test_id(f"chip-{value}")
    presses = 0
    while not chip.evaluate(IN_STRIP):
        assert presses < 4, f"chip {value} still out of sight"
        page.get_by_test_id("rack-next").click()
        presses += 1
        wait_for_scroll_to_settle(page)
    chip.click()
    return presses + 1


def give_chips(username: str, chips: int) -> None:
    wallet = Wallet.objects.get(user__username=username)
    with transaction.atomic():
        post(wallet_id=wallet.pk, postings=[Posting("adjustment", chips * 100, "test")])


@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_bets_social_s_maximum_and_opens_the_squeeze_in_a_few_taps(
    page, live_url, signed_up, orm, size
):
    page.set_viewport_size(SIZES[size])
    page.goto(live_url + "/baccarat/baccarat-social/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    toggle = page.get_by_test_id("squeeze-toggle")
    expect(toggle).to_have_attribute("data-unlocked", "0")

    # The squeeze's 1,000: one chip on an area.
    taps = tap_chip(page, 1000)
    page.get_by_test_id("area-banker").click()
    assert taps + 1 <= (2 if size == "desktop" else 3)
    expect(page.get_by_test_id("amount-banker")).to_have_text("1,000")
    expect(toggle).to_have_attribute("data-unlocked", "1")
    page.get_by_test_id("clear").click()

    # PLAYER's 5,000 maximum: one chip.
    taps = tap_chip(page, 5000)
    page.get_by_test_id("area-player").click()
    assert taps + 1 <= (2 if size == "desktop" else 3)
    expect(page.get_by_test_id("amount-player")).to_have_text("5,000")
    page.get_by_test_id("bet").click()
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done", timeout=20_000)
    assert stored_round(signed_up, game="baccarat").bets == {"player": 500_000}


@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_bets_classic_s_maximum_in_a_few_taps(page, live_url, signed_up, orm, size):
    give_chips(signed_up, 15_000)
    page.set_viewport_size(SIZES[size])
    page.goto(live_url + "/baccarat/baccarat-classic/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)

    # The squeeze's 5,000: one chip.
    taps = tap_chip(page, 5000)
    page.get_by_test_id("area-player").click()
    assert taps + 1 <= (2 if size == "desktop" else 4)
    expect(page.get_by_test_id("squeeze-toggle")).to_have_attribute("data-unlocked", "1")
    page.get_by_test_id("clear").click()

    # PLAYER's 20,000 maximum: two chips; a third is refused with the limit.
    taps = tap_chip(page, 10000)
    for _ in range(2):
        page.get_by_test_id("area-player").click()
    assert taps + 2 <= (3 if size == "desktop" else 5)
    expect(page.get_by_test_id("amount-player")).to_have_text("20,000")
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("slip-error")).to_contain_text("20,000")
    expect(page.get_by_test_id("amount-player")).to_have_text("20,000")
    page.get_by_test_id("bet").click()
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done", timeout=20_000)
    assert stored_round(signed_up, game="baccarat").bets == {"player": 2_000_000}


@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_bets_war_s_maximum_ante_in_a_few_taps(page, live_url, signed_up, orm, size):
    page.set_viewport_size(SIZES[size])
    page.goto(live_url + "/war/casino-war/")
    page.get_by_test_id("spot-ante").click()
    taps = tap_chip(page, 5000)
    assert taps <= (1 if size == "desktop" else 3)
    expect(page.get_by_test_id("ante-amount")).to_have_text("5,000")
    # The stack on ANTE says what its top chip is worth.
    expect(page.locator("[data-testid=spot-ante] .disc").last).to_have_text("5K")
    page.get_by_test_id("btn-deal").click()
    assert stored_round(signed_up, game="war").bets["ante"] == 500_000


def rack_colours(page, selector: str) -> dict[str, str]:
    """The rack's chips: label -> the colour its face is painted."""
    return page.eval_on_selector_all(
        selector,
        """(faces) => Object.fromEntries(faces.map((face) => [
          face.textContent.trim(), getComputedStyle(face).backgroundColor,
        ]))""",
    )


def test_a_chip_has_one_colour_in_both_games(page, live_url, signed_up, orm):
    page.goto(live_url + "/war/casino-war/")
    war = rack_colours(page, "[data-rack-chips] .chip")
    assert list(war) == ["1", "5", "25", "100", "500", "1K", "5K"]
    assert len(set(war.values())) == len(war)

    page.goto(live_url + "/baccarat/baccarat-classic/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    classic = rack_colours(page, "[data-rack-chips] .chip")
    assert len(set(classic.values())) == len(classic) == 10
    for label, colour in war.items():
        assert classic[label] == colour, label
    # At x10 the rack's chips are others, each in the colour it has anywhere.
    page.get_by_test_id("multiplier").click()
    expect(page.get_by_test_id("multiplier")).to_have_text("×10")
    tenfold = rack_colours(page, "[data-rack-chips] .chip")
    assert list(tenfold)[:6] == ["1", "5", "10", "50", "250", "1K"]
    for label in ("1", "5", "1K", "5K"):
        assert tenfold[label] == war[label], label


def test_the_chosen_chip_is_in_sight_after_a_reload_on_a_phone(page, live_url, signed_up, orm):
    page.set_viewport_size(SIZES["phone"])
    page.goto(live_url + "/baccarat/baccarat-social/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    chip = page.get_by_test_id("chip-5000")
    assert not chip.evaluate(IN_STRIP), "the rack starts at its smallest chips"
    chosen = page.locator("[data-rack-chips] .chip-pick:has(input:checked)")
    assert chosen.evaluate(DRAWN_WHOLE)
    tap_chip(page, 5000)
    page.reload()
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    expect(chip.locator("input")).to_be_checked()
    assert chip.evaluate(IN_STRIP)
    page.wait_for_function(SCROLL_SETTLED, polling=100)
    assert chip.evaluate(DRAWN_WHOLE)
    # And it goes down at once, no arrow needed.
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("5,000")
