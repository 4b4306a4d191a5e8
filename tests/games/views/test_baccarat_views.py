"""The Baccarat table's pages as a player uses them: the slip kept in the
session, BET through the view, inline refusals, the rules page's RTP, the
roads details, the client seed and the settings."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services.faults import inject_fault
from games.services.wallet import Posting, post

SLUG = "baccarat-classic"  # chips 1 5 10 50 100; MIN 10; TIE MAX 2,000; MAX BET 25,000


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


def add(client, area: str, chip: int = 10):
    return htmx(client, "baccarat_slip", {"action": "add", "area": area, "chip": chip})


def amount(html: str, area: str) -> str:
    return re.search(rf'data-testid="amount-{area}">([^<]*)<', html).group(1)


def slip_key(html: str) -> str:
    return re.search(r'name="slip_key" value="([^"]+)"', html).group(1)


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
    assert "MIN 10 · MAX 20,000" in html  # PLAYER
    assert "MIN 10 · MAX 2,000" in html  # TIE
    assert 'data-testid="table-balance">1,000<' in html
    assert 'ws-connect="/ws/baccarat/baccarat-classic/"' in html
    seed = Profile.objects.get(user=player).next_server_seed
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in html
    # The paytable behind the MIN/MAX sign.
    assert re.search(r"TIE</span><span>×9<", html)


def test_a_closed_table_sends_the_player_back_to_the_lobby(tab):
    Table.objects.filter(slug=SLUG).update(enabled=False)
    response = tab.get(reverse("baccarat_table", args=[SLUG]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("lobby")
    assert "This table is closed" in response.content.decode()


def test_chips_go_down_and_the_slip_survives_a_reload(tab):
    add(tab, "player", 10)
    response = add(tab, "player", 50)
    assert amount(response.content.decode(), "player") == "60"
    assert 'data-total="6000"' in response.content.decode()
    htmx(tab, "baccarat_slip", {"action": "mult"})  # x10
    response = add(tab, "tie", 5)
    assert amount(response.content.decode(), "tie") == "50"
    html = table_page(tab)
    assert amount(html, "player") == "60"
    assert amount(html, "tie") == "50"
    assert 'data-testid="multiplier"' in html and "×10" in html
    assert re.search(r'value="5" checked', html)  # the chip stays selected


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (("player", 10), ("banker", 10), "PLAYER and BANKER cannot both be bet"),
        (("tie", 100), ("tie", 2_000), "maximum bet on TIE is 2,000"),
        (("player", 100), ("player", 1_000), "needs 1,100 and your balance is 1,000"),
    ],
)
def test_a_chip_past_a_rule_is_refused_inline_and_changes_nothing(
    tab, player, first, second, message
):
    add(tab, first[0], first[1] if first[1] <= 100 else 100)
    if second[1] > 100:
        htmx(tab, "baccarat_slip", {"action": "mult"})
        htmx(tab, "baccarat_slip", {"action": "mult"})  # x100
        response = add(tab, second[0], second[1] // 100)
    else:
        response = add(tab, second[0], second[1])
    html = response.content.decode()
    assert 'data-testid="slip-error"' in html and message in html
    page = table_page(tab)
    assert amount(page, first[0]) == f"{min(first[1], 100):,}"
    assert Wallet.objects.get(user=player).balance == 100_000


def test_all_clear_empties_the_slip(tab):
    add(tab, "player")
    response = htmx(tab, "baccarat_slip", {"action": "clear"})
    assert amount(response.content.decode(), "player") == ""
    assert amount(table_page(tab), "player") == ""


def test_bet_plays_a_round_and_starts_a_fresh_slip(tab, player):
    add(tab, "banker", 50)
    key = slip_key(table_page(tab))
    response = htmx(tab, "baccarat_bet", {"slip_key": key})
    assert response.status_code == 200
    rnd = Round.objects.get(player=player)
    assert rnd.bets == {"banker": 5_000}
    html = response.content.decode()
    assert slip_key(html) != key  # a new idempotency key for the next slip
    assert amount(html, "banker") == ""
    assert 'id="bac-fairness"' in html  # the next round's seed hash
    seed = Profile.objects.get(user=player).next_server_seed
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in html
    # A double click (same key) charges once.
    htmx(tab, "baccarat_bet", {"slip_key": key})
    assert Round.objects.filter(player=player).count() == 1
    assert LedgerEntry.objects.filter(wallet__user=player, kind="bet").count() == 1
    # The page after a reload shows the finished round.
    page = table_page(tab)
    for code in rnd.cards:
        assert f'data-card="{code}"' in page
    assert f'data-winner="{rnd.winner}"' in page
    assert f'data-testid="table-balance">{rnd.balance_after // 100:,}' in page


def test_a_refused_bet_shows_why_and_takes_nothing(tab, player):
    add(tab, "tie", 5)  # under the TIE minimum of 10
    key = slip_key(table_page(tab))
    response = htmx(tab, "baccarat_bet", {"slip_key": key})
    html = response.content.decode()
    assert "minimum bet on TIE is 10" in html
    assert amount(html, "tie") == "5"  # the slip is kept to be fixed
    assert not Round.objects.filter(player=player).exists()
    assert Wallet.objects.get(user=player).balance == 100_000


def test_a_failure_while_dealing_is_explained_and_nothing_is_taken(tab, player):
    add(tab, "player", 100)
    key = slip_key(table_page(tab))
    ledger = LedgerEntry.objects.count()
    with inject_fault("baccarat.after_debit"):
        response = htmx(tab, "baccarat_bet", {"slip_key": key})
    html = response.content.decode()
    assert "Something went wrong while dealing" in html and "nothing was taken" in html
    assert Wallet.objects.get(user=player).balance == 100_000
    assert LedgerEntry.objects.count() == ledger
    assert not Round.objects.filter(player=player).exists()
    # The slip is still there: BET again works.
    htmx(tab, "baccarat_bet", {"slip_key": key})
    assert Round.objects.filter(player=player).count() == 1


def test_rebet_repeats_the_last_round_and_x2_is_capped_with_a_note(tab, player):
    response = htmx(tab, "baccarat_slip", {"action": "rebet"})
    assert "no previous bet" in response.content.decode()
    add(tab, "player", 100)
    add(tab, "tie", 100)
    htmx(tab, "baccarat_bet", {"slip_key": slip_key(table_page(tab))})
    html = htmx(tab, "baccarat_slip", {"action": "rebet"}).content.decode()
    assert (amount(html, "player"), amount(html, "tie")) == ("100", "100")
    assert 'data-testid="slip-note"' not in html
    # REBET x2 wants 400 chips; with 300 left it is lowered, and says so.
    wallet = Wallet.objects.get(user=player)
    with transaction.atomic():
        post(wallet_id=wallet.pk, postings=[Posting("adjustment", 30_000 - wallet.balance, "test")])
    html = htmx(tab, "baccarat_slip", {"action": "rebet2"}).content.decode()
    assert (amount(html, "player"), amount(html, "tie")) == ("200", "100")
    assert "lowered to fit" in html


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
    table = Table.objects.get(slug=table_slug)
    names = {"P": "player", "B": "banker", "T": "tie"}
    start = (Round.objects.filter(player=player, table=table).count()) + 1
    Round.objects.bulk_create(
        Round(
            player=player,
            table=table,
            version_id=table.current_version_id,
            game="baccarat",
            seq=start + i,
            slip_key=f"bulk-{start + i}",
            server_seed="00",
            server_seed_hash="00",
            client_seed="c",
            nonce=start + i,
            balance_before=0,
            balance_after=0,
            winner=names[w],
            cards=["5H", "3S", "KD", "QC"],
            detail={
                "player_total": 5,
                "banker_total": 3,
                "player": ["5H", "KD"],
                "banker": ["3S", "QC"],
            },
            settled_at=timezone.now(),
        )
        for i, w in enumerate(winners)
    )


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
