"""The operator edits a paytable in the admin and sees its exact RTP move
before saving; the saved paytable is what the next round is played under."""

from __future__ import annotations

import hashlib
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.baccarat.rules import play_coup
from games.models import Table
from games.services.baccarat import place_bet
from games.services.tables import save_table, table_snapshot
from games.services.wallet import open_account
from games.verify import derive_shoe
from tests.browser.helpers import log_in

pytestmark = pytest.mark.browser


def tie_seed(client_seed: str, nonce: int, decks: int) -> str:
    """A server seed whose coup is a tie (about 1 in 10 seeds)."""
    for i in range(2000):
        seed = hashlib.sha256(f"admin-browser-tie-{i}".encode()).hexdigest()
        if play_coup(derive_shoe(seed, client_seed, nonce, decks)).winner == "tie":
            return seed
    raise AssertionError("no tie seed found")


def test_the_operator_lowers_the_tie_and_sees_the_rtp_before_saving(page, live_url, orm):
    suffix = int(time.time() * 1000) % 1_000_000
    User = get_user_model()
    operator = User.objects.create_superuser(f"op{suffix}", f"op{suffix}@example.com", None)
    classic = Table.objects.get(slug="baccarat-classic")
    original = table_snapshot(classic)
    before_number = classic.current_version.number
    try:
        log_in(page.context, live_url, operator)
        page.goto(f"{live_url}/admin/games/table/{classic.pk}/change/")
        expect(page.get_by_test_id("rtp-tie")).to_contain_text("85.64%")
        expect(page.get_by_test_id("rtp-banker")).to_contain_text("98.94%")

        page.fill("#id_pay_tie", "8")
        expect(page.get_by_test_id("rtp-tie")).to_contain_text("76.12%")
        expect(page.get_by_test_id("rtp-banker")).to_contain_text("98.94%")
        classic.refresh_from_db()
        assert classic.pays["tie"] == "9"  # nothing saved yet

        page.click("input[name=_save]")
        expect(page.locator("ul.messagelist")).to_contain_text("Baccarat Classic")
        classic.refresh_from_db()
        version = classic.current_version
        assert version.number == before_number + 1
        assert version.pays["tie"] == "8"

        player = User.objects.create_user(f"tieplayer{suffix}")
        open_account(user=player)
        profile = player.profile
        profile.next_server_seed = tie_seed(profile.client_seed, profile.nonce, version.decks)
        profile.save(update_fields=["next_server_seed"])
        rnd = place_bet(user=player, table=classic, bets={"tie": 1_000}, slip_key=f"tie{suffix}")
        assert rnd.winner == "tie"
        assert rnd.version_id == version.pk
        assert rnd.returns["tie"] == 8_000  # x8, the saved paytable
    finally:
        # Other browser tests share this database: put the preset back.
        classic = Table.objects.get(slug="baccarat-classic")
        if classic.pays != original["pays"]:
            before = table_snapshot(classic)
            classic.pays = original["pays"]
            save_table(table=classic, actor=None, before=before)
