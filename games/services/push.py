"""Realtime events to a player's open tables, sent after the commit.

Every push goes through ``push``: it waits for the surrounding transaction
to commit (a rolled-back round never reaches a browser; outside a
transaction it sends at once), and a channel layer that is down costs only
the live update, never the player's answer: the page shows the stored state
anyway on its next load (and a Baccarat socket that reconnects is sent the
result it missed, games/consumers/baccarat.py).

A sync worker (gunicorn) sends through one event loop kept on a thread of
its own for the life of the process, so the Redis channel layer keeps its
connections: ``async_to_sync`` would start a new loop, and with it a new
Redis connection, for every push (a profile of a round showed that at about
a sixth of an HTTP worker's CPU). Code already running under an event loop
(daphne's handlers, tests with the in-memory layer, whose queues belong to
that loop) still sends through ``async_to_sync``. A send that fails (Redis
restarted under the pooled connection) is tried once more.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

SEND_TIMEOUT = 5.0  # seconds a push may take before the answer goes on without it


def baccarat_group(user_id: int) -> str:
    """The Channels group of one player's Baccarat sockets (every tab, every table)."""
    return f"baccarat-{user_id}"


def war_group(user_id: int) -> str:
    """The Channels group of one player's War sockets."""
    return f"war-{user_id}"


def push(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the current transaction commits."""
    transaction.on_commit(partial(send_now, group, event))


class _LoopThread:
    """One event loop on a daemon thread, started on first use in each
    process (a fork does not inherit the thread, so the pid is checked)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pid = 0

    def get(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="push", daemon=True).start()
                self.loop, self.pid = loop, os.getpid()
            return self.loop


_loop = _LoopThread()


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _uses_redis(layer: Any) -> bool:
    return type(layer).__module__.startswith("channels_redis")


def _send(layer: Any, group: str, event: dict[str, Any]) -> None:
    if _uses_redis(layer) and not _in_event_loop() and not _under_async_to_sync():
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, event), _loop.get())
        future.result(SEND_TIMEOUT)
    else:
        async_to_sync(layer.group_send)(group, event)


def _under_async_to_sync() -> bool:
    """Whether this thread runs sync code called from an event loop
    (``sync_to_async``, daphne's handler threads): asgiref then sends on that
    loop, as before."""
    from asgiref.sync import SyncToAsync  # noqa: PLC0415

    return bool(getattr(SyncToAsync.threadlocal, "main_event_loop", None))


def send_now(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for attempt in (1, 2):
        try:
            _send(layer, group, event)
            return
        except TimeoutError:  # it may still arrive: not sent twice
            logger.warning("push of %s to %s timed out", event.get("type"), group)
            return
        except Exception:  # the layer is down: the stored state is shown on the next load
            if attempt == 2:
                logger.exception("could not push %s to %s", event.get("type"), group)
