"""A newcomer signs up with the form, lands in the lobby with the starting
chips and switches the site to Japanese."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PASSWORD

pytestmark = pytest.mark.browser


def test_a_newcomer_signs_up_sees_the_lobby_and_switches_to_japanese(page, live_url):
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("[data-testid=signup-submit]")
    page.wait_for_url(f"{live_url}/")
    expect(page.get_by_test_id("lobby-balance")).to_have_text("10,000")
    expect(page.get_by_test_id("header-balance")).to_have_text("10,000")
    expect(page.locator("h1")).to_have_text("Lobby")
    expect(page.get_by_test_id("table-baccarat-classic")).to_be_visible()
    page.get_by_test_id("lang-ja").click()
    expect(page.locator("h1")).to_have_text("ロビー")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.get_by_test_id("lobby-balance")).to_have_text("10,000")
