"""VERIFY checks the public commitment log in Chromium (static/js/verify.js,
tlog.js, Ed25519 and SHA-256 from WebCrypto): the round's leaf holds its
commitment in a signed checkpoint, the browser keeps that checkpoint, and a
later log rewritten behind it is a plain warning. The log's endpoints are
served here from a tree built by tests/fairness/log_cases.py, exactly as the
contract of /log/ says they answer."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Route, expect

from tests.browser.test_verify_browser import demo_round
from tests.fairness.log_cases import FORKED, LEAVES, LOG, WITNESS, b64, note, path, proof
from tests.fairness.log_reference import leaf_hash

pytestmark = pytest.mark.browser


def serve_log(page, leaves: list[bytes]) -> None:
    hashes = [leaf_hash(x) for x in leaves]

    def answer(route: Route) -> None:
        url = urlsplit(route.request.url)
        q = {k: int(v[0]) for k, v in parse_qs(url.query).items()}
        bodies = {
            "/log/key": lambda: f"{LOG.vkey()}\n{WITNESS.vkey()}\n",
            "/log/checkpoint": lambda: note(len(leaves), leaves, LOG, WITNESS),
            "/log/leaf": lambda: json.dumps({"leaf": b64(leaves[q["index"]])}),
            "/log/proof/inclusion": lambda: json.dumps(
                {"proof": [b64(h) for h in path(q["index"], hashes[: q["size"]])]}
            ),
            "/log/proof/consistency": lambda: json.dumps(
                {"proof": [b64(h) for h in proof(q["from"], hashes[: q["to"]])]}
            ),
        }
        route.fulfill(status=200, body=bodies[url.path]())

    page.unroute("**/log/**")
    page.route("**/log/**", answer)


def verify_at(page, url: str, index: int) -> None:
    page.goto(url)
    # The view's log_index (the server's part) placed as the page will have it.
    page.locator("[data-verify-form]").evaluate(
        "(form, i) => form.setAttribute('data-log-index', i)", str(index)
    )
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("js-log")).to_be_visible()


def test_verify_checks_the_rounds_leaf_keeps_the_checkpoint_and_warns_of_a_fork(
    page, live_url, orm
):
    rnd = demo_round(page, live_url)
    mine = (
        f"casino-commitment/1\ncommitment {rnd.server_seed_hash}\nnonce {rnd.nonce}\n"
        f"game war\ntable casino-war\nplayer {'cd' * 16}\n"
    ).encode()
    url = f"{live_url}/history/round/{rnd.pk}/"
    findings = page.get_by_test_id("js-log-finding")

    serve_log(page, [*LEAVES[:4], mine, *LEAVES[5:8]])
    verify_at(page, url, 4)
    expect(findings).to_have_count(4)
    expect(findings.nth(0)).to_have_attribute("data-what", "log_witnessed")
    expect(findings.nth(0)).to_contain_text("Witnesses who cosigned this checkpoint: 1 of 1.")
    expect(findings.nth(1)).to_have_attribute("data-what", "log_leaf")
    expect(findings.nth(2)).to_have_attribute("data-what", "log_included")
    expect(findings.nth(2)).to_contain_text("tree of 8 commitments")
    expect(findings.nth(3)).to_have_attribute("data-what", "log_first")
    expect(page.get_by_test_id("verdict")).to_have_text("✔ Matches")

    serve_log(page, [*LEAVES[:4], mine, *LEAVES[5:13]])  # grown: extends the kept tree
    verify_at(page, url, 4)
    expect(findings.nth(3)).to_have_attribute("data-what", "log_consistent")
    expect(page.get_by_test_id("verification")).to_have_class("verification ok")

    serve_log(page, [*LEAVES[:4], mine, *FORKED[5:13]])  # rewritten behind the kept tree
    verify_at(page, url, 4)
    warning = page.get_by_role("alert")
    expect(warning).to_have_attribute("data-what", "log_fork")
    expect(warning).to_contain_text("does not extend the one this browser verified before (13)")
    expect(page.get_by_test_id("js-log")).to_have_attribute("data-fork", "true")
    expect(page.get_by_test_id("verification")).to_have_class("verification bad")


def test_the_fair_page_checks_the_newest_checkpoint_against_the_one_this_browser_kept(
    page, live_url
):
    out = page.get_by_test_id("log-check-out")
    findings = out.get_by_test_id("js-log-finding")
    serve_log(page, LEAVES[:8])
    page.goto(live_url + "/fair/")
    page.get_by_test_id("log-check").click()
    expect(findings.nth(2)).to_have_attribute("data-what", "log_first")
    serve_log(page, LEAVES[:13])
    page.get_by_test_id("log-check").click()
    expect(findings.nth(2)).to_have_attribute("data-what", "log_consistent")
    expect(findings.nth(1)).to_contain_text("newest checkpoint holds 13 commitments")
    serve_log(page, FORKED[:13])
    page.get_by_test_id("log-check").click()
    expect(out.get_by_role("alert")).to_contain_text("does not extend")
