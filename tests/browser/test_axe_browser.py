"""Every screen, in English and in Japanese, passes axe-core with no serious
or critical violation (WCAG 2.1 A and AA rules and axe's best practices)
and does not scroll sideways:
the doorstep (demo welcome, log-in, sign-up), the lobby, both tables, the
rules, the history, a round's page, the fairness page, the account and the
operator's screens.

axe-core is the copy vendored from its npm package (static/vendor/axe/, with
its licence), injected by the test only, in a context that bypasses the
site's Content Security Policy (tests/security checks the policy).
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Table
from games.services.wallet import open_account
from tests.browser.helpers import log_in, past_the_sides
from tests.stored_results import settled_coup

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe" / "axe.min.js"
RUN_AXE = """async () => {
  const result = await axe.run(document, {
    runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]},
  });
  return result.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(" ")).slice(0, 4).join(", ")}`);
}"""

DOORSTEP = {
    "demo-welcome": "/",
    "login": "/accounts/login/",
    "signup": "/accounts/signup/",
    "baccarat-rules": "/baccarat/baccarat-social/rules/",
    "war-rules": "/war/casino-war/rules/",
    "fair": "/fair/",
}
PLAYER = {
    "lobby": "/",
    "history": "/history/",
    "round": "/history/round/{round}/",
    "account": "/account/",
    "baccarat-table": "/baccarat/baccarat-social/",
    "war-table": "/war/casino-war/",
}
OPERATOR = {
    "admin-index": "/admin/",
    "admin-table": "/admin/games/table/{table}/change/",
    "admin-tables": "/admin/games/table/",
    "dashboard": "/admin/games/table/dashboard/",
    "find-player": "/history/player/?q={username}",
    "player-account": "/history/player/{player}/account/",
    "player-history": "/history/player/{player}/",
    "audit-log": "/admin/games/auditentry/",
}


@pytest.fixture(scope="module")
def people(server_db, django_db_blocker):
    with django_db_blocker.unblock():
        suffix = f"{int(time.time() * 1000) % 1_000_000}"
        User = get_user_model()
        player = User.objects.create_user(f"axe{suffix}", f"axe{suffix}@example.com")
        open_account(user=player)
        rnd, _ = settled_coup(
            player,
            bets={"banker": 1_000, "player_pair": 100},
            client_seed="axe",
            settled_at=timezone.now() - dt.timedelta(hours=1),
        )
        operator = User.objects.create_superuser(f"axeop{suffix}", f"axeop{suffix}@example.com")
        return {
            "player": player,
            "operator": operator,
            "fill": {
                "round": rnd.pk,
                "player": player.pk,
                "username": player.get_username(),
                "table": Table.objects.get(slug="casino-war").pk,
            },
        }


SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


def serious_violations(
    browser, live_url: str, urls: dict[str, str], lang: str, user=None, size: str = "desktop"
) -> dict[str, list[str]]:
    """Each screen's serious and critical violations, by name, the screens
    opened one after another in one browser context (one log-in)."""
    context = browser.new_context(
        bypass_csp=True,
        locale="ja-JP" if lang == "ja" else "en-US",
        extra_http_headers={"Accept-Language": lang},
        reduced_motion="reduce",
        viewport=SIZES[size],
    )
    found = {}
    try:
        if user is not None:
            log_in(context, live_url, user)
        page = context.new_page()
        for name, url in urls.items():
            page.goto(live_url + url)
            page.wait_for_load_state("load")
            assert page.locator("html").get_attribute("lang") == lang, name
            page.add_script_tag(path=str(AXE))
            violations = page.evaluate(RUN_AXE)
            # WCAG 1.4.10 (reflow): the page itself never scrolls sideways
            # (a hidden table of the dashboard's figures once made it).
            if past_the_sides(page) > 0:
                violations.append("the page scrolls sideways")
            if violations:
                found[name] = violations
        return found
    finally:
        context.close()


def ways(sizes=("desktop",)):
    return [
        pytest.param(lang, size, id=f"{lang}-{size}") for lang in ("en", "ja") for size in sizes
    ]


# Players' screens at a phone's size too: most play on one.
@pytest.mark.parametrize(("lang", "size"), ways(("phone", "desktop")))
def test_a_visitors_screens_have_no_serious_accessibility_violation(browser, live_url, lang, size):
    assert serious_violations(browser, live_url, DOORSTEP, lang, size=size) == {}


@pytest.mark.parametrize(("lang", "size"), ways(("phone", "desktop")))
def test_a_players_screens_have_no_serious_accessibility_violation(
    browser, live_url, people, lang, size
):
    urls = {name: url.format(**people["fill"]) for name, url in PLAYER.items()}
    assert serious_violations(browser, live_url, urls, lang, people["player"], size) == {}


@pytest.mark.parametrize(("lang", "size"), ways())
def test_an_operators_screens_have_no_serious_accessibility_violation(
    browser, live_url, people, lang, size
):
    urls = {name: url.format(**people["fill"]) for name, url in OPERATOR.items()}
    assert serious_violations(browser, live_url, urls, lang, people["operator"], size) == {}
