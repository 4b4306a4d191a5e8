"""Both tables in Chromium as ``make run`` serves them (debug off, static
files collected under hashed names): the page's modules and every module
they import arrive by their hashed names, nothing is missing and the
console stays clean."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import make_run

pytestmark = pytest.mark.browser

HASHED_MODULE = re.compile(r"/static/js/[\w-]+\.[0-9a-f]{12}\.js$")


@pytest.fixture(scope="module")
def production_url(tmp_path_factory):
    env = make_run.production_env(tmp_path_factory.mktemp("production-modules"))
    make_run.set_up_site(env, tmp_path_factory)
    port = make_run.free_port()
    with make_run.serving(make_run.make_run_command("127.0.0.1", port), env, port) as url:
        yield url


def test_it_loads_both_tables_from_hashed_modules_with_no_error(page, production_url):
    url = production_url
    failed: list[str] = []
    errors: list[str] = []
    modules: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # The browser's own icon fetch (resource type "other") is cancelled when
    # the test navigates on before it ends: that is not a file that failed.
    page.on(
        "requestfailed",
        lambda r: (
            None
            if r.resource_type == "other" and r.failure == "net::ERR_ABORTED"
            else failed.append(f"failed {r.url}")
        ),
    )
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: modules.append(r.url) if "/static/js/" in r.url else None)

    page.goto(url + "/")
    page.get_by_test_id("play-demo").click()
    page.wait_for_url(url + "/")
    for table, ready in (
        ("/baccarat/baccarat-social/", "rack"),
        ("/war/casino-war/", "btn-deal"),
    ):
        page.goto(url + table)
        expect(page.get_by_test_id(ready)).to_be_visible()
        # The modules ran: a chip tapped onto the felt shows its amount.
        if table.startswith("/baccarat/"):
            # Baccarat's page script marks its socket open once it runs.
            expect(page.locator("body[data-ws=open]")).to_have_count(1, timeout=20_000)
            page.get_by_test_id("area-player").click()
            expect(page.get_by_test_id("bet-total")).not_to_have_text("0")
        else:
            # War's page script marks its socket open once it runs, too.
            expect(page.locator("#war-app[data-ws=open]")).to_have_count(1, timeout=20_000)
            page.get_by_test_id("chip-5").click()
            expect(page.get_by_test_id("ante-amount")).to_have_text("5")

    requested = {m.rsplit("/", 1)[1] for m in modules}
    # The page scripts and the shared modules they import, each by its hashed name.
    for shared in ("baccarat", "war", "slip", "chips", "sound", "win"):
        assert any(name.startswith(shared + ".") for name in requested), shared
    unhashed = [m for m in modules if not HASHED_MODULE.search(m.split("?")[0])]
    assert not unhashed, unhashed
    assert not failed, failed
    assert not errors, errors
