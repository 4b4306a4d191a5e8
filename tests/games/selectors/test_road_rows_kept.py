"""The reveal's last step shows the roads through the round just played
without reading the player's latest rounds again when this process showed
the round before (games.selectors.roads.rounds_through), and the roads are
the same as a read would give: round after round, past the window's edge,
and after a round shown elsewhere (another tab, another process)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Table
from games.selectors.roads import recent_rounds, rounds_through
from games.services import baccarat

pytestmark = pytest.mark.django_db

SLUG = "baccarat-classic"
LIMIT = 12  # two bead-plate columns: the window moves on within the test
SLIPS = (
    {"player": 1_000},
    {"banker": 1_000, "banker_pair": 1_000},
    {"tie": 1_000},
    {"player_pair": 1_000},
)


def play(user, table, n: int):
    rnd = baccarat.place_bet(user=user, table=table, bets=SLIPS[n % len(SLIPS)], slip_key=f"k{n}")
    rnd.player = user  # as the socket holds it
    return rnd


def reads(call) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, sum(1 for q in captured if "ORDER BY seq DESC" in q["sql"])


def test_each_result_after_the_first_reads_nothing_and_shows_the_stored_rounds(make_player):
    user = make_player(chips=10_000)
    table = Table.objects.get(slug=SLUG)
    read_counts = []
    for n in range(30):
        rnd = play(user, table, n)
        window, count = reads(lambda rnd=rnd: rounds_through(rnd, limit=LIMIT))
        read_counts.append(count)
        assert window == recent_rounds(user=user, table=table, limit=LIMIT), n
        assert window[-1].seq == rnd.seq
    assert read_counts == [1] + [0] * 29


def test_a_round_shown_elsewhere_breaks_the_chain_and_the_rounds_are_read(make_player):
    user = make_player(chips=10_000)
    table = Table.objects.get(slug=SLUG)
    rounds_through(play(user, table, 0), limit=LIMIT)
    play(user, table, 1)  # shown by another process: this one never saw it
    rnd = play(user, table, 2)
    window, count = reads(lambda: rounds_through(rnd, limit=LIMIT))
    assert count == 1
    assert [r.seq for r in window] == [1, 2, 3]


def test_each_player_and_table_keeps_its_own_rows(make_player):
    first, second = make_player(chips=10_000), make_player(chips=10_000)
    table = Table.objects.get(slug=SLUG)
    for n in range(3):
        rounds_through(play(first, table, n), limit=LIMIT)
    rnd = play(second, table, 3)
    window = rounds_through(rnd, limit=LIMIT)
    assert [r.seq for r in window] == [1]
    assert window == recent_rounds(user=second, table=table, limit=LIMIT)
