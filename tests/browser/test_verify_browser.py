"""The JavaScript verifier (static/js/verify.js, WebCrypto) in Chromium: it
derives the three test vectors of the fairness page exactly, derives typed-in
seeds (a Japanese client seed included), and on a round's page VERIFY
replays the whole round in the page, posting nothing to the server: it marks
each dealt card as matching, or not once a stored card was tampered with, and
names a tampered return or a missing commitment. It says whether this browser
was shown the round's commitment at a table before the round (commitments.js),
and a client seed typed to attack the page stays text for the operator."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from games.fairness_vectors import VECTORS
from games.models import Profile, Round, Table
from games.services import baccarat as baccarat_service
from games.services import war as war_service
from games.services.player_settings import change_client_seed
from tests.browser.helpers import log_in

pytestmark = pytest.mark.browser


def test_the_browser_derives_the_three_test_vectors(page, live_url):
    page.goto(live_url + "/fair/")
    for n, vector in enumerate(VECTORS, start=1):
        box = page.get_by_test_id(f"vector-{n}")
        box.get_by_test_id("vector-check").click()
        verdict = box.get_by_test_id("vector-verdict")
        expect(verdict).to_have_attribute("data-match", "true")
        expect(box.get_by_test_id("vector-cards")).to_have_text(" ".join(vector["first_cards"]))
        expect(box.get_by_test_id("vector-out")).to_contain_text(vector["server_seed_hash"])
    # The same functions, called directly in the page, agree too.
    for vector in VECTORS:
        shoe = page.evaluate(
            """async (v) => (await import("/static/js/verify.js"))
                .deriveShoe(v.server_seed, v.client_seed, v.nonce, v.decks)""",
            vector,
        )
        assert shoe[:12] == vector["first_cards"]
        assert len(shoe) == 52 * vector["decks"]


def test_the_fairness_page_shuffles_seeds_typed_in(page, live_url):
    vector = VECTORS[1]  # the client seed is Japanese: the HMAC message is UTF-8
    page.goto(live_url + "/fair/")
    page.get_by_test_id("fair-server-seed").fill(vector["server_seed"])
    page.get_by_test_id("fair-client-seed").fill(vector["client_seed"])
    page.get_by_test_id("fair-nonce").fill(str(vector["nonce"]))
    page.get_by_test_id("fair-decks").fill(str(vector["decks"]))
    page.get_by_test_id("fair-derive").click()
    expect(page.get_by_test_id("fair-out-cards")).to_have_text(" ".join(vector["first_cards"]))
    expect(page.get_by_test_id("fair-out-hash")).to_have_text(
        f"SHA-256: {vector['server_seed_hash']}"
    )
    page.get_by_test_id("fair-server-seed").fill("not hex")
    page.get_by_test_id("fair-derive").click()
    expect(page.get_by_test_id("fair-out-error")).to_contain_text("hexadecimal")


def demo_round(page, live_url) -> Round:
    """A demo War round taken to war (seeded by test vector 3), and the
    demo's browser signed in."""
    page.goto(live_url + "/")
    page.get_by_test_id("play-demo").click()
    page.wait_for_url(live_url + "/")
    demo = get_user_model().objects.filter(profile__demo=True).latest("pk")
    vector = VECTORS[2]
    Profile.objects.filter(user=demo).update(
        next_server_seed=vector["server_seed"], client_seed=vector["client_seed"], nonce=0
    )
    table = Table.objects.get(slug="casino-war")
    rnd = war_service.deal(user=demo, table=table, ante=1_000, tie_bet=0, slip_key="v")
    return war_service.decide(user=demo, round_id=rnd.pk, decision="war")


def test_verify_on_a_rounds_page_runs_in_the_browser(page, live_url, orm):
    rnd = demo_round(page, live_url)
    assert rnd.cards == VECTORS[2]["dealt"]
    page.goto(f"{live_url}/history/round/{rnd.pk}/")
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text("✔ Matches")
    expect(page.get_by_test_id("verification")).to_have_attribute("data-checked-by", "browser")
    cards = page.get_by_test_id("js-card")
    expect(cards).to_have_count(7)
    for i, code in enumerate(rnd.cards):
        expect(cards.nth(i)).to_have_attribute("data-match", "true")
        expect(cards.nth(i)).to_have_attribute("data-derived", code)
    expect(cards.nth(2)).to_contain_text("Burn")
    expect(page.get_by_test_id("js-hash")).to_have_attribute("data-match", "true")
    assert posts == []  # no server call


def test_verify_in_the_browser_names_a_tampered_card(page, live_url, orm):
    rnd = demo_round(page, live_url)
    cards = list(rnd.cards)
    cards[5] = "AS" if cards[5] != "AS" else "KS"
    Round.objects.filter(pk=rnd.pk).update(cards=cards)
    page.goto(f"{live_url}/history/round/{rnd.pk}/")
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text("✘ Does not match")
    js_cards = page.get_by_test_id("js-card")
    expect(js_cards.nth(5)).to_have_attribute("data-match", "false")
    expect(js_cards.nth(5)).to_have_attribute("data-derived", rnd.cards[5])
    expect(js_cards.nth(4)).to_have_attribute("data-match", "true")


def test_verify_in_the_browser_names_a_tampered_return_and_a_missing_commitment(
    page, live_url, orm
):
    rnd = demo_round(page, live_url)
    returns = {**rnd.returns, "raise": rnd.returns["raise"] - 1}
    Round.objects.filter(pk=rnd.pk).update(returns=returns, server_seed_hash="")
    page.goto(f"{live_url}/history/round/{rnd.pk}/")
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text("✘ Does not match")
    differences = page.get_by_test_id("js-differences").locator("li")
    expect(differences).to_have_text(
        [
            "the commitment hash is missing",
            "return on RAISE: 19.99 stored, the seeds' game returns 20",
        ]
    )
    expect(page.get_by_test_id("js-hash")).to_have_attribute("data-match", "false")
    # Every card still matches: what differs is named, nothing else.
    expect(page.locator("[data-testid=js-card][data-match=false]")).to_have_count(0)


def play_at_the_war_table(page, username: str, n: int) -> Round:
    """Round ``n`` at the table in this browser: deal, surrender a tie, wait for the result."""
    expect(page.get_by_test_id("war-round")).to_have_attribute("data-status", "empty")
    page.get_by_test_id("chip-25").click()
    page.get_by_test_id("btn-deal").click()
    result, decision = page.get_by_test_id("war-result"), page.get_by_test_id("decision-panel")
    expect(result.or_(decision)).to_be_visible()
    if decision.is_visible():
        expect(page.locator(".htmx-request")).to_have_count(0)
        page.get_by_test_id("btn-surrender").click()
        expect(result).to_be_visible()
    rounds = Round.objects.filter(player__username=username, status=Round.Status.SETTLED)
    assert rounds.count() == n
    return rounds.latest("seq")


def test_verify_says_whether_this_browser_saw_the_commitment_before_the_round(
    page, live_url, signed_up, browser, orm
):
    page.goto(f"{live_url}/war/casino-war/")
    shown = page.get_by_test_id("next-seed-hash")  # in a closed <details>: its text, not its look
    first_hash = shown.text_content()
    first = play_at_the_war_table(page, signed_up, 1)
    # The table swaps in the next round's commitment: that one is remembered too.
    expect(shown).not_to_have_text(first_hash)
    second_hash = shown.text_content()
    page.keyboard.press("PageDown")
    second = play_at_the_war_table(page, signed_up, 2)
    assert (first.server_seed_hash, second.server_seed_hash) == (first_hash, second_hash)
    rounds = [first, second]

    page.goto(f"{live_url}/history/round/{rounds[1].pk}/")
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text("✔ Matches")
    seen = page.get_by_test_id("js-commitment")
    expect(seen).to_have_attribute("data-seen", "before")
    expect(seen).to_contain_text("This browser was shown this commitment at")
    expect(seen).to_contain_text("before the round")

    # Another browser (another device) never saw it: the seeds still match,
    # and the page warns that it cannot tell when the seed was fixed.
    other = browser.new_context(locale="en-US")
    try:
        log_in(other, live_url, rounds[1].player)
        fresh = other.new_page()
        fresh.goto(f"{live_url}/history/round/{rounds[1].pk}/")
        fresh.get_by_test_id("verify").click()
        expect(fresh.get_by_test_id("verdict")).to_have_text("✔ Matches")
        never = fresh.get_by_test_id("js-commitment")
        expect(never).to_have_attribute("data-seen", "never")
        expect(never).to_contain_text("This browser was never shown this commitment")
    finally:
        other.close()


# Every <meta http-equiv> the document ever holds, as the parser or a script
# puts it in (a refresh is acted on as it is inserted), kept in the window.
REFRESHES = """
window.__refreshes = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    for (const node of change.addedNodes) {
      const metas = node.nodeType === 1 ? [node, ...node.querySelectorAll("meta")] : [];
      for (const meta of metas) {
        if (meta.matches("meta[http-equiv]")) window.__refreshes.push(meta.outerHTML);
      }
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_a_client_seed_typed_to_attack_the_operator_stays_text_on_the_round_page(
    page, live_url, signed_up, orm
):
    seed = '</pre><meta http-equiv=refresh content="0;url=//evil">'
    player = get_user_model().objects.get(username=signed_up)
    change_client_seed(user=player, client_seed=seed)
    table = Table.objects.get(slug="baccarat-classic")
    rnd = baccarat_service.place_bet(user=player, table=table, bets={"banker": 1_000}, slip_key="x")
    operator = get_user_model().objects.create_user(f"op-{signed_up}", is_staff=True)
    operator.user_permissions.set(
        Permission.objects.filter(codename__in=["view_round", "view_user", "view_wallet"])
    )
    page.context.clear_cookies()
    log_in(page.context, live_url, operator)
    url = f"{live_url}/history/round/{rnd.pk}/"
    page.add_init_script(REFRESHES)
    page.goto(url)
    page.evaluate("window.__stayed = true")  # gone if the page is left
    expect(page.get_by_test_id("round-player")).to_have_text(signed_up)
    expect(page.get_by_test_id("client-seed")).to_have_text(seed)
    page.locator(".verify-snippet summary").click()
    expect(page.get_by_test_id("verify-snippet")).to_contain_text(f"CLIENT_SEED = {ascii(seed)}")
    assert page.locator("meta[http-equiv]").count() == 0
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verdict")).to_have_text(re.compile("Matches"))
    # No refresh was ever put in this document (parsed, or written by the
    # verifier), and it is still the one opened: a refresh would have left it.
    assert page.evaluate("[window.__stayed, window.__refreshes]") == [True, []]
    assert page.url == url


def test_the_baccarat_table_remembers_each_commitment_it_shows(page, live_url, signed_up, orm):
    page.goto(f"{live_url}/baccarat/baccarat-classic/")
    expect(page.locator("body[data-ws=open]")).to_have_count(1)
    shown = page.get_by_test_id("seed-hash")
    first_hash = shown.text_content()
    remembered = "async h => (await import('/static/js/commitments.js')).seenHere(h)"
    assert isinstance(page.evaluate(remembered, first_hash), int)
    page.get_by_test_id("chip-5").click()
    page.get_by_test_id("area-banker").click()
    page.get_by_test_id("bet").click()
    expect(page.locator("#bac-phase")).to_have_attribute("data-phase", "done")
    expect(shown).not_to_have_text(first_hash)
    second_hash = shown.text_content()
    assert page.evaluate(remembered, second_hash) >= page.evaluate(remembered, first_hash)
    rnd = Round.objects.filter(player__username=signed_up).get()
    assert rnd.server_seed_hash == first_hash
