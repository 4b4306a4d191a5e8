"""Who has sockets open where. A worker's table sockets closing all at once (a restart, the end of a
busy evening) each count themselves out: none is left counted, so no
player's rounds are pushed through the channel layer for a tab that is gone.

On Redis (the engine stage) the counts go through the event loop's own
client, whose pool is smaller here than the sockets closing."""

from __future__ import annotations

import asyncio

import pytest
from django.core.cache import cache

from games.selectors.live import present
from games.services import reveal_marks

pytestmark = [pytest.mark.engines, pytest.mark.asyncio]


@pytest.fixture
def small_pool(settings):
    settings.CASINO_SOCKET_REDIS_CONNECTIONS = 2
    reveal_marks._redis_clients.clear()  # a client with the small pool
    yield
    reveal_marks._redis_clients.clear()


async def test_sockets_closing_at_once_all_count_themselves_out(small_pool, caplog):
    players = range(900_001, 900_151)  # more than redis-py's default pool (100)
    await asyncio.gather(*(reveal_marks.socket_opened(p, "baccarat-classic") for p in players))
    await asyncio.gather(*(reveal_marks.socket_opened(p, "baccarat-classic") for p in players))
    await asyncio.gather(*(reveal_marks.socket_closed(p, "baccarat-classic") for p in players))
    await asyncio.gather(*(reveal_marks.socket_closed(p, "baccarat-classic") for p in players))
    counts = [cache.get(reveal_marks.sockets_key(p, "baccarat-classic")) for p in players]
    assert counts == [0] * len(players)
    assert not [r for r in caplog.records if "could not count" in r.getMessage()]
    assert not reveal_marks.others_open(players[0], "baccarat-classic")
    for p in players:
        cache.delete(reveal_marks.sockets_key(p, "baccarat-classic"))


async def test_a_player_is_at_a_live_table_while_a_tab_of_theirs_is_open_there(monkeypatch):
    """Watchers are at the table as much as bettors: a player's first tab
    there marks them, a second tab does not count them twice, and closing
    the last takes them off; a mark its process never took away (the
    process died) lapses by itself."""
    table, ann, bob = "baccarat-live-counts", 900_201, 900_202
    await reveal_marks.arrived(table, ann)
    await reveal_marks.arrived(table, ann)
    await reveal_marks.arrived(table, bob)
    assert present(table) == {ann, bob}
    await reveal_marks.left(table, ann)
    assert present(table) == {ann, bob}  # her other tab is still open
    await reveal_marks.left(table, ann)
    assert present(table) == {bob}

    monkeypatch.setattr(reveal_marks, "PRESENT_SECONDS", 0.2)
    await reveal_marks.mark_present(table, bob)  # renewed by a process that then dies
    assert present(table) == {bob}
    await asyncio.sleep(0.3)
    assert present(table) == set()
    await reveal_marks.left(table, bob)
