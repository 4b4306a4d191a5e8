"""Where the consumers' database and template work runs.

``channels.db.database_sync_to_async`` is thread-sensitive by default: every
call from every socket of a worker process queues on one shared thread, so
one slow reveal delays every other player's. The consumers hold no state
that needs a particular thread (each call reads the database afresh and
Django gives every thread its own connection), so they run on the event
loop's thread pool instead, several at a time. Connections are still closed
(or given back to the pool) around each call, as ``database_sync_to_async``
does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync

P = ParamSpec("P")
R = TypeVar("R")


def in_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` made awaitable, run on any thread of the loop's pool."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)
