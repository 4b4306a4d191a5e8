"""The Baccarat table in a browser after a forged amount in the slip: the
refusal shows under the slip whichever way BET went, over the table's
socket (the page's way while it is open) or posted (a 422 the page still
swaps in), and the slip stays on the felt for the next BET. That the server
refuses it and stakes nothing: tests/games/views/test_forged_amounts.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Round, Table
from games.services.tables import snapshot_version
from tests.browser.test_baccarat_browser import open_table

pytestmark = pytest.mark.browser

# What the chip rack never sends (an exponent, once a 500), put in the slip's
# field as BET is pressed (over the socket) or in the posted form (over HTTP).
FORGE_SOCKET_BET = (
    "() => document.querySelector('[data-testid=bet]').addEventListener('click', () => {"
    " if (!window.forged) { window.forged = true;"
    "   document.querySelector('input[name=player]').value = '1e999999999'; } }, true)"
)
FORGE_POSTED_BET = (
    "() => document.body.addEventListener('htmx:configRequest', e => {"
    " if (e.detail.parameters.player && !window.forgedPost) {"
    "   window.forgedPost = true; e.detail.parameters.player = '1e999999999'; } })"
)


def test_a_forged_stake_is_shown_refused_over_either_transport_and_the_table_plays_on(
    page, live_url, signed_up
):
    open_table(page, live_url)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    page.evaluate(FORGE_SOCKET_BET)
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("slip-error")).to_contain_text("written with the digits 0-9")
    expect(page.get_by_test_id("bet")).to_be_enabled()

    page.evaluate("() => { document.body.dataset.ws = 'closed'; }")  # as if the socket had dropped
    page.evaluate(FORGE_POSTED_BET)
    # The socket's refusal wiped, so that only the 422's answer can show it again.
    page.get_by_test_id("slip-error").evaluate("e => { e.textContent = ''; }")
    with page.expect_response(lambda r: r.url.endswith("/bet/")) as answer:
        page.get_by_test_id("bet").click()  # the slip is still on the felt
    assert answer.value.status == 422
    expect(page.get_by_test_id("slip-error")).to_contain_text("written with the digits 0-9")

    with page.expect_response(lambda r: r.url.endswith("/bet/")) as answer:
        page.get_by_test_id("bet").click()
    assert answer.value.status == 200
    expect(page.get_by_test_id("result")).to_be_visible()


def test_a_paytable_changed_after_the_page_loaded_is_shown_and_the_next_bet_plays_it(
    page, live_url, signed_up, orm
):
    """The operator changes TIE's payout while the player's page is open (a
    table of this test's own: the browser tests share the database). BET is
    refused over the socket with a message, the felt shows the new payout
    with the slip still on it, and BET again plays under the new paytable."""
    preset = Table.objects.get(slug="baccarat-classic")
    table = Table.objects.create(
        game="baccarat",
        name="Changing Baccarat",
        slug=f"changing-{signed_up}"[:50],
        decks=preset.decks,
        chips=preset.chips,
        pays=dict(preset.pays),
        limits=dict(preset.limits),
        max_bet=preset.max_bet,
        position=98,
    )
    snapshot_version(table=table)
    page.goto(f"{live_url}/baccarat/{table.slug}/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    expect(page.get_by_test_id("area-tie")).to_contain_text("×9")

    table.pays = {**table.pays, "tie": "7"}
    table.save(update_fields=["pays"])
    version = snapshot_version(table=table)
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("area-tie").click()
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("slip-error")).to_contain_text("paytable or limits changed")
    expect(page.get_by_test_id("area-tie")).to_contain_text("×7")
    expect(page.get_by_test_id("amount-tie")).to_have_text("25")  # the slip stays
    assert not Round.objects.filter(table=table).exists()

    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("result")).to_be_visible()
    assert Round.objects.get(table=table).version == version
