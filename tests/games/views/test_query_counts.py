"""How many queries a player's table pages and rounds cost: one round is one
request, and these bounds only ever go down (a regression here is a
slower table for every player)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Profile
from games.services import play_safe
from tests.seeds import find_seed, war_cases

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def tab(client, make_player):
    client.force_login(make_player(chips=1_000))
    return client


def queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code == 200
    return len(captured)


def test_a_baccarat_round_costs_one_page_and_one_bet(tab):
    page = reverse("baccarat_table", args=["baccarat-classic"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    tab.get(page)  # the first visit may write the session
    # 7: the header's session net result (play safe) is the profile's kept net.
    assert queries(lambda: tab.get(page)) <= 7
    # 12: the round's day row (services.rollups) is a statement of its own
    # here; on PostgreSQL it is part of the round's one statement.
    assert queries(lambda: tab.post(bet, {"slip_key": "k", "player": "10"}, **HTMX)) <= 12


def test_a_war_round_costs_one_page_and_one_deal(tab):
    # A deal that does not tie (a tie also reads the last settled round for REPEAT).
    seed = find_seed("query-count-war", "qc", 6, lambda shoe: "tie" not in war_cases(shoe))
    Profile.objects.update(next_server_seed=seed, client_seed="qc", nonce=0)
    page = reverse("war_table", args=["casino-war"])
    deal = reverse("war_deal", args=["casino-war"])
    tab.get(page)
    assert queries(lambda: tab.get(page)) <= 6  # the header's session net: one read
    assert queries(lambda: tab.post(deal, {"ante": "5", "slip_key": "k"}, **HTMX)) <= 12


def test_loss_limits_cost_two_queries_per_check_whatever_the_periods(tab):
    """A player with a daily, weekly and monthly loss limit: the limits in
    force and the three periods' losses, one query each, at each check
    (BET checks once in the round and once for the answer's slip)."""
    player = User.objects.get(pk=tab.session["_auth_user_id"])
    for period in ("day", "week", "month"):
        play_safe.set_loss_limit(user=player, period=period, amount=90_000)
    page = reverse("baccarat_table", args=["baccarat-classic"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    tab.get(page)
    assert queries(lambda: tab.get(page)) <= 9
    assert queries(lambda: tab.post(bet, {"slip_key": "k", "player": "10"}, **HTMX)) <= 16
