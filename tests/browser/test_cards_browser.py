"""The one card on the pages a player reads back, on a phone: the round page
and its replay, the history's rows, the lobby's road, and times in the
player's own zone."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from games.services.wallet import open_account
from tests.browser.helpers import log_in
from tests.stored_results import settled_coup

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
COURT = {"J": "jack.svg", "Q": "queen.svg", "K": "king.svg"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANKS = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King", "T": "10"}


@pytest.fixture
def player_with_court_cards(orm):
    suffix = f"{int(time.time() * 1000) % 1_000_000}"
    player = get_user_model().objects.create_user(f"cards{suffix}")
    open_account(user=player)
    rnd, _ = settled_coup(
        player,
        bets={"player": 1_000},
        client_seed="court",
        # A win with a third card and a court card among the first four.
        wanted=lambda coup: (
            len(coup.player) == 3
            and coup.winner != "tie"
            and any(c.rank in "JQK" for c in (*coup.player[:2], *coup.banker[:2]))
        ),
        settled_at=timezone.now() - dt.timedelta(hours=1),
    )
    return player, rnd


@pytest.fixture
def phone(browser):
    context = browser.new_context(
        viewport=PHONE, locale="en-US", timezone_id="Asia/Tokyo", bypass_csp=False
    )
    yield context
    context.close()


def test_a_round_page_draws_court_figures_and_readable_indexes_and_replays_its_cards(
    phone, live_url, player_with_court_cards
):
    player, rnd = player_with_court_cards
    log_in(phone, live_url, player)
    page = phone.new_page()
    page.goto(f"{live_url}/history/round/{rnd.pk}/")
    hands = page.locator("#replay [data-hand] .playing-card")
    expect(hands).to_have_count(len(rnd.cards))

    court = next(c for c in rnd.cards if c[0] in "JQK")
    card = page.locator(f'#replay [data-hand] .playing-card[data-card="{court}"]').first
    name = f"{RANKS[court[0]]} of {SUITS[court[1]]}"
    expect(card).to_have_attribute("aria-label", name)
    # The figure is the house's own drawing, loaded from the site.
    figure = card.locator(".pc-court").evaluate("el => getComputedStyle(el).backgroundImage")
    assert COURT[court[0]] in figure
    url = re.search(r'url\("?([^")]+)', figure).group(1)
    response = page.request.get(url)
    assert response.ok and "svg" in response.headers["content-type"]

    # Each time on the page reads whole on the phone, on one line.
    broken = page.locator("time").evaluate_all(
        "els => els.filter(el => el.getClientRects().length > 1).map(el => el.textContent)"
    )
    assert broken == []

    # The corner index reads at phone size: its rank at least 14 px high.
    rank_px = card.locator(".pc-top b").evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert rank_px >= 14

    # The replay deals the page's own cards again, in deal order.
    page.get_by_test_id("replay-start").click()
    page.get_by_test_id("replay-fast").click()
    expect(page.get_by_test_id("replay")).to_have_attribute("data-state", "done")
    dealt = hands.evaluate_all("els => els.map(el => el.dataset.card)")
    assert sorted(dealt) == sorted(rnd.cards)
    player_cards = page.locator('[data-hand="player"] .playing-card').evaluate_all(
        "els => els.map(el => el.dataset.card)"
    )
    assert player_cards == [rnd.cards[0], rnd.cards[2], rnd.cards[4]]


def test_the_history_shows_each_rounds_cards_as_cards_and_times_in_the_players_zone(
    phone, live_url, player_with_court_cards
):
    player, rnd = player_with_court_cards
    log_in(phone, live_url, player)
    page = phone.new_page()
    page.goto(f"{live_url}/history/")
    row = page.get_by_test_id("history-row")
    expect(row).to_have_count(1)
    codes = row.locator(".playing-card").evaluate_all("els => els.map(el => el.dataset.card)")
    assert codes == rnd.cards
    # The whole row fits the phone's width: no sideways scrolling to find the cards.
    box = row.locator(".mini-cards").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # The cards close the row: the table's name above them says the game, which
    # once came again under the cards (the rule that hid it was outweighed).
    expect(row.locator(".c-table")).to_be_visible()
    expect(row.locator(".c-game")).to_be_hidden()

    tokyo = rnd.created_at.astimezone(dt.timezone(dt.timedelta(hours=9)))
    expect(row.locator("time")).to_have_text(tokyo.strftime("%Y-%m-%d %H:%M:%S") + " GMT+9")
    expect(page.locator("[data-local-zone]").first).to_have_text("Asia/Tokyo")


def test_without_javascript_a_time_says_it_is_utc(browser, live_url, player_with_court_cards):
    player, rnd = player_with_court_cards
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    try:
        log_in(context, live_url, player)
        page = context.new_page()
        page.goto(f"{live_url}/history/round/{rnd.pk}/")
        utc = rnd.created_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
        expect(page.locator(".round-meta time")).to_have_text(f"{utc} UTC")
    finally:
        context.close()


def test_the_lobby_shows_the_tables_road_on_a_phone(phone, live_url, player_with_court_cards):
    player, rnd = player_with_court_cards
    log_in(phone, live_url, player)
    page = phone.new_page()
    page.goto(f"{live_url}/")
    road = page.get_by_test_id("lobby-road-baccarat-classic")
    expect(road.locator(".dot")).to_have_count(1)
    expect(road.locator(".dot")).to_have_class(re.compile(rf"\b{rnd.winner}\b"))
    box = road.locator(".mini-road").bounding_box()
    assert box["width"] > 150 and box["x"] + box["width"] <= PHONE["width"]
