"""The JavaScript verifier (static/js/verify.js, WebCrypto) in Chromium: it
derives the three test vectors of the fairness page exactly, derives typed-in
seeds (a Japanese client seed included), and on a round's page VERIFY
recomputes the shoe in the page, with no request to the server, and marks
each dealt card as matching, or not once a stored card was tampered with."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.fairness_vectors import VECTORS
from games.models import Profile, Round, Table
from games.services import war as war_service

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
            "v => CasinoVerify.deriveShoe(v.server_seed, v.client_seed, v.nonce, v.decks)", vector
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
