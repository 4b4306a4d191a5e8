"""The lockout counts a failed login even when SQLite's write lock is not
free in time (casino/frontdoor/lockout.py). Under ``make run`` a flood of logins once
kept the lock's holders slow enough that others waited past SQLite's busy
timeout: axes' write failed, the guess answered 500 and was never counted.
Here another connection holds the lock past a short timeout instead."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from axes.models import AccessAttempt
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "sqlite", reason="SQLite's single write lock (the file database)"
    ),
    pytest.mark.django_db(transaction=True),
]

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
BUSY_TIMEOUT = 0.3  # seconds SQLite waits for the write lock, in this test
HELD_FOR = 0.5  # seconds another writer holds it: longer than one wait, shorter than three


@pytest.fixture
def short_lock_wait(monkeypatch):
    """New connections wait BUSY_TIMEOUT for the write lock, not 20 s."""
    options = connections.settings["default"]["OPTIONS"]
    monkeypatch.setitem(options, "timeout", BUSY_TIMEOUT)


def while_the_lock_is_held(request_in_thread) -> dict:
    """Another writer takes SQLite's write lock and keeps it HELD_FOR
    seconds; meanwhile ``request_in_thread()`` runs on a new connection.
    Returns what it returned (or raised)."""
    holder = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["response"] = request_in_thread()
        except Exception as exc:  # reported by the assertions
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(HELD_FOR)
    holder.execute("COMMIT")
    holder.close()
    thread.join(30)
    return outcome


def test_a_wrong_password_waiting_out_the_lock_is_still_counted(short_lock_wait, make_player):
    make_player("ann")
    outcome = while_the_lock_is_held(
        lambda: Client(REMOTE_ADDR="10.26.2.1").post(
            reverse("login"), {"username": "ann", "password": "wrong-Secret-1"}, **EN
        )
    )
    assert "error" not in outcome, outcome.get("error")
    assert outcome["response"].status_code == 200  # "Please enter a correct username..."
    attempt = AccessAttempt.objects.get(username="ann", ip_address="10.26.2.1")
    assert attempt.failures_since_start == 1
