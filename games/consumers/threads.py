"""Where the consumers' database and template work runs.

``channels.db.database_sync_to_async`` is thread-sensitive by default: its
calls queue on the one thread a process keeps for such work, shared with
whatever else uses it. The consumers hold no state that needs a particular
thread (each call reads the database afresh and Django gives every thread
its own connection), so they run on a pool of their own instead, sized by
``CASINO_SOCKET_THREADS`` (one thread by default: with the GIL, more threads
mostly wait for each other). Connections are still closed (or given back to
the pool) around each call, as ``database_sync_to_async`` does.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings

P = ParamSpec("P")
R = TypeVar("R")


# Threads per process for the sockets' work (CASINO_SOCKET_THREADS): few, so
# that they and the HTTP workers (casino/handler.py) leave the event loop its
# share of the GIL.
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(
            max_workers=settings.CASINO_SOCKET_THREADS, thread_name_prefix="socket"
        )
    return _pool


def in_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` made awaitable, run on any thread of the sockets' pool."""

    @functools.wraps(func)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        call = DatabaseSyncToAsync(func, thread_sensitive=False, executor=_executor())
        return await call(*args, **kwargs)

    return run
