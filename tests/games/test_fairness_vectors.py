"""The three test vectors of the "Provably fair" page hold: the Python
verifier (``python -m games.verify``) derives them, the worked first block
and draws are what the generator computes, and the standalone snippet the
page and the round page print (run with this interpreter, standard library
only) agrees, and says so when a card was tampered with. The JavaScript
verifier is checked on the same vectors in tests/browser/test_verify_browser.py."""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import re
import subprocess
import sys

import pytest
from django.urls import reverse

from games.cards import FairRng
from games.fairness_vectors import FIRST_STEPS, UTF8_MESSAGE, VECTORS
from games.models import Table
from games.presenters.fair import VECTOR_NAMES, snippet_text
from games.services import baccarat as baccarat_service
from games.services.player_settings import change_client_seed
from games.verify import report


def run_snippet(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-"], input=text, capture_output=True, text=True, timeout=60
    )


def vector_snippet(vector: dict, cards: list[str] | None = None) -> str:
    return snippet_text(
        server_seed=vector["server_seed"],
        server_seed_hash=vector["server_seed_hash"],
        client_seed=vector["client_seed"],
        nonce=vector["nonce"],
        decks=vector["decks"],
        cards=vector["first_cards"] if cards is None else cards,
    )


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_the_python_verifier_derives_each_vector(vector):
    out = report(
        vector["server_seed"],
        vector["client_seed"],
        vector["nonce"],
        vector["game"],
        vector["decks"],
        vector.get("decision"),
    )
    assert out["server_seed_hash"] == vector["server_seed_hash"]
    assert out["first_cards"] == vector["first_cards"]
    assert vector["dealt"] == vector["first_cards"][: len(vector["dealt"])]
    result = out["winner"] if vector["game"] == "baccarat" else out["result"]
    assert result == vector["result"]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_the_command_line_prints_each_vector(vector):
    args = [
        sys.executable, "-m", "games.verify", "--json",
        "--server-seed", vector["server_seed"], "--client-seed", vector["client_seed"],
        "--nonce", str(vector["nonce"]), "--game", vector["game"], "--decks", str(vector["decks"]),
    ]  # fmt: skip
    if vector.get("decision"):
        args += ["--decision", vector["decision"]]
    out = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    assert (out["server_seed_hash"], out["first_cards"]) == (
        vector["server_seed_hash"],
        vector["first_cards"],
    )


def test_the_worked_first_block_and_draws_are_the_generators():
    vector = VECTORS[0]
    key = bytes.fromhex(vector["server_seed"])
    message = f"{vector['client_seed']}:{vector['nonce']}:0".encode()
    assert FIRST_STEPS["message"].encode() == message
    assert FIRST_STEPS["message_hex"] == message.hex()
    block = hmac.new(key, message, hashlib.sha256).digest()
    assert FIRST_STEPS["block_hex"] == block.hex()
    rng = FairRng(key, vector["client_seed"], vector["nonce"])
    assert FIRST_STEPS["words"] == [rng.next_u32() for _ in range(8)]
    rng = FairRng(key, vector["client_seed"], vector["nonce"])
    for i, n, u, limit, j in FIRST_STEPS["draws"]:
        assert (n, limit) == (i + 1, 2**32 - 2**32 % n)
        assert u < limit and j == u % n == rng.randrange(n)
    second = VECTORS[1]
    assert UTF8_MESSAGE["message"] == f"{second['client_seed']}:{second['nonce']}:0"
    assert UTF8_MESSAGE["message_hex"] == UTF8_MESSAGE["message"].encode("utf-8").hex()


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_the_standalone_snippet_agrees_on_each_vector(vector):
    done = run_snippet(vector_snippet(vector))
    assert done.returncode == 0, done.stderr
    assert "server seed hash: match" in done.stdout
    assert f"first cards of the shoe: {' '.join(vector['first_cards'])}" in done.stdout
    assert done.stdout.strip().endswith("VERIFIED")


def test_the_snippet_names_a_tampered_card_and_a_wrong_commitment():
    vector = VECTORS[0]
    cards = list(vector["first_cards"])
    cards[2] = "AS" if cards[2] != "AS" else "KS"
    done = run_snippet(vector_snippet(vector, cards))
    assert done.returncode == 1
    assert f"card 3: dealt {cards[2]}, derived {vector['first_cards'][2]}: MISMATCH" in done.stdout
    assert "card 1: dealt" in done.stdout and done.stdout.strip().endswith("DOES NOT MATCH")
    wrong = dict(vector, server_seed_hash="0" * 64)
    done = run_snippet(vector_snippet(wrong))
    assert done.returncode == 1 and "server seed hash: MISMATCH" in done.stdout


@pytest.mark.django_db
def test_the_fairness_page_prints_the_vectors_and_their_snippets(client):
    page = client.get(reverse("fair")).content.decode()
    for vector in VECTORS:
        assert vector["server_seed_hash"] in page
        assert " ".join(vector["first_cards"]) in page
    snippets = re.findall(
        r'<pre class="snippet" data-testid="vector-snippet">(.*?)</pre>', page, re.S
    )
    assert len(snippets) == len(VECTORS)
    for text, vector in zip(snippets, VECTORS, strict=True):
        assert html.unescape(text) == vector_snippet(vector)


@pytest.mark.django_db
def test_the_snippet_on_a_rounds_page_verifies_that_round(client, make_player):
    player = make_player()
    # A client seed that needs escaping both in HTML and in Python.
    change_client_seed(user=player, client_seed='it\'s "mine" <&> ラ\\')
    table = Table.objects.get(slug="baccarat-classic")
    rnd = baccarat_service.place_bet(user=player, table=table, bets={"player": 1_000}, slip_key="s")
    client.force_login(player)
    page = client.get(reverse("history_round", args=[rnd.pk])).content.decode()
    text = html.unescape(
        re.search(r'<pre class="snippet" data-testid="verify-snippet">(.*?)</pre>', page, re.S)[1]
    )
    done = run_snippet(text)
    assert done.returncode == 0, done.stdout + done.stderr
    for n, card in enumerate(rnd.cards, start=1):
        assert f"card {n}: dealt {card}, derived {card}: match" in done.stdout
    data = json.loads(
        re.search(r'<script id="verify-data" type="application/json">(.*?)</script>', page, re.S)[1]
    )
    assert data["cards"] == rnd.cards and data["client_seed"] == 'it\'s "mine" <&> ラ\\'
    assert (data["server_seed"], data["nonce"], data["decks"]) == (rnd.server_seed, "0", 8)


def test_every_vector_name_is_marked_for_translation():
    assert {vector["name"] for vector in VECTORS} <= set(VECTOR_NAMES)


@pytest.mark.django_db
def test_the_fairness_page_names_the_vectors_in_the_readers_language(client):
    english = client.get(reverse("fair"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    japanese = client.get(reverse("fair"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "Vector 3: Casino War, 6 decks, a tie taken to war" in english
    assert "テストベクター 3：カジノ ワー、6デッキ、引き分けから戦争へ" in japanese
    # What each vector deals to, in words: PLAYER WINS, not "player".
    assert "→ PLAYER WINS" in english and "→ プレイヤーの勝ち" in japanese
    assert "→ You win the war (decision: WAR)" in english
    for vector in VECTORS:
        assert f": {vector['name']}</h3>" not in japanese
