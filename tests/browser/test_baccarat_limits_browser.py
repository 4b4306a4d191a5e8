"""The Baccarat table in a browser: a forged amount in the slip is refused
under the slip with its message (a 422 the page still shows), nothing is
staked, and the table plays on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Round
from tests.browser.test_baccarat_browser import open_table, stored_round

pytestmark = pytest.mark.browser


def test_a_forged_stake_is_refused_under_the_slip_and_the_table_plays_on(
    page, live_url, signed_up, orm
):
    open_table(page, live_url)
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-player").click()
    # What the chip rack never sends: an exponent (once a 500), set as BET goes.
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
