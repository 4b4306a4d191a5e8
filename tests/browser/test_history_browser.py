"""A player reviews a past coup: opens the history, the round, verifies its
shuffle and watches the replay."""

from __future__ import annotations

import hashlib
import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from games.baccarat.rules import play_coup, settle
from games.cards import server_seed_hash
from games.models import Round, Table
from games.services.baccarat import coup_record
from games.verify import derive_shoe

pytestmark = pytest.mark.browser


def _coup_for(username: str) -> dict:
    """Store a settled coup for the player, dealt from a real shoe, as the
    baccarat service would; returns what the page should show."""
    user = get_user_model().objects.get(username=username)
    table = Table.objects.get(slug="baccarat-classic")
    version = table.current_version
    server_seed = hashlib.sha256(username.encode()).hexdigest()
    # The first nonce whose coup has a third card, so the replay has something to deal.
    nonce = 0
    while len((coup := play_coup(derive_shoe(server_seed, "browser", nonce, 8))).player) < 3:
        nonce += 1
    bets = {"banker": 1_000}
    returns = settle(coup, bets, {k: Decimal(v) for k, v in version.pays.items()})
    total_return = sum(returns.values())
    rnd = Round.objects.create(
        player=user,
        table=table,
        version=version,
        game="baccarat",
        seq=1,
        slip_key=uuid.uuid4().hex,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(server_seed)),
        client_seed="browser",
        nonce=nonce,
        bets=bets,
        returns=returns,
        total_bet=1_000,
        total_return=total_return,
        balance_before=1_000_000,
        balance_after=1_000_000 - 1_000 + total_return,
        outcome="win" if total_return > 1_000 else "lose" if total_return < 1_000 else "push",
        **coup_record(coup, decks=8),
        settled_at=timezone.now(),
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
    assert "game=war" in page.url
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
    expect(replay.locator("[data-hand] .pcard")).to_have_count(len(coup["cards"]))
    expect(page.get_by_test_id("player-total")).to_have_text(str(coup["player_total"]))
    expect(page.get_by_test_id("round-result")).not_to_be_empty()
