"""What the table sockets count for /metrics: the sockets open now, and
BET-to-result when a reveal starts (docs/monitoring.md)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from prometheus_client import REGISTRY

from games.models import Table
from games.services import baccarat
from tests.games.consumers.conftest import baccarat_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_it_counts_open_sockets_and_the_reveals_start(make_player):
    player = await database_sync_to_async(make_player)(chips=1_000)
    open_before = sample("casino_open_sockets", game="baccarat")
    results_before = sample("casino_bet_to_result_seconds_count", game="baccarat")

    first, second = await baccarat_socket(player), await baccarat_socket(player)
    assert (await first.connect(timeout=5))[0]
    assert (await second.connect(timeout=5))[0]
    assert sample("casino_open_sockets", game="baccarat") == open_before + 2

    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-classic")
    await database_sync_to_async(baccarat.place_bet)(
        user=player, table=table, bets={"banker": 1_000}, slip_key="metrics"
    )
    await first.receive_from(timeout=5)  # the reveal's first fragment, on each tab
    await second.receive_from(timeout=5)
    assert sample("casino_bet_to_result_seconds_count", game="baccarat") == results_before + 2

    await first.disconnect()
    assert sample("casino_open_sockets", game="baccarat") == open_before + 1
    await second.disconnect()
    assert sample("casino_open_sockets", game="baccarat") == open_before


async def test_an_anonymous_socket_that_is_closed_at_once_is_not_counted():
    before = sample("casino_open_sockets", game="baccarat")
    anonymous = await baccarat_socket()
    connected, _ = await anonymous.connect(timeout=5)
    assert not connected
    assert sample("casino_open_sockets", game="baccarat") == before
