"""An operator finds a player by typing part of their name, opens their page,
follows a round, and deactivates the account: the player's open table closes
its socket at once and their next page asks them to log in."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.models import AuditEntry
from games.services.wallet import open_account
from tests.browser.helpers import log_in
from tests.browser.test_contrast_browser import settled_round

pytestmark = pytest.mark.browser


@pytest.fixture
def cast(orm):
    suffix = f"{int(time.time() * 1000) % 1_000_000}"
    User = get_user_model()
    player = User.objects.create_user(f"lucky{suffix}", f"lucky{suffix}@example.com")
    open_account(user=player)
    rounds = [settled_round(player) for _ in range(2)]
    operator = User.objects.create_superuser(f"pitboss{suffix}", f"boss{suffix}@example.com")
    return {"player": player, "rounds": rounds, "operator": operator, "suffix": suffix}


def test_the_operator_finds_a_player_and_deactivates_them(browser, live_url, cast):
    player, operator = cast["player"], cast["operator"]
    op_context = browser.new_context(locale="en-US")
    their_context = browser.new_context(locale="en-US")
    try:
        log_in(op_context, live_url, operator)
        log_in(their_context, live_url, player)
        theirs = their_context.new_page()
        with theirs.expect_websocket(timeout=10_000) as opened:
            theirs.goto(f"{live_url}/baccarat/baccarat-classic/")
        table_socket = opened.value

        page = op_context.new_page()
        page.goto(f"{live_url}/history/player/")
        expect(page.get_by_role("heading", name="Find a player")).to_be_visible()
        expect(page.locator(".msg.error")).to_have_count(0)
        expect(page.get_by_test_id("player-result")).to_have_count(0)

        # Results come as the operator types, with no submit.
        page.get_by_test_id("player-search").press_sequentially(f"ucky{cast['suffix']}", delay=40)
        expect(page.get_by_test_id("player-result")).to_have_count(1)
        expect(page).to_have_url(re.compile(r"[?&]q=ucky"))  # in the address, to share
        page.get_by_test_id("player-link").click()
        page.wait_for_url(f"{live_url}/history/player/{player.pk}/account/")
        expect(page.get_by_test_id("player-name")).to_contain_text(player.username)
        expect(page.get_by_test_id("player-balance")).to_have_text("10,000")
        expect(page.get_by_test_id("player-round")).to_have_count(2)
        expect(page.get_by_test_id("play-lifetime")).to_contain_text("2")
        expect(page.get_by_test_id("player-state")).to_have_text("Active")

        newest = cast["rounds"][-1]
        page.get_by_test_id("round-link").first.click()
        page.wait_for_url(f"{live_url}/history/round/{newest.pk}/")
        expect(page.get_by_test_id("round-player")).to_have_text(player.username)
        page.go_back()

        page.get_by_test_id("state-reason").fill("chargeback under review")
        with table_socket.expect_event("close", timeout=10_000):
            page.get_by_test_id("deactivate").click()
            expect(page.get_by_test_id("player-state")).to_have_text("Deactivated")
        expect(page.locator(".messages")).to_contain_text("is deactivated")
        expect(page.get_by_test_id("account-history")).to_contain_text("chargeback under review")

        entry = AuditEntry.objects.get(action="player.deactivate", object_id=str(player.pk))
        assert entry.actor_id == operator.pk
        assert entry.after == {"is_active": False, "reason": "chargeback under review"}
        # Their browser is signed out: the table leaves for the login form by
        # itself once its socket is closed (4001), and so does any page after.
        theirs.wait_for_url(re.compile(r"/accounts/login/"), timeout=10_000)
        theirs.goto(f"{live_url}/account/")
        assert "/login/" in theirs.url

        page.get_by_test_id("state-reason").fill("cleared")
        page.get_by_test_id("reactivate").click()
        expect(page.get_by_test_id("player-state")).to_have_text("Active")
        player.refresh_from_db()
        assert player.is_active
    finally:
        op_context.close()
        their_context.close()
