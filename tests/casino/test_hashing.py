"""Password hashes never stall players (casino/hashing.py): a stranger
posting logins faster than they can be hashed gets a 429 with nothing
hashed, a player's page answers while logins hash, and the stored hashes are
Argon2id at OWASP's floor or above, older ones hashed again at log-in."""

from __future__ import annotations

import asyncio
import re
import threading
from urllib.parse import urlencode

import argon2
import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    MD5PasswordHasher,
    PBKDF2PasswordHasher,
    make_password,
)
from django.test import Client
from django.urls import reverse
from django.utils.module_loading import import_string

from casino import hashing
from casino import settings as project_settings
from tests.casino.test_http_stack import call, cookies

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
BLOCKING = "tests.casino.test_hashing.BlockingHasher"
WAIT = 30  # seconds: a test that would hang fails instead


class WaitingMD5(MD5PasswordHasher):
    """MD5 (fast) that counts the hashes it computes and, while
    ``BlockingHasher.hold`` is clear, waits in each: a test keeps the pool
    busy for as long as it needs. (MD5's verify hashes through encode.)"""

    def encode(self, password, salt):
        with BlockingHasher.lock:
            BlockingHasher.started += 1
        assert BlockingHasher.hold.wait(WAIT), "the test never let the hash finish"
        return super().encode(password, salt)


class BlockingHasher(hashing.PooledHasherMixin, WaitingMD5):
    """``WaitingMD5`` run in the pool, as the site's hashers are."""

    started = 0
    hold = threading.Event()
    lock = threading.Lock()


@pytest.fixture
def blocking_pool(settings):
    """Hashes that wait for ``BlockingHasher.hold``, in a pool of one
    hashing thread and one waiting place (a test may change the sizes)."""
    settings.PASSWORD_HASHERS = [BLOCKING]
    settings.CASINO_HASHES_AT_ONCE = 1
    settings.CASINO_HASHES_WAITING = 1
    BlockingHasher.started = 0
    BlockingHasher.hold.clear()
    yield
    BlockingHasher.hold.set()


@pytest.fixture
def held_pool(blocking_pool):
    return hashing.pool()


def fill(pool: hashing.HashPool, hashes: int) -> list[threading.Thread]:
    """``hashes`` sign-up hashes in threads of their own, until the pool
    holds them all and its thread has started the first."""
    started = BlockingHasher.started
    threads = [
        threading.Thread(target=make_password, args=(f"pw-{n}",), daemon=True)
        for n in range(hashes)
    ]
    for thread in threads:
        thread.start()
    for _ in range(WAIT * 100):
        if pool.in_use() == hashes and BlockingHasher.started == started + 1:
            return threads
        threading.Event().wait(0.01)
    raise AssertionError(f"the pool holds {pool.in_use()} hashes, not {hashes}")


def release(threads: list[threading.Thread]) -> None:
    BlockingHasher.hold.set()
    for thread in threads:
        thread.join(WAIT)


@pytest.mark.django_db
def test_a_login_over_the_cap_gets_429_with_retry_after_and_no_hash(held_pool):
    threads = fill(held_pool, 2)  # one hashing, one waiting: the pool is full
    hashed = BlockingHasher.started
    response = Client().post(
        reverse("login"), {"username": "mallory", "password": "guess-1234"}, **EN
    )
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    assert "Please wait a moment and send it again" in response.content.decode()
    assert BlockingHasher.started == hashed  # refused before any hash
    release(threads)
    # Room again: the same post is hashed and answered as a wrong password.
    BlockingHasher.started = 0
    response = Client().post(
        reverse("login"), {"username": "mallory", "password": "guess-1234"}, **EN
    )
    assert response.status_code == 200
    assert BlockingHasher.started == 1


@pytest.mark.django_db
def test_a_sign_up_over_the_cap_creates_no_account(held_pool):
    threads = fill(held_pool, 2)
    form = {"username": "newcomer", "password1": "pw-Secret-123", "password2": "pw-Secret-123"}
    response = Client().post(reverse("signup"), form, **EN)
    release(threads)
    assert response.status_code == 429
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.django_db
def test_a_hash_that_finds_the_pool_full_inside_a_view_is_refused_too(held_pool, make_player):
    """A signed-in player's password change is not a credential post the
    middleware looks at first: the hash itself is refused, the password
    unchanged, with the same 429."""
    BlockingHasher.hold.set()  # the player's own sign-up hashes freely
    player = make_player()
    BlockingHasher.hold.clear()
    before = get_user_model().objects.get(pk=player.pk).password
    client = Client()
    client.force_login(player)
    threads = fill(held_pool, 2)
    hashed = BlockingHasher.started
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "pw-Secret-123",
            "new_password1": "new-Secret-456",
            "new_password2": "new-Secret-456",
        },
        **EN,
    )
    assert BlockingHasher.started == hashed  # refused before its hash
    release(threads)
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    assert get_user_model().objects.get(pk=player.pk).password == before


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_flood_post_over_the_cap_is_refused_first_under_asgi(held_pool):
    """Through the real ASGI application: the refusal comes from the first
    middleware, before the CSRF check (this post carries no token at all)
    and before any hash, with the page in the browser's language."""
    threads = await asyncio.to_thread(fill, held_pool, 2)
    hashed = BlockingHasher.started
    response = await call(
        "/accounts/login/",
        method="POST",
        body=b"username=mallory&password=guess-1234",
        headers=[(b"content-type", b"application/x-www-form-urlencoded")],
    )
    assert BlockingHasher.started == hashed
    await asyncio.to_thread(release, threads)
    assert response["status"] == 429
    headers = dict(response["headers"])
    assert headers[b"Retry-After"] == b"1"
    assert b"Please wait a moment and send it again" in response["body"]


def test_a_hash_over_the_cap_raises_at_once_without_running(held_pool):
    threads = fill(held_pool, 2)
    with pytest.raises(hashing.HashesBusy):
        make_password("one-too-many")
    assert BlockingHasher.started == 1
    release(threads)
    assert BlockingHasher.started == 2  # the waiting one ran after the first


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_players_page_answers_while_logins_hash(blocking_pool, settings, make_player):
    """Three logins hashing at once through the real ASGI application (as
    ``make run`` serves it): the signed-in player's lobby answers while all
    three are still inside their hash. Had a hash held the thread that
    serves the player, the page would wait for a hash the test only lets
    finish after the page has answered."""
    settings.CASINO_HASHES_AT_ONCE = 3
    settings.CASINO_HASHES_WAITING = 0
    BlockingHasher.hold.set()  # the player's own sign-up hashes freely
    player = await database_sync_to_async(make_player)("steady-player")
    BlockingHasher.hold.clear()
    BlockingHasher.started = 0

    def session_of_player() -> str:
        client = Client()
        client.force_login(player)
        return client.cookies["sessionid"].value

    session = await database_sync_to_async(session_of_player)()
    page = await call("/accounts/login/")
    csrf = cookies(page)["csrftoken"]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"]).group(1)
    logins = [
        asyncio.ensure_future(
            call(
                "/accounts/login/",
                method="POST",
                body=urlencode(
                    {
                        "csrfmiddlewaretoken": token.decode(),
                        "username": f"stranger-{n}",
                        "password": "guess-1234",
                    }
                ).encode(),
                headers=[
                    (b"content-type", b"application/x-www-form-urlencoded"),
                    (b"cookie", f"csrftoken={csrf}".encode()),
                ],
            )
        )
        for n in range(3)
    ]
    for _ in range(WAIT * 100):
        if BlockingHasher.started == 3:
            break
        await asyncio.sleep(0.01)
    assert BlockingHasher.started == 3, "the three logins never reached their hash"

    lobby = await asyncio.wait_for(
        call("/", headers=[(b"cookie", f"sessionid={session}".encode())]), 10
    )
    assert lobby["status"] == 200
    assert b'data-testid="header-balance">10,000<' in lobby["body"]  # signed in
    assert not any(login.done() for login in logins)  # still hashing
    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(*logins), 10)
    assert [a["status"] for a in answers] == [200, 200, 200]  # wrong passwords


def project_hashers() -> list:
    """The hashers the site runs with (the suite swaps in plain MD5 for speed)."""
    return [import_string(path)() for path in project_settings.PASSWORD_HASHERS]


def test_new_passwords_are_stored_as_argon2id_at_least_at_owasps_floor():
    """OWASP's floor for Argon2id: 19 MiB of memory, 2 passes, 1 lane. A
    cheaper hash would let a stolen table be cracked faster."""
    preferred = project_hashers()[0]
    encoded = preferred.encode("pw-Secret-123", preferred.salt())
    assert encoded.startswith("argon2$argon2id$")
    params = argon2.extract_parameters(encoded.removeprefix("argon2"))
    assert params.type is argon2.Type.ID
    assert params.memory_cost >= 19 * 1024
    assert params.time_cost >= 2
    assert params.parallelism >= 1


def test_no_hasher_the_site_accepts_hashes_outside_the_pool():
    """A password stored with an older hasher (PBKDF2, scrypt) is verified
    in the same pool: a flood aimed at such accounts is capped too."""
    for hasher in project_hashers():
        assert isinstance(hasher, hashing.PooledHasherMixin), type(hasher)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "old_hash",
    [
        # Django's own Argon2 default (100 MiB, 8 lanes), this site's before.
        lambda: Argon2PasswordHasher().encode("pw-Secret-123", "saltsaltsaltsalt"),
        lambda: PBKDF2PasswordHasher().encode("pw-Secret-123", "saltsaltsalt", iterations=1000),
    ],
    ids=["argon2-django-default", "pbkdf2"],
)
def test_an_old_hash_is_stored_again_at_the_sites_parameters_at_login(settings, old_hash):
    settings.PASSWORD_HASHERS = list(project_settings.PASSWORD_HASHERS)
    user = get_user_model().objects.create(username="old-timer")
    user.password = old_hash()
    user.save(update_fields=["password"])
    response = Client().post(
        reverse("login"), {"username": "old-timer", "password": "pw-Secret-123"}, **EN
    )
    assert response.status_code == 302
    stored = get_user_model().objects.get(pk=user.pk).password
    assert stored.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    # And the new hash still lets the player in.
    response = Client().post(
        reverse("login"), {"username": "old-timer", "password": "pw-Secret-123"}, **EN
    )
    assert response.status_code == 302
