"""What the table sockets note in the cache: the reveals they showed, how
many Baccarat sockets a player holds open at a table, and who is at a live
table.

Marks (games/selectors/reveal.py reads them): the last step of a round's
reveal a socket sent, and that its result was shown; a reloaded page goes
on from there. Kept ``CASINO_REVEAL_RESUME_SECONDS``.

Open sockets: a socket that places a round reveals it itself, so the
round's push (a hop through the channel layer) is only needed when the
same player has another socket open at the same table (a second tab). The
count is a cache counter per player and table, up at connect and down at
disconnect; a process that dies leaves it too high, which only costs a
push nobody needed.

Who is at a live table: a socket there marks its player present until
``PRESENT_SECONDS`` from now, again every ``RENEW_SECONDS`` while it is
open, and takes the mark away when it closes (unless the socket count
says the player has another tab at the table). The dealer counts the marks not
yet lapsed (``present``, read by games/selectors/live.py): watchers are at
the table as much as bettors are. A process that dies leaves its players
counted until their marks lapse.

Every write here is made from the socket's event loop: with Redis, one
command on an asyncio client of that loop (no thread, no new connection per
round); without it, this process's memory (``make run``: one process).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Any

import redis.asyncio as aioredis
from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.redis import RedisSerializer

from games.selectors.live import PRESENT_MARKS, present_key
from games.selectors.reveal import progress_key, progress_value, shown_key

logger = logging.getLogger(__name__)

# A player's socket count lives at most this long without a connect or a
# disconnect (a day): a count left by a dead process does not stay forever.
SOCKETS_TTL = 24 * 3600

_ENCODE = RedisSerializer()
POOL_WAIT = 10  # seconds a mark or a count waits for one of the pool's connections

# One asyncio Redis client per event loop (a websocket worker has one).
_redis_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
    weakref.WeakKeyDictionary()
)


def _redis() -> Any:
    """This loop's client. Its pool waits for a free connection rather than
    refusing: a worker's sockets closing all at once (a restart, the end of
    a load test) once asked for over a hundred at the same moment, and
    redis-py's default pool refused the rest ("Too many connections"), so
    their counts stayed up and every round of those players was pushed
    through the channel layer for nobody."""
    loop = asyncio.get_running_loop()
    client = _redis_clients.get(loop)
    if client is None:
        pool = aioredis.BlockingConnectionPool.from_url(
            settings.REDIS_URL,
            max_connections=settings.CASINO_SOCKET_REDIS_CONNECTIONS,
            timeout=POOL_WAIT,
        )
        client = _redis_clients[loop] = aioredis.Redis(connection_pool=pool)
    return client


async def _cache_set(key: str, value: int | str) -> None:
    """Set a reveal mark in the cache, for ``CASINO_REVEAL_RESUME_SECONDS``."""
    ttl = settings.CASINO_REVEAL_RESUME_SECONDS
    if settings.REDIS_URL:
        # The cache's own key and encoding (an int as is, anything else
        # pickled), so cache.get reads it back: a progress mark ("2:") once
        # went in raw and every read of it failed, so a reloaded page on
        # Redis showed only the result.
        await _redis().set(cache.make_key(key), _ENCODE.dumps(value), ex=ttl)
    else:
        cache.set(key, value, ttl)  # this process's memory: no I/O


async def mark_shown(round_id: int) -> None:
    """Note in the cache that this round's result reached a socket."""
    try:
        await _cache_set(shown_key(round_id), 1)
    except Exception:  # the cache is down: a reconnecting tab shows the result again
        logger.warning("could not mark round %s as shown", round_id, exc_info=True)


async def note_progress(round_id: int, step: int, squeeze: str | None) -> None:
    """Note the last step of this round's reveal sent, so a reloaded page
    goes on from there (and with the same squeeze)."""
    try:
        await _cache_set(progress_key(round_id), progress_value(step, squeeze))
    except Exception:  # the cache is down: a reloaded page shows the reveal from its deal
        logger.warning("could not note the reveal progress of round %s", round_id, exc_info=True)


def sockets_key(user_id: int, slug: str) -> str:
    return f"bac-sockets:{user_id}:{slug}"


async def _count(key: str, by: int) -> int:
    """Move the counter by ``by``; its new value."""
    if settings.REDIS_URL:
        name = cache.make_key(key)
        client = _redis()
        async with client.pipeline(transaction=False) as pipe:
            pipe.incrby(name, by)
            pipe.expire(name, SOCKETS_TTL)
            counted, _ = await pipe.execute()
        return int(counted)
    cache.add(key, 0, SOCKETS_TTL)
    try:
        return int(cache.incr(key, by))
    except ValueError:  # expired between add and incr
        cache.set(key, max(by, 0), SOCKETS_TTL)
        return max(by, 0)


async def socket_opened(user_id: int, slug: str) -> None:
    try:
        await _count(sockets_key(user_id, slug), 1)
    except Exception:  # the cache is down: others_open() then says yes
        logger.warning("could not count a socket of player %s", user_id, exc_info=True)


async def socket_closed(user_id: int, slug: str) -> int | None:
    """Count a socket out; how many the player still holds open at the
    table (None: the cache could not say)."""
    try:
        return await _count(sockets_key(user_id, slug), -1)
    except Exception:
        logger.warning("could not count a closed socket of player %s", user_id, exc_info=True)
        return None


def others_open(user_id: int, slug: str) -> bool:
    """Whether the player may have another socket open at this table than
    the one asking (when unsure, yes: a push too many costs a hop; one too
    few would leave a tab without its reveal)."""
    try:
        count = cache.get(sockets_key(user_id, slug))
    except Exception:
        return True
    if count is None:
        return True  # never counted (a socket opened before counting began)
    try:
        return int(count) > 1
    except (TypeError, ValueError):
        return True


PRESENT_SECONDS = 60
RENEW_SECONDS = 25


async def mark_present(slug: str, user_id: int) -> None:
    """Mark the player present at the live table (on arrival, and again
    every ``RENEW_SECONDS`` while their socket is open)."""
    now = time.time()
    try:
        if settings.REDIS_URL:
            name = cache.make_key(present_key(slug))
            async with _redis().pipeline(transaction=False) as pipe:
                pipe.zremrangebyscore(name, "-inf", now)  # marks lapsed
                pipe.zadd(name, {str(user_id): now + PRESENT_SECONDS})
                pipe.expire(name, PRESENT_SECONDS)
                await pipe.execute()
        else:
            marks = PRESENT_MARKS.setdefault(slug, {})
            for lapsed in [u for u, until in marks.items() if until <= now]:
                del marks[lapsed]
            marks[user_id] = now + PRESENT_SECONDS
    except Exception:  # the cache is down: the table counts its bettors only
        logger.warning("could not mark player %s at %s", user_id, slug, exc_info=True)


async def arrived(slug: str, user_id: int) -> None:
    """A live socket opened: counted among the player's sockets at the
    table (``others_open``), and the player marked present."""
    await socket_opened(user_id, slug)
    await mark_present(slug, user_id)


async def left(slug: str, user_id: int) -> None:
    """A live socket closed: the player's mark goes with their last socket
    at the table, in whichever process it was."""
    remaining = await socket_closed(user_id, slug)
    if remaining is None or remaining > 0:
        return  # another tab of theirs still renews the mark (or it lapses)
    try:
        if settings.REDIS_URL:
            await _redis().zrem(cache.make_key(present_key(slug)), str(user_id))
        else:
            PRESENT_MARKS.get(slug, {}).pop(user_id, None)
    except Exception:  # their mark lapses by itself
        logger.warning("could not mark player %s gone from %s", user_id, slug, exc_info=True)
