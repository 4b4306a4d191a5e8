"""The War table's socket takes a player off the table when the tie decision's
time runs out, and leaves them alone when they decide in time."""

from __future__ import annotations

from functools import cache

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.consumers.war import TIMEOUT_CLOSE_CODE, UNAUTHENTICATED_CLOSE_CODE
from games.models import Profile, Round
from games.routing import websocket_urlpatterns
from games.services import war
from games.war.rules import first_cards_tied
from tests.seeds import find_seed

pytestmark = [
    pytest.mark.waits,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
]


@cache
def tie_seed() -> str:
    return find_seed("war-consumer", "consumer", 6, first_cards_tied)


@pytest.fixture
def tied(make_player, quick_war):
    """A player whose round at a table with a 1-second decision waits on a tie."""
    table = quick_war
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(
        next_server_seed=tie_seed(), client_seed="consumer", nonce=0
    )
    rnd = war.deal(user=user, table=table, ante=1_000, tie_bet=0, slip_key="tie")
    assert rnd.status == Round.Status.OPEN
    return user, table, rnd


def socket(user, slug: str) -> WebsocketCommunicator:
    router = URLRouter(websocket_urlpatterns)

    async def as_user(scope, receive, send):
        return await router({**scope, "user": user}, receive, send)

    return WebsocketCommunicator(as_user, f"/ws/war/{slug}/")


async def test_it_closes_the_socket_when_the_decision_time_runs_out(tied):
    user, table, rnd = tied
    communicator = socket(user, table.slug)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    out = await communicator.receive_output(timeout=8)
    assert out == {"type": "websocket.close", "code": TIMEOUT_CLOSE_CODE}
    saved = await database_sync_to_async(Round.objects.get)(pk=rnd.pk)
    assert saved.status == Round.Status.OPEN
    assert saved.cards == rnd.cards
    await communicator.wait()


async def test_a_decision_in_time_keeps_the_player_at_the_table(tied):
    user, table, rnd = tied
    communicator = socket(user, table.slug)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    await database_sync_to_async(war.decide)(user=user, round_id=rnd.pk, decision="surrender")
    # Past the deadline and its grace: the socket stays open.
    assert await communicator.receive_nothing(timeout=3.5)
    await communicator.disconnect()


async def test_a_socket_opened_after_the_deadline_closes_at_once(tied):
    user, table, rnd = tied
    await database_sync_to_async(Round.objects.filter(pk=rnd.pk).update)(
        decision_deadline=rnd.decision_deadline - war.DECISION_GRACE * 30
    )
    communicator = socket(user, table.slug)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    out = await communicator.receive_output(timeout=2)
    assert out["code"] == TIMEOUT_CLOSE_CODE


async def test_it_accepts_only_a_logged_in_player():
    communicator = socket(AnonymousUser(), "casino-war")
    connected, code = await communicator.connect(timeout=5)
    assert not connected
    assert code == UNAUTHENTICATED_CLOSE_CODE
