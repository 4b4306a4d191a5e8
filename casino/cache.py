"""Django's Redis cache with one client per connection pool.

``django.core.cache.backends.redis.RedisCacheClient`` builds a new
``redis.Redis`` around its pool for every command. redis-py's client
sets up its table of reply callbacks in its constructor, which cost about
120 µs of CPU each time here, more than the GET it was built for (about
90 µs). A table socket reads the cache several times a round (its
session, the player's open sockets, the throttles on HTTP), so the client
is built once per pool and kept: a ``redis.Redis`` is safe to share between
threads (each command takes a connection from the pool), and the pool
itself starts afresh in a forked process.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own private helpers (django-stubs leaves them out).
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
