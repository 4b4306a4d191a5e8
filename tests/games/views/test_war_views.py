"""The War table's pages: what a player sees and sends."""

from __future__ import annotations

import datetime as dt
from functools import cache

import pytest
from django.urls import reverse

from games.cards import server_seed_hash
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services import war
from games.money import decimal_pays
from games.war.odds import exact_edge
from tests.seeds import find_seed, war_cases

CLIENT_SEED = "war-views"
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@cache
def seed_for(case: str) -> str:
    return find_seed("war-views", CLIENT_SEED, 6, lambda shoe: case in war_cases(shoe))


def next_shoe(user, case: str) -> None:
    Profile.objects.filter(user=user).update(
        next_server_seed=seed_for(case), client_seed=CLIENT_SEED, nonce=0
    )


@pytest.fixture
def table(db) -> Table:
    return Table.objects.get(slug="casino-war")


@pytest.fixture
def player(client, make_player):
    user = make_player(chips=1_000)
    client.force_login(user)
    return user


def url(name: str, table: Table) -> str:
    return reverse(name, args=[table.slug])


def test_it_shows_the_table_with_its_chips_limits_keys_and_rules_link(client, player, table):
    body = client.get(table.get_absolute_url(), **EN).content.decode()
    for chip in (1, 5, 25, 100, 500):
        assert f'data-chip="{chip}"' in body
    assert "TIE BONUS" in body and "DEAL" in body
    assert url("war_rules", table) in body
    for key in ("PgDn", "Del", "Enter"):
        assert f"<kbd>{key}</kbd>" in body
    assert "ws/war/casino-war/" in body
    assert 'data-testid="round-max">5,500<' in body


def test_it_speaks_japanese(client, player, table):
    body = client.get(table.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="ja">' in body


def test_deal_shows_the_cards_the_result_and_the_new_balance(client, player, table):
    next_shoe(player, "win")
    response = client.post(
        url("war_deal", table), {"ante": "10", "tie_bet": "0", "slip_key": "a"}, **HTMX
    )
    body = response.content.decode()
    rnd = Round.objects.get(player=player)
    assert f'data-card="{rnd.cards[0]}"' in body and f'data-card="{rnd.cards[1]}"' in body
    assert 'data-result="win"' in body
    assert 'data-testid="war-payout">20<' in body
    assert 'id="header-balance"' in body and 'hx-swap-oob="true"' in body
    assert 'data-testid="header-balance">1,010<' in body
    # The hash committed for the next round, not the one this round used.
    seed = Profile.objects.get(user=player).next_server_seed
    assert f'data-testid="next-seed-hash">{server_seed_hash(bytes.fromhex(seed))}<' in body
    assert rnd.server_seed_hash not in body


def test_a_refused_deal_says_why_and_changes_nothing(client, player, table):
    before = Wallet.objects.get(user=player).balance
    response = client.post(
        url("war_deal", table), {"ante": "6000", "tie_bet": "0", "slip_key": "b"}, **HTMX
    )
    assert response["HX-Retarget"] == "#war-message"
    assert "The most you can bet on ANTE is 5,000." in response.content.decode()
    assert Wallet.objects.get(user=player).balance == before
    assert not Round.objects.filter(player=player).exists()


def test_an_ante_under_the_minimum_is_raised_with_a_note(client, player, table):
    next_shoe(player, "lose")
    body = client.post(
        url("war_deal", table), {"ante": "1", "slip_key": "c"}, **HTMX
    ).content.decode()
    assert "was under the table minimum and was raised to 5" in body
    assert 'data-ante="5"' in body


def test_a_tie_shows_the_decision_and_keeps_the_server_seed_hidden(client, player, table):
    next_shoe(player, "war_win")
    body = client.post(
        url("war_deal", table), {"ante": "10", "tie_bet": "1", "slip_key": "d"}, **HTMX
    ).content.decode()
    rnd = Round.objects.get(player=player)
    assert 'data-testid="decision-panel"' in body
    assert 'data-testid="btn-war"' in body and "disabled" not in body.split("btn-war")[1][:40]
    assert "Your TIE BONUS pays 11." in body
    assert rnd.server_seed not in body
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert rnd.server_seed not in page

    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **HTMX
    ).content.decode()
    rnd.refresh_from_db()
    assert 'data-result="war_win"' in body
    assert body.count('data-testid="burn-card"') == 3
    assert f'data-testid="war-player-card" data-card="{rnd.cards[5]}"' in body
    assert f'data-testid="war-dealer-card" data-card="{rnd.cards[6]}"' in body
    assert rnd.server_seed in body  # revealed once the round is over


def test_war_is_disabled_when_the_raise_is_short(client, make_player, table):
    user = make_player(chips=10)
    client.force_login(user)
    next_shoe(user, "tie")
    body = client.post(
        url("war_deal", table), {"ante": "10", "slip_key": "e"}, **HTMX
    ).content.decode()
    assert "Only SURRENDER remains" in body
    assert 'data-testid="btn-war" disabled' in body
    rnd = Round.objects.get(player=user)
    response = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **HTMX
    )
    assert "You can still surrender" in response.content.decode()
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN


def test_a_new_deal_is_refused_while_the_decision_waits(client, player, table):
    next_shoe(player, "tie")
    client.post(url("war_deal", table), {"ante": "10", "slip_key": "f"}, **HTMX)
    response = client.post(url("war_deal", table), {"ante": "10", "slip_key": "g"}, **HTMX)
    assert "Finish your war decision first" in response.content.decode()
    assert Round.objects.filter(player=player).count() == 1


def test_when_time_runs_out_the_player_lands_in_the_lobby_and_comes_back_to_the_same_cards(
    client, player, table
):
    next_shoe(player, "tie")
    client.post(url("war_deal", table), {"ante": "10", "slip_key": "h"}, **HTMX)
    rnd = Round.objects.get(player=player)
    Round.objects.filter(pk=rnd.pk).update(
        decision_deadline=rnd.decision_deadline - dt.timedelta(minutes=5)
    )
    # A late decision is refused and the page is sent off the table.
    response = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "surrender"}, **HTMX
    )
    assert response["HX-Redirect"].endswith(url("war_timed_out", table))
    response = client.get(url("war_timed_out", table), **EN)
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    lobby = client.get(reverse("lobby"), **EN).content.decode()
    assert "Time ran out for your war decision" in lobby

    # Coming back: the same cards and a fresh countdown.
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="decision-panel"' in page
    assert f'data-testid="player-card" data-card="{rnd.cards[0]}"' in page
    assert 'data-seconds-left="30"' in page
    resumed = Round.objects.get(pk=rnd.pk)
    assert war.timed_out(resumed) is False
    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "surrender"}, **HTMX
    ).content.decode()
    assert 'data-result="surrender"' in body
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.SETTLED


def test_a_double_deal_is_charged_once(client, player, table):
    next_shoe(player, "lose")
    for _ in range(2):
        client.post(url("war_deal", table), {"ante": "10", "slip_key": "same"}, **HTMX)
    assert Round.objects.filter(player=player).count() == 1
    assert LedgerEntry.objects.filter(wallet__user=player, kind="bet").count() == 1


def test_the_rules_page_shows_the_paytable_and_the_exact_edges(client, player, table):
    body = client.get(url("war_rules", table), **EN).content.decode()
    edges = exact_edge(6, decimal_pays(table.current_version.pays))
    for fraction in edges.values():
        assert f"{fraction.numerator}/{fraction.denominator}" in body
        assert f"{float(fraction) * 100:.4f}%" in body
    assert "2.8771%" in body  # going to war, 6 decks: the textbook 2.88%
    assert "10 to 1" in body
    assert table.get_absolute_url() in body


def test_the_table_needs_a_login(client, table):
    response = client.get(table.get_absolute_url())
    assert response.status_code == 302


def test_without_javascript_a_deal_reloads_the_table_with_its_result(client, player, table):
    next_shoe(player, "lose")
    response = client.post(url("war_deal", table), {"ante": "10", "slip_key": "plain"}, **EN)
    rnd = Round.objects.get(player=player)
    assert response.status_code == 302
    assert response["Location"] == f"{table.get_absolute_url()}?round={rnd.pk}"
    body = client.get(response["Location"], **EN).content.decode()
    assert 'data-result="lose"' in body
    refused = client.post(url("war_deal", table), {"ante": "9999", "slip_key": "x"}, **EN)
    assert refused.status_code == 302
    page = client.get(refused["Location"], **EN).content.decode()
    assert "The most you can bet on ANTE is 5,000." in page
