"""Play safe in Chromium: a daily loss limit of 50 set on the page, lost at
the tables, and the refusal shown at both games' tables; the reality
check's pause; the header's session figures."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from games.baccarat.rules import play_coup
from games.models import Profile, Round
from games.services import bets, play_safe
from games.services.wallet import open_account
from tests.browser.helpers import log_in
from tests.seeds import find_seed, war_cases

pytestmark = pytest.mark.browser

WAR = "/war/casino-war/"
BACCARAT = "/baccarat/baccarat-classic/"
CLIENT_SEED = "play-safe-browser"
# Screenshots of each screen at phone and laptop sizes, when asked for.
SHOTS = os.environ.get("CASINO_SHOTS", "")
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


def next_shoe(username: str, seed: str, decks: int) -> None:
    Profile.objects.filter(user__username=username).update(
        next_server_seed=seed, client_seed=CLIENT_SEED, nonce=0
    )


def war_lose_seed() -> str:
    return find_seed("play-safe-war", CLIENT_SEED, 6, lambda shoe: war_cases(shoe) == {"lose"})


def banker_wins_seed() -> str:
    return find_seed(
        "play-safe-bac", CLIENT_SEED, 8, lambda shoe: play_coup(shoe).winner == "banker"
    )


def shoot(page, name: str) -> None:
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=str(Path(SHOTS) / f"{name}-{size}.png"), full_page=False)
    page.set_viewport_size(SIZES["laptop"])


def test_a_daily_limit_of_50_lost_is_refused_at_both_tables(page, live_url, signed_up, orm):
    page.goto(f"{live_url}/play-safe/")
    expect(page.get_by_test_id("play-safe")).to_be_visible()
    form = page.get_by_test_id("loss-limit-form")
    form.locator("select[name=period]").select_option("day")
    form.locator("input[name=amount]").fill("50")
    form.get_by_test_id("loss-limit-submit").click()
    expect(page.get_by_test_id("loss-limit-day")).to_contain_text("50")
    shoot(page, "play-safe")

    # Lose 25 at War (its raise counted: 50 of room) ...
    next_shoe(signed_up, war_lose_seed(), 6)
    page.goto(f"{live_url}{WAR}")
    page.get_by_test_id("spot-ante").click()
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("result-ante")).to_have_text("LOST")

    # ... and 25 at Baccarat: the day's 50 is gone.
    next_shoe(signed_up, banker_wins_seed(), 8)
    page.goto(f"{live_url}{BACCARAT}")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("area-player").click()
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("result")).to_have_attribute("data-winner", "banker")
    rounds = Round.objects.filter(player__username=signed_up)
    assert sum(r.total_bet - r.total_return for r in rounds) == 5_000

    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    page.get_by_test_id("bet").click()
    refusal = page.get_by_test_id("limit-refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("daily loss limit of 50 chips: 0 chips are left")
    expect(page.get_by_test_id("session-net")).to_have_text("-50")
    shoot(page, "baccarat-refusal")

    page.goto(f"{live_url}{WAR}")
    page.get_by_test_id("spot-ante").click()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("limit-refusal")).to_contain_text("daily loss limit of 50 chips")
    shoot(page, "war-refusal")
    assert rounds.count() == 2

    page.goto(f"{live_url}/play-safe/statement/")
    month = timezone.now().strftime("%Y-%m")
    expect(page.get_by_test_id(f"statement-{month}")).to_contain_text("-50")
    shoot(page, "statement-with-rounds")


def test_the_reality_check_pauses_the_table_until_answered(page, live_url, signed_up, orm):
    Profile.objects.filter(user__username=signed_up).update(
        reality_check_minutes=15, reality_due_at=timezone.now() - dt.timedelta(minutes=1)
    )
    next_shoe(signed_up, war_lose_seed(), 6)  # a round that settles at once (no tie to decide)
    page.goto(f"{live_url}{WAR}")
    dialog = page.get_by_test_id("reality-check")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("You have played for")
    shoot(page, "reality-check")
    page.keyboard.press("Escape")  # only an answer closes it
    expect(dialog).to_be_visible()
    with page.expect_navigation():  # the answer is a form post, back to the table
        page.get_by_test_id("reality-keep").click()
    expect(page.get_by_test_id("reality-check")).to_be_hidden()
    page.get_by_test_id("spot-ante").click()
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-result")).to_have_count(1)
    assert Round.objects.filter(player__username=signed_up).count() == 1


def test_the_statement_page(page, live_url, signed_up, orm):
    page.goto(f"{live_url}/play-safe/statement/")
    expect(page.get_by_test_id("statement")).to_be_visible()
    shoot(page, "statement")


def test_a_time_out_logs_out_and_the_login_shows_only_its_end(page, live_url, signed_up, orm):
    page.goto(f"{live_url}/play-safe/")
    form = page.get_by_test_id("timeout-form")
    form.locator("select[name=length]").select_option("1w")
    shoot(page, "play-safe-timeout")
    form.locator("input[name=confirm]").check()
    form.get_by_test_id("timeout-submit").click()
    expect(page.get_by_test_id("break-taken")).to_contain_text("time-out until")
    shoot(page, "break-taken")

    page.goto(f"{live_url}/accounts/login/")
    page.fill("input[name=username]", signed_up)
    page.fill("input[name=password]", "pw-Secret-123")
    page.locator("form button[type=submit], form input[type=submit]").last.click()
    expect(page.locator("body")).to_contain_text("You are taking a time-out until")
    shoot(page, "login-on-break")
    page.goto(f"{live_url}{WAR}")
    assert "/accounts/login/" in page.url


def test_the_operator_sees_breaks_and_refusals_and_cannot_change_them(page, live_url, orm):
    suffix = int(time.time() * 1000) % 1_000_000
    User = get_user_model()
    operator = User.objects.create_superuser(f"psop{suffix}", f"psop{suffix}@example.com", None)
    player = User.objects.create_user(f"psplayer{suffix}")
    open_account(user=player)
    pause = play_safe.take_break(user=player, length="6m")
    bets.count_refusal(user=player, code="loss_limit")
    log_in(page.context, live_url, operator)

    page.goto(f"{live_url}/admin/games/playbreak/")
    expect(page.locator("#result_list")).to_contain_text(player.username)
    shoot(page, "admin-breaks")
    page.goto(f"{live_url}/admin/games/playbreak/{pause.pk}/change/")
    expect(page.locator("input[name=_save]")).to_have_count(0)
    expect(page.locator("a.deletelink")).to_have_count(0)
    page.goto(f"{live_url}/admin/games/limitrefusal/")
    expect(page.get_by_test_id("refusals-per-day")).to_contain_text("Loss limit")
    shoot(page, "admin-refusals")
