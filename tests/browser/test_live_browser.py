"""A live table seen by three players at once: two bet on the new shoe's
first coup (each page committing a secret seed with its bet and revealing
it when betting closes), one only watches, and all three see the same shoe
and coup, three players at the table, the countdown, the same cards and the same road; each betting
player's own balance moves by what their bet returned."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Round, Shoe, Table
from games.services.tables import create_presets, save_table, table_snapshot
from tests.browser.helpers import (
    HEARD,
    all_in_view,
    eventually,
    seat_at_live_table,
    wait_for_fresh_window,
)
from tests.live import finish_shoe

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-live/"
IN_SIGHT = ["live-clock", "area-player", "chip-1", "bet"]
# The areas whose payout runs into their limits line, by more than the
# lines' own leading, or whose limits line (MIN 0.10 · MAX 20,000 here)
# takes two lines, as it did in a phone's once narrower BANKER area.
CROWDED = """() => [...document.querySelectorAll("#bac-areas .area")].filter((area) => {
  const pay = area.querySelector(".area-pay").getBoundingClientRect();
  const limits = area.querySelector(".minmax");
  const box = limits.getBoundingClientRect();
  const style = getComputedStyle(limits);  // a line-height of "normal" is about 1.2 em
  const lines = box.height / (parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize));
  return pay.bottom - box.top > 3 || lines > 1.5;
}).map((area) => area.className)"""
# Where the bet's first area stands in the page (from its top, in CSS px).
BET_AT = "() => Math.round(document.querySelector('[data-testid=area-player]').getBoundingClientRect().top + window.scrollY)"
# The Player's hand while its first card has landed and its second not yet:
# that card's code and the score shown then.
FIRST_LANDED = """() => {
  const hand = document.querySelector(".live-board .hand-player");
  const landed = hand ? hand.querySelectorAll(".playing-card.landed") : [];
  if (landed.length !== 1) return null;
  return [landed[0].dataset.card, hand.querySelector(".score").textContent.trim()];
}"""
SIZES = (
    {"width": 1280, "height": 800},
    {"width": 390, "height": 844},
    {"width": 844, "height": 390},  # a phone on its side
)


@pytest.fixture
def live_table(orm):
    create_presets()
    table = Table.objects.get(slug="baccarat-live")
    # The test bets on a new shoe's first coup (the seeds' reveal): a shoe an
    # earlier test at this table has dealt into is dealt to its end first.
    shoe = Shoe.objects.filter(table=table, ended_at__isnull=True).order_by("-number").first()
    if shoe is not None and shoe.entropy:
        finish_shoe(shoe.pk)
    before = table_snapshot(table)
    table.betting_seconds = 12  # the clock, shorter for the test
    save_table(table=table, actor=None, before=before)
    return table


def seated(browser, context_args, live_url, password_hash, n: int):
    seats = [
        seat_at_live_table(browser, context_args, live_url, password_hash, f"live{i}x", size)
        for i, size in enumerate(SIZES[:n])
    ]
    return [page for page, _ in seats], [user for _, user in seats]


def test_three_players_see_one_coup_one_deal_one_road(
    browser, browser_context_args, live_url, live_table, password_hash
):
    (ann, bob, cat), (ann_user, bob_user, _cat_user) = seated(
        browser, browser_context_args, live_url, password_hash, 3
    )
    ann.evaluate(HEARD)
    wait_for_fresh_window(ann, 9)  # both bets, their notes and the shares
    ann.get_by_test_id("chip-100").click()
    ann.get_by_test_id("area-player").click()
    ann.get_by_test_id("bet").click()
    expect(ann.get_by_test_id("slip-note")).to_contain_text("placed on coup")
    expect(ann.get_by_test_id("header-balance")).to_have_text("9,900")
    bob.get_by_test_id("chip-25").click()
    bob.get_by_test_id("area-banker").click()
    bob.get_by_test_id("bet").click()
    expect(bob.get_by_test_id("slip-note")).to_contain_text("placed on coup")
    coup = ann.get_by_test_id("live-coup").get_attribute("data-coup")
    # On the upright phone the bet stands in one place through the coup's
    # calls (bets open, no more bets, the result, the next coup's bets), so a
    # tap in the last second lands where the player aimed.
    bet_at = {"open": bob.evaluate(BET_AT)}
    # On the phone as on the desktop, the clock and the bet (an area, the
    # chips, BET) are in sight together, without scrolling.
    for page in (ann, bob, cat):
        all_in_view(page, IN_SIGHT, "while bets are open")
        assert page.evaluate(CROWDED) == []
    # Everybody at the table sees the share of the stakes on each area while
    # bets are open, and three players there: the one watching counts too.
    for page in (ann, bob, cat):
        expect(page.get_by_test_id("live-coup")).to_have_attribute("data-coup", coup)
        expect(page.get_by_test_id("live-players")).to_have_text("3 players")
        expect(page.get_by_test_id("share-player")).to_contain_text("80%")  # 100 of 125
        expect(page.get_by_test_id("share-banker")).to_contain_text("20%")

    # Betting closes; both betting pages reveal their seeds, and the shoe is shuffled with them.
    for page in (ann, bob):
        expect(page.get_by_test_id("slip-note")).to_contain_text("seed is revealed", timeout=20_000)
    expect(bob.get_by_test_id("live-clock")).to_have_attribute("data-state", "closed")
    bet_at["closed"] = bob.evaluate(BET_AT)
    before = ann.evaluate("() => ({...window.__heard})")
    # As the cards land, the hand's score counts them, before the result.
    code, shown = ann.wait_for_function(FIRST_LANDED, polling=50, timeout=20_000).json_value()
    assert shown == str(0 if code[0] in "TJQK" else 1 if code[0] == "A" else int(code[0]))
    assert ann.get_by_test_id("live-result").get_attribute("data-winner") is None
    # The cards slide in; the result follows once they are all in place.
    for page in (ann, bob, cat):
        expect(page.get_by_test_id("live-result")).to_have_attribute(
            "data-coup", coup, timeout=20_000
        )
        expect(page.get_by_test_id("live-result")).to_have_attribute(
            "data-winner", re.compile(r"^(player|banker|tie)$"), timeout=10_000
        )
    cards = [
        page.get_by_test_id("board")
        .locator(".playing-card")
        .evaluate_all("cards => cards.map(c => c.dataset.card).join(' ')")
        for page in (ann, bob, cat)
    ]
    assert cards[0] and cards.count(cards[0]) == 3
    bet_at["result"] = bob.evaluate(BET_AT)
    # Ann heard each card as it slid in (two bursts of noise a card) and,
    # with her seat's message, her own result (its notes).
    expect(ann.get_by_test_id("my-last")).to_contain_text(f"({coup})")
    heard = ann.evaluate("() => ({...window.__heard})")
    assert heard["noise"] - before["noise"] == 2 * len(cards[0].split())
    assert heard["notes"] - before["notes"] >= 2
    roads = [page.get_by_test_id("big-road").inner_html() for page in (ann, bob, cat)]
    assert roads.count(roads[0]) == 3
    expect(bob.get_by_test_id("live-coup")).not_to_have_attribute("data-coup", coup, timeout=20_000)
    expect(bob.get_by_test_id("live-clock")).to_have_attribute("data-state", "open")
    bet_at["next"] = bob.evaluate(BET_AT)
    assert max(bet_at.values()) - min(bet_at.values()) <= 2, bet_at  # a pixel's rounding

    settled = eventually(
        lambda: Round.objects.filter(player=ann_user, status=Round.Status.SETTLED).first(),
        "ann's bet settled",
    )
    assert " ".join(settled.detail["player"] + settled.detail["banker"]) == cards[0]
    shoe = Shoe.objects.get(pk=settled.coup.shoe_id)
    assert len(shoe.commitments) == len(shoe.contributions) == 2  # both seeds counted
    ann_user.wallet.refresh_from_db()
    shown = f"{ann_user.wallet.balance // 100:,}"
    expect(ann.get_by_test_id("header-balance")).to_have_text(shown)
    expect(ann.get_by_test_id("my-last")).to_contain_text(f"({coup})")
    assert Round.objects.filter(player=bob_user, coup__number=int(coup)).exists()

    # The shoe ends (here at once): the bet's round page replays it whole in the browser.
    finish_shoe(settled.coup.shoe_id)
    ann.goto(f"{live_url}/history/round/{settled.pk}/")
    ann.get_by_test_id("verify-shoe").click()
    expect(ann.get_by_test_id("shoe-verdict")).to_contain_text("Matches")
