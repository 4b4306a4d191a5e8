"""The Baccarat table in a browser: a forged amount in the slip is refused
under the slip with its message, nothing is staked, and the table plays on,
whichever way BET goes: over the table's socket (the page's way while the
socket is open) or posted (a 422 the page still shows)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Round
from tests.browser.helpers import stored_round
from tests.browser.test_baccarat_browser import open_table

pytestmark = pytest.mark.browser


def test_a_forged_stake_sent_over_the_socket_is_refused_and_the_table_plays_on(
    page, live_url, signed_up, orm
):
    open_table(page, live_url)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    # What the chip rack never sends: an exponent (once a 500), written into
    # the slip's field as BET is pressed.
    page.evaluate(
        "() => document.querySelector('[data-testid=bet]').addEventListener('click', () => {"
        " if (!window.forged) { window.forged = true;"
        "   document.querySelector('input[name=player]').value = '1e999999999'; } }, true)"
    )
    page.get_by_test_id("bet").click()
    expect(page.get_by_test_id("slip-error")).to_contain_text("written with the digits 0-9")
    assert not Round.objects.filter(player__username=signed_up).exists()
    expect(page.get_by_test_id("bet")).to_be_enabled()

    page.get_by_test_id("bet").click()  # the slip is still on the felt
    expect(page.get_by_test_id("result")).to_be_visible()
    assert stored_round(signed_up).total_bet == 500


def test_a_forged_stake_posted_without_the_socket_is_refused_422(page, live_url, signed_up, orm):
    open_table(page, live_url)
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    page.evaluate("() => { document.body.dataset.ws = 'closed'; }")  # as if the socket had dropped
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    page.evaluate(
        "() => document.body.addEventListener('htmx:configRequest', e => {"
        " if (e.detail.parameters.player && !window.forged) {"
        "   window.forged = true; e.detail.parameters.player = '1e999999999'; } })"
    )
    with page.expect_response(lambda r: r.url.endswith("/bet/")) as answer:
        page.get_by_test_id("bet").click()
    assert answer.value.status == 422
    expect(page.get_by_test_id("slip-error")).to_contain_text("written with the digits 0-9")
    assert not Round.objects.filter(player__username=signed_up).exists()

    with page.expect_response(lambda r: r.url.endswith("/bet/")) as answer:
        page.get_by_test_id("bet").click()  # the slip is still on the felt
    assert answer.value.status == 200
    assert stored_round(signed_up).total_bet == 500
