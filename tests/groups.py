"""What a Channels group hears while a call runs: the tests of the pushes a
service sends once its transaction commits (games/services/push.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer

T = TypeVar("T")


def heard(group: str, act: Callable[[], T], *, timeout: float = 10) -> tuple[T, dict[str, Any]]:
    """``act()`` run while a channel listens to ``group``: what it returned,
    and the first event the group heard (at most ``timeout`` seconds).

    The listening and the call share one event loop: the Redis layer's
    channels belong to the loop that made them, and each ``async_to_sync``
    makes a loop of its own. ``act`` runs on the test's thread
    (``sync_to_async`` is thread-sensitive), so it sees the test's database
    and its on-commit capture."""

    async def listen() -> tuple[T, dict[str, Any]]:
        layer = get_channel_layer()
        assert layer is not None
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        try:
            result = await sync_to_async(act)()
            event = await asyncio.wait_for(layer.receive(channel), timeout)
        finally:
            await layer.group_discard(group, channel)
        return result, event

    return async_to_sync(listen)()
