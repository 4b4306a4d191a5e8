"""Failed logins arriving all at once are every one counted by the lockout
(casino/frontdoor/lockout.py), and none answers 500: on SQLite here, and on PostgreSQL
when ``make test-engines`` / ``make test-cluster`` run this file with
DATABASE_URL. A guess that was checked and not counted is a free guess."""

from __future__ import annotations

import secrets
import threading
from collections import Counter

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import MD5PasswordHasher
from django.db import connections
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from casino.frontdoor import hash_pool as hashing

pytestmark = [pytest.mark.engines, pytest.mark.django_db(transaction=True)]

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
WAIT = 60  # seconds


class CountingHasher(hashing.PooledHasherMixin, MD5PasswordHasher):
    """MD5 in the site's pool, counting the passwords it checks: each
    failed login hashes exactly once (an unknown username too)."""

    checked = 0
    lock = threading.Lock()

    def encode(self, password, salt):
        with CountingHasher.lock:
            CountingHasher.checked += 1
        return super().encode(password, salt)


@pytest.fixture
def counting(settings):
    settings.PASSWORD_HASHERS = ["tests.engines.test_lockout_counts.CountingHasher"]
    # Room for every login at once: this is about the count, not the cap.
    settings.CASINO_HASHES_AT_ONCE = 4
    settings.CASINO_HASHES_WAITING = 100
    CountingHasher.checked = 0


def at_once(posts: list[tuple[str, str]]) -> Counter[int | str]:
    """Each (address, username) a failed login from a thread of its own,
    all released together; how they were answered."""
    barrier = threading.Barrier(len(posts))
    answers: Counter[int | str] = Counter()
    lock = threading.Lock()

    def post(address: str, username: str) -> None:
        try:
            barrier.wait(timeout=WAIT)
            response = Client(REMOTE_ADDR=address).post(
                reverse("login"), {"username": username, "password": "wrong-Secret-1"}, **EN
            )
            answer: int | str = response.status_code
        except Exception as exc:  # reported by the assertions
            answer = type(exc).__name__
        finally:
            connections.close_all()
        with lock:
            answers[answer] += 1

    threads = [threading.Thread(target=post, args=p) for p in posts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    return answers


def failures(**where) -> int:
    return AccessAttempt.objects.filter(**where).aggregate(n=Sum("failures_since_start"))["n"] or 0


def test_a_flood_of_random_usernames_at_once_is_counted_whole(counting, settings):
    """40 guesses at once from 4 addresses (10 each, under the address's
    limit of 20): all answered as wrong passwords, all 40 counted, 10 for
    each address."""
    addresses = [f"10.26.0.{n}" for n in range(1, 5)]
    posts = [(addresses[n % 4], f"flood-{secrets.token_hex(4)}") for n in range(40)]
    answers = at_once(posts)
    assert answers == Counter({200: 40})
    assert CountingHasher.checked == 40
    assert failures() == 40
    for address in addresses:
        assert failures(ip_address=address) == 10


def test_one_account_guessed_at_once_counts_every_guess(counting, make_player):
    """20 guesses at one player's password at once from one address: some
    are checked before the first failure is written, the rest refused by the
    lockout, and every one is counted (axes counts a refused try too, and
    keeps the lockout running from it): no 500, no lost count, and the
    account stays locked for that address, the right password included."""
    make_player("target")
    CountingHasher.checked = 0  # the player's own sign-up hashed once
    answers = at_once([("10.26.1.1", "target")] * 20)
    assert set(answers) <= {200, 429}, answers  # wrong password, or locked out
    assert failures(username="target", ip_address="10.26.1.1") == 20
    assert 5 <= CountingHasher.checked <= 20  # the limit's 5 at least were checked
    checked = CountingHasher.checked
    locked = Client(REMOTE_ADDR="10.26.1.1").post(
        reverse("login"), {"username": "target", "password": "pw-Secret-123"}, **EN
    )
    assert locked.status_code == 429
    assert CountingHasher.checked == checked  # refused before any hash
