"""A script betting over HTTP as fast as it can (the cold attack of issue
44: 150 BETs in 2.2 s from one player) is held to the pace a table's socket
allows, one setting for both: past the burst, a 429 that says why and when
to try again, and nothing taken. (The socket's own budget:
tests/games/consumers/test_socket_bet.py and test_war_socket.py.)"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games.models import LedgerEntry, Round, Wallet
from tests.games.views.test_war_views import next_shoe
from tests.tables import shown_version

HTMX = {"HTTP_HX_REQUEST": "true"}
BACCARAT = "baccarat-classic"
WAR = "casino-war"


@pytest.fixture
def paced(settings):
    """Bursts of 12, as in production (there at 4 a second: a window of 3 s);
    refilled so slowly here that no counting window ends during a test."""
    settings.CASINO_TABLE_ACTIONS_PER_SECOND = 12 / 86_400
    settings.CASINO_TABLE_ACTION_BURST = 12
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def tab(make_player):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_player(chips=1_000))
    return client


def books(user) -> tuple[int, int, int]:
    return (
        Wallet.objects.get(user=user).balance,
        Round.objects.filter(player=user).count(),
        LedgerEntry.objects.filter(wallet__user=user).count(),
    )


def test_a_flood_of_http_bets_is_held_to_the_sockets_pace_and_takes_nothing(paced, tab):
    player = tab.session["_auth_user_id"]
    url = reverse("baccarat_bet", args=[BACCARAT])
    shown = shown_version(BACCARAT)
    answers = [
        tab.post(url, {"slip_key": f"k{i}", "player": "1", "table_version": shown}, **HTMX)
        for i in range(20)
    ]
    assert [a.status_code for a in answers] == [200] * 12 + [429] * 8
    assert all('id="bac-placed"' in a.content.decode() for a in answers[:12])
    refused = answers[12]
    assert "Too many actions at once" in refused.content.decode()
    assert 'data-testid="slip-error"' in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    balance, rounds, _ = books(Wallet.objects.get(user_id=player).user)
    assert rounds == 12
    assert balance == 100_000 + sum(
        r.total_return - r.total_bet for r in Round.objects.filter(player_id=player)
    )


def test_the_pace_is_per_player_and_counts_war_deals_and_decisions(paced, tab, make_player):
    user = Wallet.objects.get(user_id=tab.session["_auth_user_id"]).user
    bet = reverse("baccarat_bet", args=[BACCARAT])
    for i in range(12):
        tab.post(
            bet,
            {"slip_key": f"k{i}", "player": "1", "table_version": shown_version(BACCARAT)},
            **HTMX,
        )
    before = books(user)
    next_shoe(user, "tie")
    deal = tab.post(reverse("war_deal", args=[WAR]), {"ante": "10", "slip_key": "w"}, **HTMX)
    assert deal.status_code == 429
    assert "Too many actions at once" in deal.content.decode()
    decide = tab.post(
        reverse("war_decide", args=[WAR]), {"round_id": "1", "decision": "war"}, **HTMX
    )
    assert decide.status_code == 429
    # Without htmx: the refused page, with the way back to the table.
    page = tab.post(reverse("war_deal", args=[WAR]), {"ante": "10", "slip_key": "w"})
    assert page.status_code == 429 and "Too many actions at once" in page.content.decode()
    assert books(user) == before
    # Another player at the same tables is not held back.
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(make_player(chips=1_000))
    answer = other.post(
        bet, {"slip_key": "o", "player": "1", "table_version": shown_version(BACCARAT)}, **HTMX
    )
    assert 'id="bac-placed"' in answer.content.decode()
