"""The round page's verifiers as a player and an operator meet them: a client
seed typed to attack the page is text on it and a plain literal in the
program; the data the page hands both verifiers is what they replay (the
keys of the shared tampered rounds) and verifies a real round of each game;
an open round reveals nothing to verify."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils.html import escape

from games.models import Profile, Table
from games.services import baccarat as baccarat_service
from games.services import war as war_service
from games.services.player_settings import change_client_seed
from games.templatetags.fair import pyliteral
from tests.fairness.rounds import FILE
from tests.seeds import find_seed, war_cases

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HOSTILE_SEEDS = [
    '</pre><meta http-equiv=refresh content="0;url=//evil">',
    '"""; import os; os.system("id"); """',
    "'''\\\\",  # ends in a backslash: it must not escape the literal's closing quote
    "</script><script>alert(1)</script>",
]
READER_PERMISSIONS = ["view_round", "view_user", "view_wallet"]


class Tags(HTMLParser):
    """Every start tag of a page, with its attributes: what a browser would act on."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


def snippet_on(page: str) -> str:
    found = re.search(r'<pre class="snippet" data-testid="verify-snippet">(.*?)</pre>', page, re.S)
    assert found, "the round page shows no snippet"
    return html.unescape(found[1])


def verify_data_on(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script id="verify-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert found, "the round page gives no data to verify"
    return json.loads(found[1])


def run_snippet(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-"], input=text, capture_output=True, text=True, timeout=60
    )


def operator(make_player):
    staff = make_player("operator", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(codename__in=READER_PERMISSIONS))
    return staff


@pytest.mark.django_db
@pytest.mark.parametrize("seed", HOSTILE_SEEDS)
def test_a_hostile_client_seed_is_inert_text_for_the_operator_and_a_literal_in_the_program(
    client, make_player, seed
):
    player = make_player()
    change_client_seed(user=player, client_seed=seed)
    table = Table.objects.get(slug="baccarat-classic")
    rnd = baccarat_service.place_bet(user=player, table=table, bets={"player": 1_000}, slip_key="s")
    client.force_login(operator(make_player))
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()

    # Nothing the seed spells reaches the operator's browser as markup: no
    # refresh, no script of its making, the <pre> the snippet sits in whole.
    if "<" in seed:
        assert seed not in page
    tags = tags_of(page)
    assert not [attrs for tag, attrs in tags if tag == "meta" and "http-equiv" in attrs]
    inline = [attrs for tag, attrs in tags if tag == "script" and not attrs.get("src")]
    assert inline and all(attrs.get("type") == "application/json" for attrs in inline)
    assert f'<code data-testid="client-seed">{escape(seed)}</code>' in page  # shown, as text

    # The program reads the seed back exactly as a Python literal and verifies the round.
    text = snippet_on(page)
    assert f"CLIENT_SEED = {ascii(seed)}\n" in text
    done = run_snippet(text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("VERIFIED")
    assert verify_data_on(page)["client_seed"] == seed


def test_the_snippet_template_writes_values_as_python_literals_that_survive_any_seed():
    for value in [*HOSTILE_SEEDS, "ラッキー7 😀", None, True, 0, 2**70, 1.5, ["AS", "KD"]]:
        text = pyliteral(value)
        assert text.isascii() and "\n" not in text
        assert eval(text) == value  # noqa: S307 - the literal is ours; this is its test
    assert pyliteral({"banker": "1.95", "pair": None}) == "{'banker': '1.95', 'pair': None}"
    assert pyliteral(float("inf")) == 'float("inf")'


def _round_keys() -> set[str]:
    shared = json.loads(FILE.read_text(encoding="utf-8"))
    return set(shared["cases"][0]["round"])


@pytest.mark.django_db
def test_the_page_gives_both_verifiers_a_whole_baccarat_round_and_it_verifies(client, make_player):
    player = make_player()
    table = Table.objects.get(slug="baccarat-classic")
    bets = {"banker": 1_030, "tie": 1_000, "player_pair": 1_000, "banker_pair": 1_000}
    rnd = baccarat_service.place_bet(user=player, table=table, bets=bets, slip_key="s")
    client.force_login(player)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    data = verify_data_on(page)

    assert set(data) - {"created_at", "labels"} == _round_keys()
    assert data["bets"] == rnd.bets and data["returns"] == rnd.returns
    assert data["pays"] == {area: str(m) for area, m in table.current_version.pays.items()}
    assert (data["result"], data["player_pair"]) == (rnd.winner, rnd.player_pair)
    assert data["created_at"] == rnd.created_at.isoformat()
    done = run_snippet(snippet_on(page))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.django_db
def test_a_war_taken_to_war_verifies_from_the_page_with_its_burns(client, make_player):
    player = make_player()
    seed = find_seed("verify-page-war", "war-page", 6, lambda shoe: "war_win" in war_cases(shoe))
    Profile.objects.filter(user=player).update(
        next_server_seed=seed, client_seed="war-page", nonce=0
    )
    table = Table.objects.get(slug="casino-war")
    rnd = war_service.deal(user=player, table=table, ante=1_000, tie_bet=500, slip_key="w")
    rnd = war_service.decide(user=player, round_id=rnd.pk, decision="war")
    client.force_login(player)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    data = verify_data_on(page)

    assert (data["decision"], data["result"], len(data["cards"])) == ("war", "war_win", 7)
    assert data["bets"]["raise"] == 1_000 and data["returns"]["raise"] == 2_000
    text = snippet_on(page)
    done = run_snippet(text)
    assert done.returncode == 0, done.stdout + done.stderr
    # The same program on a round whose burn was changed names the burn.
    burn = data["cards"][3]
    tampered = text.replace(f"DEALT = {ascii(data['cards'])}", "DEALT = " + ascii(
        [*data["cards"][:3], "AS" if burn != "AS" else "KD", *data["cards"][4:]]
    ))  # fmt: skip
    done = run_snippet(tampered)
    assert done.returncode == 1 and "card 4 (Burn): dealt" in done.stdout


@pytest.mark.django_db
def test_an_open_round_gives_nothing_to_verify_before_the_decision(client, make_player):
    player = make_player()
    seed = find_seed("verify-page-war", "war-page", 6, lambda shoe: "war_win" in war_cases(shoe))
    Profile.objects.filter(user=player).update(
        next_server_seed=seed, client_seed="war-page", nonce=0
    )
    table = Table.objects.get(slug="casino-war")
    rnd = war_service.deal(user=player, table=table, ante=1_000, tie_bet=0, slip_key="w")
    client.force_login(player)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    assert 'data-testid="server-seed-hidden"' in page
    assert seed not in page and 'id="verify-data"' not in page
    assert 'data-testid="verify-snippet"' not in page


@pytest.mark.django_db
def test_the_page_names_the_rounds_leaf_in_the_public_log_and_the_snippet_reads_it_there(
    client, make_player
):
    """Until the log has integrated the round's leaf, the page says so in
    words and the program waits for it instead of failing; the program
    reads the log at this site's /log."""
    player = make_player()
    table = Table.objects.get(slug="baccarat-classic")
    rnd = baccarat_service.place_bet(user=player, table=table, bets={"banker": 1_000}, slip_key="l")
    client.force_login(player)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    assert re.search(r'data-testid="log-index">pending: not yet in a signed checkpoint<', page)
    text = snippet_on(page)
    assert "LOG_URL = 'http://testserver/log'" in text
    done = run_snippet(text)
    assert done.returncode == 0, done.stdout
    assert "log: this round is not yet in a signed checkpoint" in done.stdout
    assert done.stdout.strip().endswith("VERIFIED")
