"""What the Baccarat reveal costs the server per round, and that the
fragments it keeps in memory (road cells, cards, the felt as a reveal
starts) never show one player's language to another.

The reveal runs at every round of every player: its reads are counted here
so that a field left out of ``REVEAL_FIELDS`` (read later, one query per
round) shows up as a failure rather than as load.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games.models import Table
from games.presenters.baccarat import reveal_steps
from games.presenters.common import forget_fragments
from games.selectors.reveal import revealed_round
from games.selectors.tables import table_version
from games.services import baccarat

pytestmark = pytest.mark.django_db

SLUG = "baccarat-classic"


def play_rounds(user, count: int) -> list[int]:
    table = Table.objects.get(slug=SLUG)
    slips = [
        {"player": 1_000},
        {"banker": 1_000, "banker_pair": 1_000},
        {"player_pair": 1_000},
        {"player": 1_000, "tie": 1_000},
    ]
    return [
        baccarat.place_bet(
            user=user, table=table, bets=slips[i % len(slips)], slip_key=f"slip-{i}"
        ).pk
        for i in range(count)
    ]


def test_it_reads_the_round_and_the_roads_and_nothing_else(make_player, django_assert_num_queries):
    user = make_player(chips=10_000)
    round_ids = play_rounds(user, 8)
    # A process reads a paytable version once (versions never change).
    table_version(Table.objects.get(slug=SLUG).current_version_id)
    for round_id in round_ids:
        # One read for the round (with its table's slug), one for the roads.
        with django_assert_num_queries(2), translation.override("en"):
            rnd = revealed_round(user, round_id)
            assert rnd is not None
            steps = reveal_steps(rnd, table=rnd.table, squeeze="player")
        assert [step.name for step in steps][0] == "deal"
        assert steps[-1].name == "result"


def test_it_reveals_no_round_of_another_player(make_player):
    user, other = make_player(chips=10_000), make_player(chips=10_000)
    [round_id] = play_rounds(user, 1)
    assert revealed_round(other, round_id) is None


def reveal_html(user, round_id: int, language: str) -> str:
    with translation.override(language):
        rnd = revealed_round(user, round_id)
        assert rnd is not None
        return "".join(step.html for step in reveal_steps(rnd, table=rnd.table))


def test_it_shows_each_player_the_reveal_in_their_own_language(make_player):
    forget_fragments()  # rendered afresh, then from memory
    english, japanese = make_player(chips=10_000), make_player(chips=10_000)
    english_rounds = play_rounds(english, 3)
    japanese_rounds = play_rounds(japanese, 3)

    first = reveal_html(english, english_rounds[-1], "en")
    seen_in_japanese = reveal_html(japanese, japanese_rounds[-1], "ja")
    again = reveal_html(english, english_rounds[-1], "en")

    assert again == first
    assert "Score history" in first and "PLAYER" in first
    assert "バカラの履歴" in seen_in_japanese and "プレイヤー" in seen_in_japanese
    assert "Score history" not in seen_in_japanese
