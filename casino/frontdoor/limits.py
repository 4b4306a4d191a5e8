"""The front door's words for a limit: a ``Rate`` or a ``Cap``, per key.

Every guard says its limit in these words, read from the settings at each
use (so a test's ``settings`` override applies at once):

- ``Rate(count, seconds)``: at most ``count`` events per ``seconds`` for one
  key. Counted two ways: ``over_rate`` keeps a fixed window in Django's
  cache (django-ratelimit's counter, shared by every process that shares
  the cache), and ``TokenBucket`` keeps a bucket in memory for one object
  (bursts of ``count``, refilled over ``seconds``).
- ``Cap(at_once, waiting)``: at most ``at_once`` inside at once, ``waiting``
  more waiting for a place, any beyond those refused at once.

A count of 0 is no limit. The key is what is counted for: a client's
address (``REMOTE_ADDR``, or the ASGI scope's client), a session, a socket.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django_ratelimit.core import get_usage


@dataclass(frozen=True)
class Rate:
    count: int  # events a window; 0: no limit
    seconds: float  # the window

    @classmethod
    def per_second(cls, rate: float, *, burst: int) -> Rate:
        """``rate`` a second on average, in bursts of ``burst`` (a rate of 0:
        no limit)."""
        return cls(burst, burst / rate) if rate > 0 else cls(0, 1)


@dataclass(frozen=True)
class Cap:
    at_once: int
    waiting: int = 0

    @property
    def total(self) -> int:
        return self.at_once + self.waiting


def over_rate(name: str, key: str, rate: Rate) -> int:
    """Count one ``name`` event for ``key`` in a fixed window of
    ``rate.seconds``; the seconds to wait when it is over ``rate.count``,
    else 0. django-ratelimit's counter: ``cache.add`` then ``cache.incr``,
    both atomic in Redis and in the in-process cache; each key's window
    starts at an offset of its own, so windows do not all end at once."""
    if not rate.count:
        return 0
    window = max(1, int(rate.seconds))  # the counter's windows are whole seconds
    usage = get_usage(
        None,  # the key below is given, nothing is read from a request
        group=name,
        key=lambda _group, _request: key,
        rate=(rate.count, window),
        increment=True,
    )
    if usage is None or not usage["should_limit"]:
        return 0
    return max(1, usage["time_left"])


@dataclass
class TokenBucket:
    """``rate.count`` at once, refilled over ``rate.seconds``; counts the
    events it refused."""

    rate: Rate
    tokens: float = field(init=False)
    stamp: float = field(init=False)
    refused: int = 0

    def __post_init__(self) -> None:
        self.tokens = float(self.rate.count)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        """One event: True if it is within the rate."""
        if not self.rate.count:
            return True
        now = time.monotonic()
        refill = (now - self.stamp) * self.rate.count / self.rate.seconds
        self.tokens = min(float(self.rate.count), self.tokens + refill)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False
