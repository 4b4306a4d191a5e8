"""Both tables fit the hand: at six screen sizes, from an upright phone to a
large desktop, everything a round needs is on screen at the top of the page,
without scrolling and not covered, before a round, at War's decision and
after the result; the page never reaches past the screen's sides; and
nothing on the page jumps while a round is played (an error included)."""

from __future__ import annotations

import hashlib
from functools import cache

import pytest
from playwright.sync_api import expect

from games.baccarat.rules import play_coup
from games.models import Profile
from tests.browser.helpers import MOTION, all_in_view, cut_off, past_the_sides
from tests.seeds import find_seed, war_cases

pytestmark = [pytest.mark.browser, MOTION]

SIZES = {
    "390x844": {"width": 390, "height": 844},
    "360x740": {"width": 360, "height": 740},
    "844x390": {"width": 844, "height": 390},
    "768x1024": {"width": 768, "height": 1024},
    "1280x800": {"width": 1280, "height": 800},
    "1920x1080": {"width": 1920, "height": 1080},
}
PHONES = {"390x844", "360x740", "844x390"}

BACCARAT = "/baccarat/baccarat-social/"
BACCARAT_PARTS = [
    "board",
    "area-player",
    "area-banker",
    "area-tie",
    "rack",
    "bet",
    "big-road",
    "header-balance",
]
WAR = "/war/casino-war/"
WAR_PARTS = [
    "war-round",
    "spot-ante",
    "spot-tie",
    "rack",
    "btn-deal",
    *(f"chip-{c}" for c in (1, 5, 25)),
]
CLIENT_SEED = "fit-tests"

# Every layout shift the page makes, from its first paint: user input does
# not excuse one here (an error line that pushes the chips down moves them
# under the player's thumb however it came).
LAYOUT_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__shifts.push({
      value: entry.value, input: entry.hadRecentInput, t: Math.round(entry.startTime),
      nodes: (entry.sources || []).map((s) => s.node && (s.node.id || s.node.className || s.node.nodeName)),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


@cache
def baccarat_seed() -> str:
    """A Social shoe where PLAYER wins with no pair."""

    def wanted(shoe) -> bool:
        coup = play_coup(shoe)
        return coup.winner == "player" and not coup.player_pair and not coup.banker_pair

    return find_seed("fit-player-wins", CLIENT_SEED, 1, wanted)


@cache
def war_seed() -> str:
    """A War shoe whose first two cards tie and whose war the player wins."""
    return find_seed("fit-war", CLIENT_SEED, 6, lambda shoe: "war_win" in war_cases(shoe))


def next_shoe(username: str, seed: str) -> None:
    Profile.objects.filter(user__username=username).update(
        next_server_seed=seed, client_seed=CLIENT_SEED, nonce=0
    )


# Whether every animation in the elements a selector names (and inside them)
# has ended; one that runs forever (a glow, a spinner) never does.
STILL = """
(selector) => [...document.querySelectorAll(selector)]
  .flatMap((el) => el.getAnimations({ subtree: true }))
  .every((a) => a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)
"""


def still(page, selector: str) -> None:
    """Wait for the animations in ``selector`` to end (the page measured at rest)."""
    page.wait_for_function(STILL, arg=selector, polling=100)


def cumulative_shift(page) -> float:
    return page.evaluate("window.__shifts.reduce((sum, s) => sum + s.value, 0)")


def open_at(page, live_url, size: str, path: str):
    """The signed-up player's page, resized, with the layout-shift observer
    in place before the table's first paint."""
    page.set_viewport_size(SIZES[size])
    page.add_init_script(LAYOUT_SHIFTS)
    page.goto(live_url + path)


def play_baccarat_round(page) -> None:
    # An error first: REBET with no previous bet at this table.
    page.get_by_test_id("rebet").click()
    expect(page.get_by_test_id("slip-error")).to_be_visible()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("bet-total")).to_have_text("10")
    page.get_by_test_id("bet").click()
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done", timeout=20_000)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")


# How far below its button's middle a key hint sits, in whole pixels (every
# size here has a mouse and keys: the hints show).
KEY_OFFSET = """(button) => {
  const b = button.getBoundingClientRect();
  const k = button.querySelector("kbd").getBoundingClientRect();
  return Math.round((k.top + k.bottom - b.top - b.bottom) / 2);
}"""


def play_war_round(page) -> None:
    """A tie gone to war and won, with a tie bet beside the ante; at the
    decision, WAR is in sight without scrolling, the round's spots and DEAL
    (idle) too."""
    # An error first: DEAL with no ante.
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("bet-note")).not_to_be_empty()
    page.get_by_test_id("spot-ante").click()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("spot-tie").click()
    page.get_by_test_id("chip-1").click()
    expect(page.get_by_test_id("bet-total")).to_have_text("11")
    page.get_by_test_id("btn-deal").click()
    # (Its timer drains for the whole decision: the page is not waited still here.)
    expect(page.get_by_test_id("decision-panel")).to_be_visible(timeout=20_000)
    assert page.evaluate("window.scrollY") == 0  # nothing scrolled the page for the player
    all_in_view(page, ["war-round", "spot-ante", "spot-tie", "btn-war", "btn-deal"], "at the tie")
    # WAR and SURRENDER show their keys alike (SURRENDER's once wrapped under
    # the word alone on a desktop).
    war, surrender = (
        page.get_by_test_id(b).evaluate(KEY_OFFSET) for b in ("btn-war", "btn-surrender")
    )
    assert abs(war - surrender) <= 2, (war, surrender)  # a pixel's rounding apart at most
    page.get_by_test_id("btn-war").click()
    expect(page.get_by_test_id("war-result")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("burn-card")).to_have_count(3)
    still(page, "body")  # the deal, the result's fade and the win's chip shower
    assert page.evaluate("window.scrollY") == 0
    # Each spot's result sits centred under its spot (the fade-in's end once
    # moved them half their width to the right, onto the chips).
    off_centre = page.locator(".spot-result").evaluate_all(
        """els => els.map(el => {
          const r = el.getBoundingClientRect(), s = el.closest(".spot").getBoundingClientRect();
          return Math.round(Math.abs(r.left + r.width / 2 - (s.left + s.width / 2)));
        })"""
    )
    assert off_centre and max(off_centre) <= 1, off_centre


@pytest.mark.parametrize("size", list(SIZES))
def test_a_baccarat_round_fits_the_screen_and_nothing_jumps(page, live_url, signed_up, orm, size):
    next_shoe(signed_up, baccarat_seed())
    open_at(page, live_url, size, BACCARAT)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    all_in_view(page, BACCARAT_PARTS, "before a round")
    assert past_the_sides(page) == 0
    play_baccarat_round(page)
    still(page, "[data-testid=board]")
    all_in_view(page, BACCARAT_PARTS, "after the result")
    # The chips on PLAYER leave its name and its WIN badge in sight.
    stack = page.locator("#bac-bet-player .stack").bounding_box()
    for part in ("[data-testid=area-player] .area-name", "[data-testid=outcome-player]"):
        box = page.locator(part).bounding_box()
        apart = (
            box["x"] + box["width"] <= stack["x"]
            or stack["x"] + stack["width"] <= box["x"]
            or box["y"] + box["height"] <= stack["y"]
            or stack["y"] + stack["height"] <= box["y"]
        )
        assert apart, (part, box, stack)
    expect(page.get_by_test_id("outcome-player")).to_have_attribute("data-outcome", "won")
    assert past_the_sides(page) == 0
    shifts = page.evaluate("window.__shifts")
    assert cumulative_shift(page) <= 0.05, shifts


@pytest.mark.parametrize("size", list(SIZES))
def test_a_war_round_fits_the_screen_and_nothing_jumps(page, live_url, signed_up, orm, size):
    next_shoe(signed_up, war_seed())
    open_at(page, live_url, size, WAR)
    all_in_view(page, WAR_PARTS, "before a round")
    assert past_the_sides(page) == 0
    assert cut_off(page, "war-limits") == 0  # every limit whole, the MAX BET in sight
    play_war_round(page)
    all_in_view(page, WAR_PARTS, "after the result")
    assert past_the_sides(page) == 0
    shifts = page.evaluate("window.__shifts")
    assert cumulative_shift(page) <= 0.05, shifts


# A 1-deck Social shoe whose Player's 2nd card is peeled (tests/browser/test_squeeze_browser.py).
SQUEEZE_SEED = hashlib.sha256(b"squeeze-browser-210").hexdigest()


# The round is over, or a card waits for OPEN.
OFFERED_OR_DONE = """
() => document.querySelector("#bac-phase").dataset.phase === "done"
  || Boolean(document.querySelector("[data-testid=peel-open]")?.checkVisibility())
"""


# The round is over, or the stage no longer offers the card it offered.
MOVED_ON = """
(offered) => document.querySelector("#bac-phase").dataset.phase === "done"
  || document.querySelector("#bac-squeeze").dataset.peel !== offered
"""


def play_squeezed_round(page, size: str) -> None:
    """1,000 on PLAYER (the Social table's threshold), SQUEEZE ON, BET, then
    each card offered is opened with OPEN until the round ends."""
    page.get_by_test_id("chip-100").click()
    page.get_by_test_id("multiplier").click()  # x10
    page.get_by_test_id("area-player").click()
    expect(page.get_by_test_id("amount-player")).to_have_text("1,000")
    page.get_by_test_id("squeeze-button").click()
    expect(page.get_by_test_id("squeeze-toggle")).to_have_attribute("data-on", "1")
    page.get_by_test_id("bet").click()
    stage = page.get_by_test_id("squeeze-stage")
    expect(stage).to_be_visible()
    still(page, "[data-testid=squeeze-stage]")  # its entrance
    box = stage.bounding_box()
    viewport = SIZES[size]
    if size in PHONES:
        # On a phone the card being peeled fills the screen.
        assert box == {"x": 0, "y": 0, **viewport}, box
    all_in_view(page, ["peel-card", "peel-open"], "while squeezing")
    while True:
        page.wait_for_function(OFFERED_OR_DONE, polling=100)
        if page.locator("#bac-phase").get_attribute("data-phase") == "done":
            break
        offered = stage.get_attribute("data-peel")
        page.get_by_test_id("peel-open").click(timeout=3000)
        page.wait_for_function(MOVED_ON, arg=offered, polling=100)
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")


# The peel follows the pointer, not an animation: seen with motion reduced (the
# win's celebration after it, the same at every table, is the rounds' above).
@pytest.mark.browser_context_args(reduced_motion="reduce")
@pytest.mark.parametrize("size", list(SIZES))
def test_a_squeezed_round_fills_a_phone_and_nothing_jumps(page, live_url, signed_up, orm, size):
    Profile.objects.filter(user__username=signed_up).update(
        next_server_seed=SQUEEZE_SEED, client_seed="squeeze-browser", nonce=0
    )
    open_at(page, live_url, size, BACCARAT)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    play_squeezed_round(page, size)
    still(page, "[data-testid=board]")
    all_in_view(page, BACCARAT_PARTS, "after a squeezed round")
    shifts = page.evaluate("window.__shifts")
    assert cumulative_shift(page) <= 0.05, shifts


@pytest.mark.parametrize("size", sorted(PHONES))
def test_the_table_with_the_most_chips_is_no_wider_than_a_phone(page, live_url, signed_up, size):
    """Classic's rack, the largest, once reached past the screen through its
    hidden inputs (the other tables are measured by the rounds above)."""
    open_at(page, live_url, size, "/baccarat/baccarat-classic/")
    expect(page.get_by_test_id("rack")).to_be_visible()
    still(page, "body")
    assert past_the_sides(page) == 0
