"""A Baccarat table reloaded in the middle of a round goes on where the
round was: the reveal continues card by card to the result, a squeeze the
player had not finished is offered again, and nothing of the round (cards,
winner, payout, roads, the header's session net) shows before the player
has seen it."""

from __future__ import annotations

import hashlib

import pytest
from playwright.sync_api import expect

from games.models import Profile
from games.presenters.baccarat import deal_order
from tests.browser.helpers import stored_round

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-social/"
# A 1-deck Social shoe whose Player's 2nd card is peeled: 9H JS 8H 5S AH, Player 7 wins
# (tests/browser/test_squeeze_browser.py).
SQUEEZE_SEED = hashlib.sha256(b"squeeze-browser-210").hexdigest()

# What the page showed as it was first drawn (before its socket said
# anything), and every fragment the socket sent after, in order.
WATCH = """
window.__firstDraw = null;
window.__messages = [];
document.addEventListener("DOMContentLoaded", () => {
  const result = document.getElementById("bac-result");
  window.__firstDraw = {
    winner: result ? result.dataset.winner || null : null,
    phase: document.getElementById("bac-phase")?.dataset.phase,
    cards: [...document.querySelectorAll("#bac-board [data-card]")].map((c) => c.dataset.card),
    beads: document.querySelectorAll("[data-testid=bead-plate] .bead").length,
  };
});
document.addEventListener("htmx:wsAfterMessage", (evt) => window.__messages.push(evt.detail.message));
// The page's fetches not yet answered and acted on (one task after the
// body is read).
window.__fetching = 0;
const fetchNow = window.fetch;
window.fetch = (...args) => {
  window.__fetching += 1;
  const done = () => setTimeout(() => { window.__fetching -= 1; });
  const answer = fetchNow(...args);
  answer.then((response) => response.clone().text()).then(done, done);
  return answer;
};
"""
# Every fetch the page started is answered and acted on.
FETCHES_DONE = "() => window.__fetching === 0"


def open_table(page, live_url) -> None:
    page.goto(live_url + TABLE)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)


def test_a_reload_mid_deal_goes_on_with_the_reveal(page, live_url, signed_up, orm):
    page.add_init_script(WATCH)
    open_table(page, live_url)
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-banker").click()
    page.get_by_test_id("bet").click()
    rnd = stored_round(signed_up)
    expect(page.get_by_test_id("card-p1")).to_have_attribute("data-card", rnd.cards[0])
    page.reload()

    # Drawn as the reveal starts: no card open, no winner, the round off the roads.
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", rnd.winner)
    first = page.evaluate("window.__firstDraw")
    assert first["winner"] is None and first["phase"] == "revealing", first
    assert first["cards"] == [] and first["beads"] == 0, first
    # The socket went on from the deal, card by card, to the result.
    messages = page.evaluate("window.__messages")
    assert 'data-phase="revealing"' in messages[0]
    order = deal_order(rnd)
    seen = [
        next(i for i, m in enumerate(messages) if f'data-card="{code}"' in m) for _, code in order
    ]
    result_at = next(i for i, m in enumerate(messages) if "data-winner=" in m)
    assert all(i < result_at for i in seen), (seen, result_at)
    for slot, code in order:
        expect(page.get_by_test_id(f"card-{slot}")).to_have_attribute("data-card", code)
    expect(page.get_by_test_id("bead-plate").locator(".bead")).to_have_count(1)


def test_a_reload_mid_squeeze_offers_the_squeeze_again(page, live_url, signed_up, orm):
    Profile.objects.filter(user__username=signed_up).update(
        next_server_seed=SQUEEZE_SEED, client_seed="squeeze-browser", nonce=0
    )
    page.add_init_script(WATCH)
    open_table(page, live_url)
    page.get_by_test_id("chip-100").click()
    page.get_by_test_id("multiplier").click()  # x10
    page.get_by_test_id("area-player").click()
    page.get_by_test_id("squeeze-button").click()
    expect(page.get_by_test_id("squeeze-toggle")).to_have_attribute("data-on", "1")
    page.get_by_test_id("bet").click()
    stage = page.get_by_test_id("squeeze-stage")
    expect(stage).to_have_attribute("data-slot", "p2")
    expect(page.get_by_test_id("card-p1")).to_have_attribute("data-card", "9H")
    # The header's session net waits for the result (Player wins 1,000).
    net = page.get_by_test_id("session-net")
    # BET's answer comes over the socket: each message that drew the squeeze
    # was handled as it was swapped in (static/js/reality.js asks the
    # server for the header's figures then, unless a reveal is pending);
    # once any such request is answered and shown, the net still reads 0.
    page.wait_for_function(FETCHES_DONE, polling=100)
    expect(net).to_have_text("0")
    page.reload()

    # The squeeze is offered again, on the same card, its face still unsent;
    # the cards before it are open again.
    expect(stage).to_have_attribute("data-slot", "p2")
    expect(stage).to_be_visible()
    assert page.get_by_test_id("peel-face").get_attribute("data-card") is None
    expect(page.get_by_test_id("card-p1")).to_have_attribute("data-card", "9H")
    expect(page.get_by_test_id("card-b1")).to_have_attribute("data-card", "JS")
    first = page.evaluate("window.__firstDraw")
    assert first["winner"] is None and first["cards"] == [], first
    assert page.get_by_test_id("result").get_attribute("data-winner") is None
    expect(net).to_have_text("0")  # the page drawn mid-squeeze leaves the round out
    page.get_by_test_id("peel-open").click()
    expect(page.get_by_test_id("card-p2")).to_have_attribute("data-card", "8H")
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "player")
    expect(net).to_have_text("+1,000")
