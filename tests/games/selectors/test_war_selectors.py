"""The reads behind the Casino War table: whose waiting round a table and
its socket see."""

from __future__ import annotations

from games.models import Table
from games.selectors import war as war_selectors
from games.services import war
from tests.games.services.test_war_service import next_shoe


def test_it_shows_a_waiting_round_to_its_own_player_at_its_own_table_only(make_player, quick_war):
    alice, bob = make_player("alice", chips=1_000), make_player("bob", chips=1_000)
    table = Table.objects.get(slug="casino-war")
    next_shoe(alice, "tie")
    rnd = war.deal(user=alice, table=table, ante=1_000, tie_bet=0, slip_key="tie")
    assert rnd.status == "open"

    assert war_selectors.open_round(user=alice, table=table) == rnd
    assert war_selectors.has_open_round(user=alice, table=table)
    deadline = war_selectors.decision_deadline(user_id=alice.pk, table_slug=table.slug)
    assert deadline == rnd.decision_deadline
    # Bob's socket at the same table, and Alice's at another, watch no countdown.
    assert war_selectors.open_round(user=bob, table=table) is None
    assert not war_selectors.has_open_round(user=bob, table=table)
    assert war_selectors.decision_deadline(user_id=bob.pk, table_slug=table.slug) is None
    assert war_selectors.decision_deadline(user_id=alice.pk, table_slug=quick_war.slug) is None

    war.decide(user=alice, round_id=rnd.pk, decision="surrender")
    assert war_selectors.open_round(user=alice, table=table) is None
    assert not war_selectors.has_open_round(user=alice, table=table)
    assert war_selectors.decision_deadline(user_id=alice.pk, table_slug=table.slug) is None
