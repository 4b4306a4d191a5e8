"""Sessions read from the cache (CASINO_SESSION_CACHE, on in the cluster):
a request reads no session row, the idle clock still restarts, and logging
out ends the session everywhere.

Runs on whatever cache and database the suite has (the engine stage: Redis
and PostgreSQL)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from casino.sessions import CACHE_PREFIX, SessionStore

pytestmark = [pytest.mark.engines, pytest.mark.django_db]


@pytest.fixture
def player_client(make_player, settings):
    settings.CASINO_SESSION_CACHE = True
    client = Client()
    client.force_login(make_player(chips=50))
    yield client
    cache.delete(CACHE_PREFIX + client.cookies["sessionid"].value)


def session_reads(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return sum(1 for q in queries.captured_queries if 'FROM "django_session"' in q["sql"])


def test_a_request_reads_the_session_from_the_cache(player_client):
    lobby = reverse("lobby")
    player_client.get(lobby)  # the first read fills the cache
    assert session_reads(player_client, lobby) == 0


def test_the_idle_clock_restarts_from_the_cached_expiry(player_client):
    lobby = reverse("lobby")
    player_client.get(lobby)
    key = player_client.cookies["sessionid"].value
    # As if the last request was two minutes ago, in the database and the cache.
    old = timezone.now() + dt.timedelta(seconds=settings.SESSION_COOKIE_AGE - 120)
    Session.objects.filter(session_key=key).update(expire_date=old)
    data, _expiry = cache.get(CACHE_PREFIX + key)
    cache.set(CACHE_PREFIX + key, (data, old.timestamp()), 3000)
    assert session_reads(player_client, lobby) == 0
    stored = Session.objects.get(session_key=key).expire_date
    assert stored > old + dt.timedelta(seconds=100)  # written with a fresh hour
    assert cache.get(CACHE_PREFIX + key)[1] == pytest.approx(stored.timestamp(), abs=1)


def test_logging_out_ends_the_cached_session(player_client):
    table = "/baccarat/baccarat-classic/"  # for logged-in players only
    key = player_client.cookies["sessionid"].value
    other_tab = Client()
    other_tab.cookies["sessionid"] = key
    assert other_tab.get(table).status_code == 200
    player_client.post(reverse("logout"))
    assert cache.get(CACHE_PREFIX + key) is None
    assert not Session.objects.filter(session_key=key).exists()
    assert other_tab.get(table).status_code == 302  # to the login page


def test_a_change_saved_in_one_process_is_what_the_next_read_sees(player_client):
    """A table socket reads its session at every BET (the squeeze toggle):
    a change saved through another store (the squeeze view, on another
    worker) is what the next read from the cache holds, with no row read."""
    key = player_client.cookies["sessionid"].value
    SessionStore(key).load()  # the cache holds the session
    written = SessionStore(key)
    written["note"] = "changed"
    written.save()
    with CaptureQueriesContext(connection) as queries:
        assert SessionStore(key).get("note") == "changed"
    assert not queries.captured_queries  # read from the cache
