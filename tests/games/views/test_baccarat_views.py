"""The Baccarat table's pages as a player uses them: the slip's limits for
the browser, BET with the whole slip, inline refusals naming the area,
REBET, the rules page's RTP, the roads details, the client seed and the
settings."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.baccarat.roads import Result
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services.faults import inject_fault
from games.services.tables import snapshot_version
from games.services.wallet import Posting, post
from tests.stored_results import store_results
from tests.tables import shown_version

SLUG = "baccarat-classic"  # chips 0.1 0.5 1 5 25 100; PLAYER/BANKER MIN 0.10; TIE 10-2,000


@pytest.fixture
def player(make_player):
    return make_player(chips=1_000)


@pytest.fixture
def tab(client, player):
    """A logged-in browser tab speaking English, with htmx."""
    client.force_login(player)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def htmx(client, name: str, data: dict | None = None, **kwargs):
    return client.post(
        reverse(name, args=[SLUG]) if name != "baccarat_settings" else reverse(name),
        data or {},
        HTTP_HX_REQUEST="true",
        **kwargs,
    )


def bet(client, bets: dict[str, str], key: str = "slip-1", **extra):
    """BET with a whole slip, as the browser sends it: chips per area, and
    the table's version the page shows."""
    fields = {"slip_key": key, "table_version": shown_version(SLUG), **bets, **extra}
    return htmx(client, "baccarat_bet", fields)


def rebet_data(html: str) -> dict:
    return json.loads(re.search(r'id="bac-rebet"[^>]*>([^<]*)<', html).group(1))


def table_page(client) -> str:
    response = client.get(reverse("baccarat_table", args=[SLUG]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_table_needs_a_login(client, db):
    response = client.get(reverse("baccarat_table", args=[SLUG]))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_table_shows_limits_paytable_balance_and_the_next_seed_hash(tab, player):
    html = table_page(tab)
    assert 'data-testid="max-bet"' in html and "25,000" in html
    assert "MIN 0.10 · MAX 20,000" in html  # PLAYER
    assert "MIN 10 · MAX 2,000" in html  # TIE
    assert 'data-testid="table-balance">1,000<' in html
    assert 'ws-connect="/ws/baccarat/baccarat-classic/?lang=en"' in html
    seed = Profile.objects.get(user=player).next_server_seed
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in html
    # The paytable behind the MIN/MAX sign.
    assert re.search(r"TIE</span><span>×9<", html)


def test_a_closed_table_sends_the_player_back_to_the_lobby(tab):
    Table.objects.filter(slug=SLUG).update(enabled=False)
    response = tab.get(reverse("baccarat_table", args=[SLUG]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("lobby")
    assert "This table is closed" in response.content.decode()


def test_the_page_gives_the_browser_slip_its_limits_and_chips(tab):
    html = table_page(tab)
    limits = json.loads(re.search(r'id="bac-slip-limits"[^>]*>([^<]*)<', html).group(1))
    assert limits["areas"]["tie"] == [1_000, 200_000]
    assert limits["max_bet"] == 2_500_000 and limits["balance"] == 100_000
    for units in (10, 50, 100, 500, 2_500, 10_000):  # 0.1 to 100 chips
        assert f'data-slip-chip="{units}"' in html
    assert limits["step"] == 10
    assert 'data-slip-table="baccarat:baccarat-classic"' in html


# Each rule's refusal, over this endpoint and the table's socket alike:
# tests/games/consumers/test_socket_bet.py.


@pytest.mark.parametrize(
    "amount", ["1e999999999", "１０", "1e3", "NaN", "Infinity", "-0", "1 0", "9" * 400, "0.001"]
)
def test_a_slip_amount_that_is_not_one_is_refused_422_never_a_500(tab, player, amount):
    """``1e999999999`` overflowed the Decimal multiplication: "something went
    wrong while dealing". Full-width ``１０`` and ``1e3`` were played as 10
    and 1,000 chips. Each is a client error (422) saying how an amount is
    written."""
    response = bet(tab, {"player": amount})
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-testid="slip-error"' in html and "written with the digits 0-9" in html
    assert "Something went wrong" not in html
    assert not Round.objects.filter(player=player).exists()
    assert Wallet.objects.get(user=player).balance == 100_000


def test_bet_plays_the_whole_slip_in_one_request(tab, player):
    response = bet(tab, {"banker": "50", "player_pair": "10"}, key="k-1")
    assert response.status_code == 200
    rnd = Round.objects.get(player=player)
    assert rnd.bets == {"banker": 5_000, "player_pair": 1_000}
    html = response.content.decode()
    assert f'data-round="{rnd.pk}"' in html  # the browser starts a fresh slip
    assert 'id="bac-fairness"' in html  # the next round's seed hash
    seed = Profile.objects.get(user=player).next_server_seed
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in html
    # A double click (same key) charges once.
    bet(tab, {"banker": "50", "player_pair": "10"}, key="k-1")
    assert Round.objects.filter(player=player).count() == 1
    assert LedgerEntry.objects.filter(wallet__user=player, kind="bet").count() == 2
    # The page after a reload shows the finished round.
    page = table_page(tab)
    for code in rnd.cards:
        assert f'data-card="{code}"' in page
    assert f'data-winner="{rnd.winner}"' in page
    assert f'data-testid="table-balance">{rnd.balance_after // 100:,}' in page


def test_a_failure_while_dealing_is_explained_and_nothing_is_taken(tab, player):
    ledger = LedgerEntry.objects.count()
    with inject_fault("baccarat.after_debit"):
        response = bet(tab, {"player": "100"}, key="k-2")
    html = response.content.decode()
    assert "Something went wrong while dealing" in html and "nothing was taken" in html
    assert Wallet.objects.get(user=player).balance == 100_000
    assert LedgerEntry.objects.count() == ledger
    assert not Round.objects.filter(player=player).exists()
    # The slip is still in the browser: BET again works.
    bet(tab, {"player": "100"}, key="k-2")
    assert Round.objects.filter(player=player).count() == 1


def test_rebet_repeats_the_last_round_and_x2_is_capped_with_a_note(tab, player):
    assert rebet_data(table_page(tab))["once"] == {}  # nothing to repeat yet
    answer = bet(tab, {"player": "100", "tie": "100"}).content.decode()
    rnd = Round.objects.get(player=player)
    data = rebet_data(answer)
    assert data["once"] == {"player": 10_000, "tie": 10_000}
    assert not data["once_capped"]
    assert rebet_data(table_page(tab))["once"] == rnd.bets
    # REBET x2 wants 400 chips; with 300 left it is lowered, and says so.
    wallet = Wallet.objects.get(user=player)
    with transaction.atomic():
        post(wallet_id=wallet.pk, postings=[Posting("adjustment", 30_000 - wallet.balance, "test")])
    data = rebet_data(table_page(tab))
    assert data["twice"] == {"player": 20_000, "tie": 10_000}
    assert data["twice_capped"]


def test_the_rules_page_shows_the_paytable_and_exact_rtp(tab):
    response = tab.get(reverse("baccarat_rules", args=[SLUG]))
    html = response.content.decode()
    # Seed 001's figures for 8 decks.
    assert re.search(r'rtp-banker">98.94%', html)
    assert re.search(r'rtp-player">98.76%', html)
    assert re.search(r'rtp-tie">85.64%', html)
    assert re.search(r'paytable-tie">.*?×9<', html, re.S)
    assert "table.html" not in html
    assert reverse("baccarat_table", args=[SLUG]) in html


def make_rounds(player, winners: str, table_slug: str = SLUG) -> None:
    """Store finished rounds quickly (P/B/T letters) for the roads."""
    names = {"P": "player", "B": "banker", "T": "tie"}
    store_results(player, [Result(names[w]) for w in winners], slug=table_slug)


def test_the_roads_details_show_every_road_and_the_ask_previews(tab, player):
    make_rounds(player, "BBPPPBTPB")
    response = tab.get(reverse("baccarat_roads", args=[SLUG]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.count('class="bead ') == 9
    assert html.count('class="ring ') == 8  # one per PLAYER/BANKER win; the tie marks a cell
    for road in ("big-eye-boy", "small-road", "cockroach-pig", "ask-player", "ask-banker"):
        assert f'data-testid="{road}"' in html
    assert 'data-testid="score-chart"' in html


def test_the_table_page_reads_a_bounded_window_of_the_history(tab, player):
    make_rounds(player, "PB" * 50)
    table_page(tab)  # the process reads the table's version once and keeps it
    with CaptureQueriesContext(connection) as small:
        html_small = table_page(tab)
    make_rounds(player, "PBT" * 400)
    with CaptureQueriesContext(connection) as big:
        html_big = table_page(tab)
    assert len(big) == len(small)
    assert not any("COUNT(" in q["sql"].upper() for q in big.captured_queries)
    # The screen shows the latest 12 bead-plate columns at most.
    assert html_big.count('class="bead ') <= 72
    # 100 rounds: 11 full columns and the 4 rounds of the latest one.
    assert html_small.count('class="bead ') == 11 * 6 + 4
    assert 'data-testid="pct-tie">T 33%' in html_big


def test_the_client_seed_can_be_changed_and_a_bad_one_is_refused(tab, player):
    response = htmx(tab, "baccarat_client_seed", {"client_seed": "my own seed"})
    assert "Client seed saved" in response.content.decode()
    assert Profile.objects.get(user=player).client_seed == "my own seed"
    response = htmx(tab, "baccarat_client_seed", {"client_seed": "x" * 65})
    assert "1 to 64 printable characters" in response.content.decode()
    assert Profile.objects.get(user=player).client_seed == "my own seed"


def test_settings_are_saved_per_player(tab, player):
    response = htmx(tab, "baccarat_settings", {"sound": "1", "effects": "1", "fast_play": "1"})
    html = response.content.decode()
    assert 'id="bac-prefs"' in html and 'data-music="0"' in html and 'data-fast-play="1"' in html
    profile = Profile.objects.get(user=player)
    assert (profile.sound, profile.effects, profile.music, profile.history_panel) == (
        True,
        True,
        False,
        False,
    )
    assert profile.fast_play
    # The history panel's close button changes only that setting.
    htmx(tab, "baccarat_settings", {"field": "history_panel", "value": "1"})
    htmx(tab, "baccarat_settings", {"field": "sound", "value": "0"})
    profile.refresh_from_db()
    assert (profile.history_panel, profile.sound, profile.fast_play) == (True, False, True)
    # The standalone page works without htmx.
    page = tab.get(reverse("baccarat_settings"))
    assert page.status_code == 200 and 'data-testid="settings-form"' in page.content.decode()


def page_version(html: str) -> str:
    return re.search(r'name="table_version" value="(\d+)"', html).group(1)


def test_a_bet_from_a_page_showing_an_older_paytable_is_refused_and_shows_the_new_one(tab, player):
    """The operator changes the paytable between the page's load and BET: the
    bet is not settled at payouts the player never saw. It is refused with a
    message, nothing is taken, and the answer shows the new payouts and the
    version the next BET sends; that BET is played at the new paytable."""
    shown = page_version(table_page(tab))
    table = Table.objects.get(slug=SLUG)
    table.pays = {**table.pays, "tie": "7"}
    table.save(update_fields=["pays"])
    version = snapshot_version(table=table)
    rows = LedgerEntry.objects.count()

    answer = bet(tab, {"tie": "10"}, table_version=shown).content.decode()
    assert "paytable or limits changed: check the new payouts and bet again" in answer
    assert 'id="bac-placed"' not in answer  # the slip stays to bet again
    assert 'id="bac-areas"' in answer and 'hx-swap-oob="true"' in answer
    assert re.search(r"TIE</span>\s*<span class=\"area-pay\">×7<", answer)
    assert page_version(answer) == str(version.number) != shown
    assert not Round.objects.filter(player=player).exists()
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(user=player).balance == 100_000

    assert (
        'id="bac-placed"'
        in bet(tab, {"tie": "10"}, table_version=page_version(answer)).content.decode()
    )
    assert Round.objects.get(player=player).version == version


def test_a_bet_that_names_no_version_is_refused_like_an_old_page(tab, player):
    """A BET from a page drawn before the version was sent (an old client)."""
    answer = htmx(tab, "baccarat_bet", {"slip_key": "old", "player": "10"}).content.decode()
    assert "paytable or limits changed" in answer
    assert page_version(answer) == shown_version(SLUG)
    assert not Round.objects.filter(player=player).exists()
