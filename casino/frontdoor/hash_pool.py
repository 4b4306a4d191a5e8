"""Password hashes: what one costs, and how many run at once.

Every log-in and sign-up hashes a password, an unknown username's too, so a
stranger can make the site hash as fast as they can post. Bounded three ways:

- the cost: ``Argon2Hasher``, Argon2id at OWASP's floor (19 MiB, 2 passes,
  1 lane); a password stored another way is hashed again with it at its
  next log-in (Django's ``must_update``);
- how many at once: every hash of every hasher in ``PASSWORD_HASHERS`` runs
  in one pool per process, whose ``Cap`` is ``CASINO_HASHES_AT_ONCE``
  threads and ``CASINO_HASHES_WAITING`` waiting places; a hash beyond those
  raises ``HashesBusy`` before any work (a 429, casino/frontdoor/throttle.py);
- whose CPU: the pool's threads run at nice ``CASINO_HASH_NICE``.

docs/front-door.md, "Hash pool".
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.hashers import (  # type: ignore[attr-defined]  # not in django-stubs 5.2
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    PBKDF2SHA1PasswordHasher,
    ScryptPasswordHasher,
)
from django.core.signals import setting_changed
from django.dispatch import receiver

from casino.frontdoor.limits import Cap

T = TypeVar("T")

# The views whose posts hash a password: login, sign-up, the admin's login.
CREDENTIAL_VIEWS = frozenset({"login", "signup", "admin:login"})

# How long a refused client is told to wait: the pool empties within a few
# hashes (tens of milliseconds each), so one second is plenty.
RETRY_AFTER_SECONDS = 1

_here = threading.local()  # .hashing: this thread is one of the pool's


class HashesBusy(Exception):
    """Every hashing thread is busy and the waiting places are taken: no
    hash was computed; the client may try again in ``RETRY_AFTER_SECONDS``.
    Not a PermissionDenied: ``authenticate()`` would count that as a failed
    log-in, and no password was tried."""


def _enter_pool(nice: int) -> None:
    """Each pool thread, once: mark it, and lower its CPU priority to
    ``nice`` (never raise it: a process started with a higher nice value,
    such as the cluster's login worker, keeps its own)."""
    _here.hashing = True
    if not (nice and sys.platform.startswith("linux")):
        return
    thread_id = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, thread_id)
        os.setpriority(os.PRIO_PROCESS, thread_id, max(current, nice))
    except OSError:  # not permitted here: the hash runs at the process's priority
        pass


def hash_cap() -> Cap:
    """Hashes at once in one process, and waiting for a thread."""
    return Cap(settings.CASINO_HASHES_AT_ONCE, settings.CASINO_HASHES_WAITING)


class HashPool:
    """``cap.at_once`` threads that hash, and ``cap.waiting`` places for
    hashes that wait for one of them; a hash finding neither is refused."""

    def __init__(self, *, cap: Cap, nice: int) -> None:
        self.capacity = cap.total
        self._taken = 0
        self._lock = threading.Lock()
        self._threads = ThreadPoolExecutor(
            max_workers=cap.at_once,
            thread_name_prefix="password-hash",
            initializer=_enter_pool,
            initargs=(nice,),
        )

    def has_room(self) -> bool:
        """A quick look before a request's other work (the answer may be
        stale by the time it hashes; ``run`` decides)."""
        return self._taken < self.capacity

    def in_use(self) -> int:
        """Hashes running or waiting now."""
        return self._taken

    def run(self, work: Callable[[], T]) -> T:
        """``work()`` on a pool thread, this thread waiting for it; raises
        ``HashesBusy`` at once, without running it, when the pool is full."""
        if getattr(_here, "hashing", False):
            # A hash that hashes again (PBKDF2's verify encodes): already
            # on a pool thread, holding its place.
            return work()
        with self._lock:
            if self._taken >= self.capacity:
                raise HashesBusy
            self._taken += 1
        try:
            return self._threads.submit(work).result()
        finally:
            with self._lock:
                self._taken -= 1

    def shutdown(self) -> None:
        self._threads.shutdown(wait=False)


_pool: HashPool | None = None
_pool_lock = threading.Lock()


def pool() -> HashPool:
    """This process's pool, made at its first hash (after a server forks
    its workers, so each worker has threads of its own)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = HashPool(cap=hash_cap(), nice=settings.CASINO_HASH_NICE)
    return _pool


@receiver(setting_changed)
def _new_pool_for_new_settings(*, setting: str, **kwargs: Any) -> None:
    global _pool
    if setting in {"CASINO_HASHES_AT_ONCE", "CASINO_HASHES_WAITING", "CASINO_HASH_NICE"}:
        with _pool_lock:
            if _pool is not None:
                _pool.shutdown()
            _pool = None


class PooledHasherMixin:
    """A Django password hasher whose hashes run in the pool."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        return pool().run(partial(super().encode, password, salt, *args, **kwargs))  # type: ignore[misc]

    def verify(self, password: str, encoded: str) -> bool:
        return pool().run(partial(super().verify, password, encoded))  # type: ignore[misc]


class Argon2Hasher(PooledHasherMixin, Argon2PasswordHasher):
    """Argon2id at OWASP's floor (m=19 MiB, t=2, p=1): about 18 ms of one
    core here against Django's default (m=100 MiB, t=2, p=8) at 186 ms, so
    10 sign-ups a second cost a fifth of a core, not two whole cores.
    Stored hashes with other parameters are hashed again with these at the
    next log-in (``must_update`` compares them)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1


# Passwords stored before Argon2 (or by another project) still verify, in the
# pool like every other hash, and are hashed again with Argon2 at log-in.
class PBKDF2Hasher(PooledHasherMixin, PBKDF2PasswordHasher):
    pass


class PBKDF2SHA1Hasher(PooledHasherMixin, PBKDF2SHA1PasswordHasher):
    pass


class ScryptHasher(PooledHasherMixin, ScryptPasswordHasher):
    pass
