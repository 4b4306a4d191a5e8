"""The lobby's glance at each Baccarat table: the player's own latest
results there as a small big road, with PLAYER, BANKER and TIE counts."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Table
from games.selectors.lobby import LOBBY_ROUNDS, lobby_road
from tests.games.views.test_history_views import baccarat_round, war_round

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def alice(make_player):
    return make_player("alice")


def play(player, winners: str) -> None:
    names = {"P": "player", "B": "banker", "T": "tie"}
    for i, w in enumerate(winners):
        baccarat_round(player, winner=names[w], seed=f"lobby-{i}")


def road_of(body: str, slug: str) -> str:
    match = re.search(rf'data-testid="lobby-road-{slug}".*?</figure>', body, re.S)
    assert match, f"no road for {slug}"
    return match.group(0)


def test_it_draws_the_big_road_of_the_players_last_results_with_counts(client, alice):
    play(alice, "PPBTBP")
    client.force_login(alice)
    body = client.get(reverse("lobby"), **EN).content.decode()
    road = road_of(body, "baccarat-classic")
    # P P down the first column, B B (a tie on the first B) in the second, P in the third.
    dots = re.findall(
        r'class="dot (\w+)" style="grid-area: (\d+) / (\d+)">(<i class="slash">)?', road
    )
    assert dots == [
        ("player", "1", "1", ""),
        ("player", "2", "1", ""),
        ("banker", "1", "2", '<i class="slash">'),
        ("banker", "2", "2", ""),
        ("player", "1", "3", ""),
    ]
    assert re.search(r'data-testid="count-player"><b>P</b> 3<', road)
    assert re.search(r'data-testid="count-banker"><b>B</b> 2<', road)
    assert re.search(r'data-testid="count-tie"><b>T</b> 1<', road)
    assert "Big road of your last 6 rounds here: PLAYER 3, BANKER 2, TIE 1" in road


def test_a_table_not_played_and_the_war_table_show_no_road(client, alice):
    play(alice, "P")
    war_round(alice)
    client.force_login(alice)
    body = client.get(reverse("lobby"), **EN).content.decode()
    assert 'data-testid="lobby-road-baccarat-classic"' in body
    assert 'data-testid="lobby-road-baccarat-social"' not in body
    assert 'data-testid="lobby-road-casino-war"' not in body


def test_a_player_sees_only_their_own_results(client, alice, make_player):
    play(alice, "BBB")
    bob = make_player("bob")
    client.force_login(bob)
    body = client.get(reverse("lobby"), **EN).content.decode()
    assert "lobby-road-" not in body


def test_it_reads_a_bounded_window_of_the_latest_rounds(alice):
    play(alice, "PB" * 30)
    road = lobby_road(user=alice, table=Table.objects.get(slug="baccarat-classic"))
    assert road.rounds == LOBBY_ROUNDS
    assert (road.player, road.banker, road.tie) == (LOBBY_ROUNDS // 2, LOBBY_ROUNDS // 2, 0)
    # Alternating wins: one cell a column; only the latest columns are kept.
    assert [c.col for c in road.cells] == list(range(road.cols))
    assert road.cells[-1].winner == "banker"
