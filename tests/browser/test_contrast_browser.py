"""Every text on the main screens is readable: axe-core's colour-contrast rule
(WCAG 2 AA: 4.5:1, 3:1 for large text) finds nothing on the lobby, both
tables (and the roads dialog), the history, a round's page, the operator
dashboard and the operator's player screens.

axe-core is vendored from its npm package (static/vendor/axe/, with its
licence) and injected by the test only: no page of the site loads it. The
injected script is inline, so these pages open in a context that bypasses
the site's Content Security Policy (tests/security checks the policy).
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Round
from games.services.wallet import open_account
from tests.browser.helpers import log_in
from tests.stored_results import settled_coup

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe" / "axe.min.js"

# axe cannot judge text over a gradient (it reports "incomplete", not a
# violation), and the felt behind every screen is one. So each gradient is
# replaced in turn by each of its own colour stops, as flat colour, and axe
# runs once per stop: text must pass on every colour its background shows.
RUN_AXE = """async () => {
  const painted = [...document.querySelectorAll("*")]
    .map(el => [el, getComputedStyle(el).backgroundImage])
    .filter(([el, image]) => image.includes("gradient"))
    .map(([el, image]) => [el, image.match(/rgba?\\([^)]*\\)/g) || []]);
  const passes = Math.max(1, ...painted.map(([el, stops]) => stops.length));
  const failures = new Set();
  const unsure = new Set();
  for (let k = 0; k < passes; k++) {
    for (const [el, stops] of painted) {
      el.style.setProperty("background-image", "none", "important");
      el.style.setProperty("background-color", stops[Math.min(k, stops.length - 1)], "important");
    }
    const result = await axe.run(document, {runOnly: {type: "rule", values: ["color-contrast"]}});
    for (const v of result.violations) for (const n of v.nodes) {
      const d = (n.any[0] || {}).data || {};
      failures.add(`${n.target.join(" ")}: ${d.fgColor} on ${d.bgColor} is ${d.contrastRatio}:1, ` +
                   `needs ${d.expectedContrastRatio} (${n.html.slice(0, 100)})`);
    }
    for (const v of result.incomplete) for (const n of v.nodes) {
      unsure.add(`${n.target.join(" ")}: ${(n.any[0] || {}).message}`);
    }
  }
  for (const [el] of painted) {
    el.style.removeProperty("background-image");
    el.style.removeProperty("background-color");
  }
  return {failures: [...failures], unsure: [...unsure]};
}"""


def settled_round(player) -> Round:
    """A settled coup, older than the reveal's resume window: the table's
    socket does not swap the page under the contrast check."""
    rnd, _ = settled_coup(
        player,
        bets={"banker": 1_000, "player_pair": 100},
        client_seed="contrast",
        settled_at=timezone.now() - dt.timedelta(hours=1),
    )
    return rnd


@pytest.fixture
def people(orm):
    suffix = f"{int(time.time() * 1000) % 1_000_000}"
    User = get_user_model()
    player = User.objects.create_user(f"contrast{suffix}", f"c{suffix}@example.com")
    open_account(user=player)
    rounds = [settled_round(player) for _ in range(3)]
    operator = User.objects.create_superuser(f"contrastop{suffix}", f"op{suffix}@example.com")
    return {"player": player, "round": rounds[-1], "operator": operator}


@pytest.fixture
def axe_page(browser):
    # Tall, so a dialog shows all of its content: axe skips text it cannot see.
    context = browser.new_context(
        bypass_csp=True,
        locale="en-US",
        reduced_motion="reduce",
        viewport={"width": 1280, "height": 2400},
    )
    page = context.new_page()
    yield page
    context.close()


def contrast_failures(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE)
    return found["failures"]


def visit(page, url: str, ready: str | None = None) -> list[str]:
    page.goto(url)
    page.wait_for_load_state("load")
    if ready:
        page.locator(ready).first.wait_for(state="attached")
    return contrast_failures(page)


def test_the_players_screens_pass_aa_contrast(axe_page, live_url, people):
    page = axe_page
    log_in(page.context, live_url, people["player"])
    failures = {
        "lobby": visit(page, f"{live_url}/"),
        "war": visit(page, f"{live_url}/war/casino-war/"),
        "history": visit(page, f"{live_url}/history/", "[data-testid=summary-rounds]"),
        "round": visit(
            page, f"{live_url}/history/round/{people['round'].pk}/", "[data-testid=deal-order]"
        ),
        "baccarat": visit(
            page, f"{live_url}/baccarat/baccarat-classic/", "[data-testid=open-roads]"
        ),
    }
    # The roads dialog, opened there as a player opens it.
    page.get_by_test_id("open-roads").click()
    page.locator("#bac-roads-detail *").first.wait_for(state="attached")
    failures["roads dialog"] = contrast_failures(page)
    assert {k: v for k, v in failures.items() if v} == {}


def test_the_operator_screens_pass_aa_contrast(axe_page, live_url, people):
    page = axe_page
    log_in(page.context, live_url, people["operator"])
    player = people["player"]
    failures = {
        "dashboard": visit(
            page, f"{live_url}/admin/games/table/dashboard/?period=7d", "[data-testid=point]"
        ),
        "audit log": visit(page, f"{live_url}/admin/games/auditentry/"),
        "find a player": visit(
            page,
            f"{live_url}/history/player/?q={player.username}",
            "[data-testid=player-result]",
        ),
        "player page": visit(page, f"{live_url}/history/player/{player.pk}/account/"),
        "their history": visit(
            page, f"{live_url}/history/player/{player.pk}/", "[data-testid=summary-rounds]"
        ),
    }
    assert {k: v for k, v in failures.items() if v} == {}
