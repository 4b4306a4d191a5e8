"""Sessions in the database, written only when needed.

A session ends after ``SESSION_COOKIE_AGE`` seconds without a request. Django
keeps that promise with ``SESSION_SAVE_EVERY_REQUEST``, which writes the
session on every request, though a War DEAL or a page of history changes
nothing in it. Here a request writes the session when it changed it (the bet
slip, a login) or when the stored expiry is more than ``TOUCH_SECONDS`` (a
tenth of the age, if that is less) older than a fresh one would be. An idle
session still ends an hour (at most a minute less) after the player's last
request, with one write a minute instead of one per request.

``SessionStore`` also writes an existing session with one UPDATE, without the
transaction Django's database store opens around it (one statement needs
none; on PostgreSQL that is two round trips fewer).

With ``CASINO_SESSION_CACHE`` (on in the cluster, where the cache is Redis)
sessions are read from the cache and written through to the database, as
Django's ``cached_db`` engine does: a request then reads no session row. The
cache holds the data with the stored expiry, so the write policy above is
the same either way; a session deleted through the store (logout, a new key
at login) leaves the cache with it.

``end_user_sessions`` ends every session of one account (an operator
deactivating or reactivating it): the rows go in the caller's transaction,
the cached copies once it commits.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DbSessionStore
from django.core.cache import caches
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

logger = logging.getLogger(__name__)
CACHE_PREFIX = "casino.session:"

TOUCH_SECONDS = 60


class SessionStore(DbSessionStore):
    stored_expiry: dt.datetime | None = None  # as read from the database

    # Django's private hook that reads the row; django-stubs leaves it out.
    def _get_session_from_db(self):
        stored = super()._get_session_from_db()  # type: ignore[misc]
        self.stored_expiry = stored.expire_date if stored is not None else None
        return stored

    def idle_clock_stale(self) -> bool:
        """Whether the stored expiry lags a fresh one by more than a minute."""
        if self.stored_expiry is None:
            return False
        age = self.get_expiry_age()
        left = (self.stored_expiry - timezone.now()).total_seconds()
        return left < age - min(TOUCH_SECONDS, age / 10)

    # --- the cache (CASINO_SESSION_CACHE) ----------------------------------

    @property
    def cached(self) -> bool:
        return bool(getattr(settings, "CASINO_SESSION_CACHE", False))

    def _cache_key(self, key: str | None = None) -> str:
        return CACHE_PREFIX + (key or self.session_key or "")

    def _cache_put(self, data: dict[str, Any], expiry: dt.datetime) -> None:
        try:
            caches[settings.SESSION_CACHE_ALIAS].set(
                self._cache_key(),
                (data, expiry.timestamp()),
                max(1, int((expiry - timezone.now()).total_seconds())),
            )
        except Exception:  # the cache is down: the next read goes to the database
            logger.warning("could not cache a session", exc_info=True)

    def load(self) -> dict[str, Any]:
        if self.cached and self.session_key:
            try:
                found = caches[settings.SESSION_CACHE_ALIAS].get(self._cache_key())
            except Exception:
                found = None
            if isinstance(found, tuple) and len(found) == 2:
                data, expiry = found
                self.stored_expiry = dt.datetime.fromtimestamp(expiry, tz=dt.UTC)
                return data
        data = super().load()
        if self.cached and self.stored_expiry is not None:
            self._cache_put(data, self.stored_expiry)
        return data

    async def aload(self) -> dict[str, Any]:
        return await sync_to_async(self.load)()

    def save(self, must_create: bool = False) -> None:
        if must_create or self.session_key is None:
            super().save(must_create=must_create)
        else:
            updated = self.model.objects.filter(session_key=self.session_key).update(
                # The loaded dict, as Django's own save() encodes it (private, not in the stubs).
                session_data=self.encode(self._get_session()),  # type: ignore[attr-defined]
                expire_date=self.get_expiry_date(),
            )
            if not updated:  # deleted meanwhile (logged out in another tab)
                raise UpdateError
        if self.cached:
            self._cache_put(self._get_session(), self.get_expiry_date())  # type: ignore[attr-defined]

    def delete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        if key:
            signed_in_keys.discard(key)
        if self.cached and key:
            try:
                caches[settings.SESSION_CACHE_ALIAS].delete(self._cache_key(key))
            except Exception:
                logger.warning("could not drop a session from the cache", exc_info=True)
        super().delete(session_key)

    async def adelete(self, session_key: str | None = None) -> None:
        await sync_to_async(self.delete)(session_key)


def user_session_keys(user_id: int) -> list[str]:
    """The keys of the live sessions signed in as ``user_id``.

    A session row has no user column, so each unexpired one is decoded: an
    operator's rare action pays for it, not every login. Expired rows are
    dead already (``clearsessions`` removes them)."""
    store = SessionStore()
    wanted = str(user_id)
    rows = (
        store.model.objects.filter(expire_date__gt=timezone.now())
        .values_list("session_key", "session_data")
        .iterator(chunk_size=2000)
    )
    return [key for key, data in rows if store.decode(data).get(SESSION_KEY) == wanted]


def end_user_sessions(user_id: int) -> list[str]:
    """End every session of ``user_id``, in every browser; returns their keys.

    The rows are deleted in the caller's transaction. The cached copies
    (``CASINO_SESSION_CACHE``) are dropped once it commits: dropped earlier, a
    request of that session could read the row before the delete commits
    and cache it again. A request that reads the row in the instant before
    the commit can still put it back in the cache, where it lasts until its
    expiry; its user must also be active again within that hour to use it.
    """
    keys = user_session_keys(user_id)
    signed_in_keys.discard(*keys)
    if keys:
        SessionStore.get_model_class().objects.filter(session_key__in=keys).delete()
        if getattr(settings, "CASINO_SESSION_CACHE", False):
            transaction.on_commit(lambda: _uncache(keys))
    return keys


def _uncache(keys: list[str]) -> None:
    try:
        caches[settings.SESSION_CACHE_ALIAS].delete_many([CACHE_PREFIX + key for key in keys])
    except Exception:  # the copies outlive the rows until their expiry: say so
        logger.warning("could not drop ended sessions from the cache", exc_info=True)


class SignedInKeys:
    """The keys of the sessions this process has served signed in, the most
    recent ``most`` of them: ``make run``'s page seats
    (casino/frontdoor/page_seats.py) seat a request that carries one before a
    visitor's, so a made-up session
    cookie buys no place in that line. A key leaves when its session is
    deleted (logout, a new key at login, an account's sessions ended); one
    that merely expires only keeps its place in the line."""

    def __init__(self, most: int = 50_000) -> None:
        self.most = most
        self._keys: dict[str, None] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def add(self, key: str) -> None:
        if key in self._keys:
            return
        with self._lock:
            self._keys[key] = None
            while len(self._keys) > self.most:
                del self._keys[next(iter(self._keys))]

    def discard(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._keys.pop(key, None)


signed_in_keys = SignedInKeys()


class SessionTouchMiddleware:
    """Restart a session's idle clock when it is more than a minute old, and
    remember a signed-in session's key (``signed_in_keys``).

    Sits just after ``SessionMiddleware`` in ``MIDDLEWARE``, so it answers
    before the session middleware decides whether to save.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        session = getattr(request, "session", None)
        if (
            session is not None
            and session.accessed
            and not session.modified
            and not session.is_empty()
            and getattr(session, "idle_clock_stale", bool)()
        ):
            session.modified = True  # the session middleware saves it, with a new expiry
        if (
            session is not None
            and session.accessed  # read already: no query here
            and session.session_key
            and SESSION_KEY in session
        ):
            signed_in_keys.add(session.session_key)
        return response
