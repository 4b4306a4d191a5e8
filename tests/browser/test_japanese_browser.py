"""Japanese on the Baccarat table in Chromium renders with the font the site
ships (Noto Sans JP, static/vendor/noto-sans-jp), not with whatever CJK font
the machine may have: on a machine without one it would otherwise be boxes.

Chromium says which font drew a node's text (DevTools' CSS.getPlatformFontsForNode),
so the test checks that, besides the computed font family and the Font Loading API.
And the longer Japanese words still fit where space is short: War's limits on a phone.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cut_off

pytestmark = pytest.mark.browser

TABLE = "/baccarat/baccarat-classic/"


def fonts_drawing(page, selector: str) -> list[dict]:
    """The fonts Chromium used for the text of the first node matching ``selector``."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    text = cdp.send("DOM.describeNode", {"nodeId": node, "depth": 1})["node"]
    target = node
    for child in text.get("children", []):
        if child["nodeType"] == 3:  # the label's own text node
            target = cdp.send(
                "DOM.pushNodesByBackendIdsToFrontend", {"backendNodeIds": [child["backendNodeId"]]}
            )["nodeIds"][0]
            break
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": target})["fonts"]
    cdp.detach()
    return fonts


def test_a_japanese_label_on_the_table_renders_with_the_shipped_font(page, live_url, signed_up):
    page.goto(live_url + TABLE)
    page.get_by_test_id("lang-ja").click()
    page.wait_for_url(live_url + TABLE)
    label = page.locator("[data-testid=area-player] .area-name")
    expect(label).to_have_text("プレイヤー")  # seed 001's glossary: PLAYER
    page.evaluate("() => document.fonts.ready")

    family = label.evaluate("el => getComputedStyle(el).fontFamily")
    assert family.startswith('"Noto Sans JP"')
    assert page.evaluate(
        """async () => {
            await document.fonts.ready;
            return document.fonts.check('16px "Noto Sans JP"', 'バカラ');
        }"""
    )
    # The face that covers the label's characters at its weight came from the site.
    loaded = page.evaluate(
        """(el) => {
            const weight = getComputedStyle(el).fontWeight;
            return [...document.fonts]
                .filter(f => f.family.replace(/"/g, '') === 'Noto Sans JP' && f.status === 'loaded')
                .map(f => f.weight);
        }""",
        label.element_handle(),
    )
    assert "700" in loaded or "bold" in loaded

    drawn = fonts_drawing(page, "[data-testid=area-player] .area-name")
    assert drawn, "Chromium reported no font for the label"
    # One web font drew all five characters. (Fontsource's subsets name
    # themselves "Noto Sans JP Thin" inside the file, whatever their weight.)
    assert len(drawn) == 1, drawn
    assert drawn[0]["isCustomFont"] and drawn[0]["familyName"].startswith("Noto Sans JP")
    assert drawn[0]["glyphCount"] == len("プレイヤー")


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 844, "height": 390}])
def test_wars_limits_in_japanese_are_whole_on_a_phone(page, live_url, signed_up, size):
    """The Japanese limits are longer than the English: on a phone, upright
    or on its side, every one is still whole, the MAX BET in sight."""
    page.context.add_cookies([{"name": "django_language", "value": "ja", "url": live_url}])
    page.set_viewport_size(size)
    page.goto(live_url + "/war/casino-war/")
    expect(page.get_by_test_id("war-limits")).to_contain_text("タイボーナス")
    assert cut_off(page, "war-limits") == 0
    # And the rows' names (ディーラー, あなた) fit their column, on one line.
    spilled = page.locator(".row-name").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1 || e.getClientRects().length > 1)"
        ".map(e => e.textContent)"
    )
    assert spilled == []
