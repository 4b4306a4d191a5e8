"""Strangers cannot keep the site hashing passwords: anonymous login and
sign-up posts are counted per address and refused with a 429 before any
password is hashed (casino/frontdoor/throttle.py), and failed logins spread over many
usernames lock the address (casino/frontdoor/lockout.py)."""

from __future__ import annotations

import secrets

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher, get_hasher
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HASHER = "tests.security.test_credential_throttle.CountingHasher"


class CountingHasher(MD5PasswordHasher):
    """MD5 (fast), counting every hash it computes or checks."""

    calls = 0

    def encode(self, password, salt):
        type(self).calls += 1
        return super().encode(password, salt)

    def verify(self, password, encoded):
        type(self).calls += 1
        return super().verify(password, encoded)


@pytest.fixture
def budget(settings):
    """Three credential posts a minute per address; the hashes counted."""
    settings.PASSWORD_HASHERS = [HASHER]
    settings.CASINO_CREDENTIAL_POSTS = 3
    cache.clear()
    yield
    cache.clear()


def hashes() -> int:
    return type(get_hasher()).calls


def login(client: Client, username: str, password: str = "wrong-Secret-1", **extra):
    return client.post(
        reverse("login"), {"username": username, "password": password}, **EN, **extra
    )


def test_the_posts_over_the_budget_get_429_and_no_hash(budget):
    client = Client()
    for _ in range(3):
        before = hashes()
        response = login(client, f"nobody-{secrets.token_hex(4)}")
        assert response.status_code == 200  # "Please enter a correct username..."
        assert hashes() == before + 1  # an unknown username is hashed too
    before = hashes()
    response = login(client, f"nobody-{secrets.token_hex(4)}")
    assert response.status_code == 429
    assert hashes() == before  # refused before any hash
    assert "Too many log-in or sign-up attempts" in response.content.decode()
    assert 1 <= int(response["Retry-After"]) <= 60
    # Sign-up shares the budget: no hash, no user.
    users = get_user_model().objects.count()
    response = client.post(
        reverse("signup"),
        {"username": "newcomer", "password1": "pw-Secret-123", "password2": "pw-Secret-123"},
        **EN,
    )
    assert response.status_code == 429
    assert hashes() == before
    assert get_user_model().objects.count() == users


def test_another_address_and_the_pages_themselves_are_not_held_back(budget, make_player):
    make_player("ann")
    client = Client()
    for _ in range(4):
        login(client, "mallory")
    assert login(client, "mallory").status_code == 429
    # Reading the login page is not a credential post.
    assert client.get(reverse("login"), **EN).status_code == 200
    # A player on another address signs in as usual.
    other = Client(REMOTE_ADDR="10.1.2.3")
    response = login(other, "ann", "pw-Secret-123")
    assert response.status_code == 302


def test_a_signed_in_players_posts_are_not_counted(budget, make_player):
    player = make_player(chips=0)
    client = Client()
    client.force_login(player)
    for _ in range(5):
        response = client.post(reverse("topup"), **EN)
        assert response.status_code == 302


def test_failures_over_many_usernames_lock_the_address(settings, make_player):
    """Failed logins with a different username each time: the address is
    locked after CASINO_ADDRESS_FAILURE_LIMIT of them, even for a real
    player's right password; another address is not."""
    settings.CASINO_CREDENTIAL_POSTS = 0
    settings.CASINO_ADDRESS_FAILURE_LIMIT = 4
    make_player("ann")
    flooder = Client(REMOTE_ADDR="10.9.9.9")
    for n in range(3):
        assert login(flooder, f"random-{n}").status_code == 200
    assert login(flooder, "ann", "pw-Secret-123").status_code == 302  # 3 < 4: not yet
    flooder = Client(REMOTE_ADDR="10.9.9.9")
    for n in range(4):
        login(flooder, f"random-more-{n}")
    response = login(flooder, "ann", "pw-Secret-123")
    assert response.status_code == 429  # axes' lockout
    assert "Too many failed log-ins" in response.content.decode()
    assert login(Client(REMOTE_ADDR="10.9.9.10"), "ann", "pw-Secret-123").status_code == 302
