"""A Japanese page speaks Japanese: beyond the game's own terms (PLAYER,
BANKER, TIE, BET... as the Japanese rule pages keep them), the brand, and
what is data (usernames, seeds, codes), no English word is left on the
screens of the lobby, history, round, fair, account, sign-up, log-in, demo
and operator pages. (A round's raw stored detail and Django's permission names
on an account's page are data the operator console shows as stored.)"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import Table
from tests.games.views.test_history_views import baccarat_round, war_round

User = get_user_model()
JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}

# The game's terms, kept in capitals on the Japanese rule pages, the brand,
# and units and abbreviations a Japanese page writes in Latin letters.
KEPT = {
    "PLAYER", "BANKER", "TIE", "BET", "PAIR", "MAX", "MIN", "WAR", "SURRENDER", "ANTE",
    "RAISE", "DEAL", "VERIFY", "BONUS", "CHANCE", "NO", "The", "Casino", "DEMO",
    "UTC", "CSV", "PIN", "RTP", "ID", "Python", "WebCrypto", "SHA", "HMAC", "TOTP", "QR",
    "English", "P", "B", "T", "x", "v", "No", "OS", "ASCII", "UTF", "Fisher", "Yates",
    "Durstenfeld", "IP",
    # A card's corner index, printed the same on Japanese cards.
    "A", "J", "Q", "K",
}  # fmt: skip
# Elements whose text is data, not words of the site.
DATA_ELEMENTS = {"script", "style", "code", "pre", "textarea", "kbd", "samp"}


class VisibleText(HTMLParser):
    """Words a reader sees: element text and the attributes read aloud or
    shown (title, placeholder, aria-label, alt, value of buttons)."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in DATA_ELEMENTS:
            self.skip += 1
        shown = dict(attrs)
        for name in ("title", "placeholder", "aria-label", "alt"):
            if shown.get(name):
                self.words.append(shown[name])
        if tag == "input" and shown.get("type") in ("submit", "button"):
            self.words.append(shown.get("value") or "")

    def handle_endtag(self, tag):
        if tag in DATA_ELEMENTS and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.words.append(data)


def english_words(html: str, *data: str | re.Pattern[str]) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    text = " ".join(parser.words)
    for value in data:
        text = value.sub(" ", text) if isinstance(value, re.Pattern) else text.replace(value, " ")
    words = set(re.findall(r"[A-Za-z][A-Za-z']+|\b[A-Za-z]\b", text))
    # Hex digests and round codes ("6H") are data.
    return {w for w in words if w not in KEPT and not re.fullmatch(r"[0-9a-fA-F]{6,}", w)}


@pytest.fixture
def player(make_player):
    user = make_player("yamada")
    baccarat_round(user)
    war_round(user)
    return user


def test_the_players_pages_are_all_japanese(client, player):
    client.force_login(player)
    rnd = player.rounds.order_by("pk").first()
    pages = [
        reverse("lobby"),
        reverse("history"),
        reverse("history_summary"),
        reverse("history_round", args=[rnd.pk]),
        reverse("history_round", args=[player.rounds.order_by("pk").last().pk]),
        reverse("account"),
        reverse("fair"),
        reverse("password_change"),
    ]
    found = {}
    for url in pages:
        response = client.get(url, **JA)
        assert response.status_code == 200, url
        words = english_words(response.content.decode(), "yamada", rnd.client_seed)
        if words:
            found[url] = sorted(words)
    assert found == {}


def test_the_doorstep_pages_are_all_japanese(client, db):
    found = {}
    for url in (reverse("login"), reverse("signup"), "/"):
        response = client.get(url, follow=True, **JA)
        assert response.status_code == 200, url
        words = english_words(response.content.decode())
        if words:
            found[url] = sorted(words)
    assert found == {}


def test_the_operators_pages_are_all_japanese(client, player):
    operator = User.objects.create_superuser("operator", "op@example.com", None)
    client.force_login(operator)
    war = Table.objects.get(slug="casino-war")
    pages = [
        reverse("admin:index"),
        reverse("admin:games_dashboard"),
        reverse("admin:games_table_changelist"),
        reverse("admin:games_table_change", args=[war.pk]),
        reverse("history_player_lookup"),
        reverse("history_player", args=[player.pk]),
        reverse("operator_player", args=[player.pk]),
        reverse("admin:games_auditentry_changelist"),
        *(
            reverse(f"admin:{app}_{model}_changelist")
            for app, model in (
                ("games", "wallet"),
                ("games", "ledgerentry"),
                ("games", "round"),
                ("games", "profile"),
                ("games", "tableversion"),
                ("auth", "user"),
                ("auth", "group"),
                ("axes", "accessattempt"),
                ("axes", "accesslog"),
                ("axes", "accessfailurelog"),
                ("otp_totp", "totpdevice"),
            )
        ),
        reverse("admin:games_wallet_change", args=[player.wallet.pk]),
        reverse("admin:games_tableversion_change", args=[war.current_version_id]),
    ]
    found = {}
    for url in pages:
        response = client.get(url, **JA)
        assert response.status_code == 200, url
        # Data, not words of the site: the table list shows each table's name
        # beside its Japanese one, the ledger the reason its row was written
        # with, django-axes names its log rows in English and writes "<unknown>" for
        # what a request did not send.
        words = english_words(
            response.content.decode(), "yamada", "operator", "op@example.com",
            *Table.objects.values_list("name", flat=True), "starting chips",
            re.compile(r"Access Log for\s+\S+"), "<unknown>",
        )  # fmt: skip
        if words:
            found[url] = sorted(words)
    assert found == {}
