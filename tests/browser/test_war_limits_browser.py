"""The War table in a browser after a forged amount: the refusal shows in
the message region whichever way DEAL went, over the table's socket (the
page's way while it is open) or posted (a 422 the page still swaps in), and
the table plays on. That the server refuses it and stakes nothing:
tests/games/views/test_forged_amounts.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_war_table_browser import TABLE, bet, next_shoe

pytestmark = pytest.mark.browser


def forge_ante(page) -> None:
    """What the chip rack never sends: an exponent that overflowed (a 500)."""
    page.locator("#war-ante-input").evaluate("input => { input.value = '1e999999999'; }")


def test_a_forged_ante_is_shown_refused_over_either_transport_and_the_table_plays_on(
    page, live_url, signed_up, orm
):
    next_shoe(signed_up, "win")
    page.goto(f"{live_url}{TABLE}")
    expect(page.locator("#war-app[data-ws=open]")).to_have_count(1)
    expect(page.get_by_test_id("war-ante-most")).to_have_text("5,000")
    bet(page, ante=[5])
    forge_ante(page)
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-message")).to_contain_text("written with the digits 0-9")
    expect(page.get_by_test_id("btn-deal")).to_be_enabled()

    page.evaluate("() => { document.getElementById('war-app').dataset.ws = 'closed'; }")
    bet(page, ante=[5])  # the slip is rebuilt from the chips on the felt
    forge_ante(page)
    # The socket's refusal wiped, so that only the 422's answer can show it again.
    page.get_by_test_id("war-message").evaluate("e => { e.textContent = ''; }")
    with page.expect_response(lambda r: r.url.endswith("/deal/")) as answer:
        page.get_by_test_id("btn-deal").click()
    assert answer.value.status == 422
    expect(page.get_by_test_id("war-message")).to_contain_text("written with the digits 0-9")

    bet(page, ante=[5])
    page.get_by_test_id("btn-deal").click()
    expect(page.get_by_test_id("war-result")).to_have_attribute("data-result", "win")
