"""A time-out or self-exclusion closes every table socket of the account at
once, in every browser, on both games; a socket opened afterwards with the
old cookie is refused."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.services import play_safe
from tests.security.test_socket_session import CLOSED, SOCKETS, browser, tab

pytestmark = [pytest.mark.engines, pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("length", ["24h", "5y"])
async def test_a_break_closes_every_socket_of_the_account(make_player, length):
    player = await database_sync_to_async(make_player)(chips=100)
    here = await database_sync_to_async(browser)(player)
    elsewhere = await database_sync_to_async(browser)(player)
    sockets = []
    for client, path in ((here, SOCKETS[0]), (elsewhere, SOCKETS[1])):
        communicator = tab(client, path)
        connected, _ = await communicator.connect(timeout=3)
        assert connected
        sockets.append(communicator)

    await database_sync_to_async(play_safe.take_break)(user=player, length=length)

    for communicator in sockets:
        assert await communicator.receive_output(timeout=3) == CLOSED
    again = tab(here, SOCKETS[0])
    connected, _ = await again.connect(timeout=3)
    assert not connected
