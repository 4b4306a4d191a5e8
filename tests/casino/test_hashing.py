"""Password hashes never stall players (casino/frontdoor/hash_pool.py): a stranger
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
from channels.testing import HttpCommunicator
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

from casino import settings as project_settings
from casino.asgi import application, django_asgi_app
from casino.frontdoor import hash_pool as hashing
from casino.frontdoor.credential_desk import CredentialDesk
from casino.frontdoor.limits import Cap
from casino.frontdoor.page_seats import PageSeats
from casino.sessions import end_user_sessions, signed_in_keys
from tests.casino.test_http_stack import HOST, call, cookies

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


async def steady_player(make_player) -> str:
    """A signed-up player's session key (their own sign-up hashed freely;
    the hash count starts again from 0)."""
    BlockingHasher.hold.set()
    player = await database_sync_to_async(make_player)("steady-player")
    BlockingHasher.hold.clear()
    BlockingHasher.started = 0

    def session_of_player() -> str:
        client = Client()
        client.force_login(player)
        return client.cookies["sessionid"].value

    key = await database_sync_to_async(session_of_player)()
    # A player who has been playing: this process has served the session
    # signed in, so the page seats (casino/frontdoor/page_seats.py) seat it first.
    assert (await call("/", headers=[(b"cookie", f"sessionid={key}".encode())]))["status"] == 200
    return key


async def csrf_pass(app=application) -> tuple[str, str]:
    """A CSRF cookie and its form token, from the log-in page."""
    page = await call("/accounts/login/", app=app)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"]).group(1)
    return cookies(page)["csrftoken"], token.decode()


def login_post(username: str, csrf: tuple[str, str], *, app=application, method: str = "POST"):
    """A wrong-password login through the real ASGI application."""
    cookie, token = csrf
    form = {"csrfmiddlewaretoken": token, "username": username, "password": "guess-1234"}
    return asyncio.ensure_future(
        call(
            "/accounts/login/",
            method=method,
            body=urlencode(form).encode(),
            headers=[
                (b"content-type", b"application/x-www-form-urlencoded"),
                (b"cookie", f"csrftoken={cookie}".encode()),
                (b"accept-language", b"en"),
            ],
            app=app,
        )
    )


async def until(condition, what: str) -> None:
    for _ in range(WAIT * 100):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_login_flood_enters_the_site_one_post_at_a_time(blocking_pool, requests_started):
    """The credential desk, in ``make run``'s ASGI application: with one
    post let in at a time and one waiting place, a login flood's second post
    waits outside Django (no request started, no thread) until the first has
    answered, and its third gets the busy page at once: 429 with
    Retry-After, nothing hashed, Django never started on it."""
    csrf = await csrf_pass()
    requests_started.clear()
    first = login_post("mallory-1", csrf)
    await until(lambda: BlockingHasher.started == 1, "the first post never reached its hash")
    second = login_post("mallory-2", csrf)
    await asyncio.sleep(0.2)
    assert len(requests_started) == 1, "the second post went into Django beside the first"

    third = await asyncio.wait_for(login_post("mallory-3", csrf), 10)
    assert third["status"] == 429
    assert {k.lower(): v for k, v in third["headers"]}[b"retry-after"] == b"1"
    assert b"Please wait a moment and send it again" in third["body"]
    assert len(requests_started) == 1 and BlockingHasher.started == 1
    assert not first.done() and not second.done()

    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(first, second), 10)
    assert [a["status"] for a in answers] == [200, 200]  # wrong passwords, both hashed
    assert BlockingHasher.started == 2 and len(requests_started) == 2


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_player_passes_the_desk_while_logins_fill_it(blocking_pool, settings, make_player):
    """The desk holds log-in and sign-up posts only: while it is full, a
    signed-in player's lobby answers."""
    session = await steady_player(make_player)
    csrf = await csrf_pass()
    logins = [login_post("mallory-1", csrf), login_post("mallory-2", csrf)]
    await until(lambda: BlockingHasher.started == 1, "the first post never reached its hash")
    refused = await asyncio.wait_for(login_post("mallory-3", csrf), 10)
    assert refused["status"] == 429  # the desk is full
    lobby = await asyncio.wait_for(
        call("/", headers=[(b"cookie", f"sessionid={session}".encode())]), 10
    )
    assert lobby["status"] == 200
    assert b'data-testid="header-balance">10,000<' in lobby["body"]
    BlockingHasher.hold.set()
    await asyncio.wait_for(asyncio.gather(*logins), 10)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_waiting_post_whose_client_leaves_gives_its_place_back(blocking_pool):
    """A waiting post the server gives up on (its task cancelled, as at a
    shutdown) leaves no place taken: after the post inside answers, the desk
    is empty and the next two posts get in and wait as before."""
    desk = CredentialDesk(django_asgi_app)
    csrf = await csrf_pass(desk)
    first = login_post("mallory-1", csrf, app=desk)
    await until(lambda: BlockingHasher.started == 1, "the first post never reached its hash")
    second = HttpCommunicator(
        desk, "POST", "/accounts/login/", body=b"username=mallory-2&password=guess-1234"
    )
    await second.send_input({"type": "http.request", "body": b"username=mallory-2"})
    await until(lambda: desk.places.waiting() == 1, "the second post is not waiting")
    second.future.cancel()
    await until(lambda: not desk.places.waiting(), "the dropped post still holds its waiting place")
    BlockingHasher.hold.set()
    assert (await asyncio.wait_for(first, 10))["status"] == 200
    assert desk.places.inside == 0

    BlockingHasher.hold.clear()
    BlockingHasher.started = 0
    again = [login_post(f"mallory-{n}", csrf, app=desk) for n in (4, 5)]
    await until(lambda: BlockingHasher.started == 1, "the next post never got in")
    await until(lambda: desk.places.waiting() == 1, "the one after it is not waiting")
    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(*again), 10)
    assert [a["status"] for a in answers] == [200, 200]
    assert desk.places.inside == 0 and not desk.places.waiting()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_post_whose_body_trickles_in_holds_no_place_at_the_desk(blocking_pool):
    """Found by a cold attack: six posts from one address, each sending its
    body a byte every two seconds, held every place and the whole site's
    log-ins got "busy". A post is let in (or made to wait) only once its
    body is all there."""
    desk = CredentialDesk(django_asgi_app, cap=Cap(1, 0))
    csrf = await csrf_pass(desk)
    slow = [HttpCommunicator(desk, "POST", "/accounts/login/", body=b"") for _ in range(3)]
    for post in slow:
        await post.send_input({"type": "http.request", "body": b"u", "more_body": True})
    await asyncio.sleep(0.1)
    assert desk.places.inside == 0 and not desk.places.waiting()

    player = login_post("mallory-1", csrf, app=desk)
    await until(lambda: BlockingHasher.started == 1, "the post behind the slow ones never got in")
    BlockingHasher.hold.set()
    assert (await asyncio.wait_for(player, 10))["status"] == 200
    for post in slow:
        post.future.cancel()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_post_spelled_in_lower_case_meets_the_desk_too(blocking_pool):
    """The server passes a method on as the client spelled it and Django
    takes "post" for POST: a script cannot walk past the desk that way."""
    desk = CredentialDesk(django_asgi_app, cap=Cap(1, 0))
    csrf = await csrf_pass(desk)
    first = login_post("mallory-1", csrf, app=desk)
    await until(lambda: BlockingHasher.started == 1, "the first post never reached its hash")
    lower = await asyncio.wait_for(login_post("mallory-2", csrf, app=desk, method="post"), 10)
    assert lower["status"] == 429
    assert BlockingHasher.started == 1
    BlockingHasher.hold.set()
    assert (await asyncio.wait_for(first, 10))["status"] == 200


async def seat_held_by_a_login(seats: PageSeats, started: list | None = None):
    """A stranger's log-in inside ``seats``, its thread waiting for its hash
    (``started``: cleared first, so it holds the requests from here on)."""
    csrf = await csrf_pass(seats)
    if started is not None:
        started.clear()
    login = login_post("stranger", csrf, app=seats)
    await until(lambda: BlockingHasher.started == 1, "the log-in never reached its hash")
    return login


async def two_signed_in_players(seats: PageSeats, make_player) -> list[list]:
    """The cookie headers of an honest player and of mallory, both served a
    page signed in through ``seats`` (so its first line takes them)."""
    cookies_of = []
    for name in ("honest-player", "mallory"):
        BlockingHasher.hold.set()
        player = await database_sync_to_async(make_player)(name)

        def session_of(user=player) -> str:
            client = Client()
            client.force_login(user)
            return client.cookies["sessionid"].value

        cookie = [(b"cookie", f"sessionid={await database_sync_to_async(session_of)()}".encode())]
        assert (await call("/", headers=cookie, app=seats))["status"] == 200  # signed in
        cookies_of.append(cookie)
    BlockingHasher.hold.clear()
    BlockingHasher.started = 0
    return cookies_of


def paths(started: list) -> list[str]:
    return [kwargs["scope"]["path"] for kwargs in started]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_pages_enter_django_a_few_at_a_time_signed_in_players_first(
    blocking_pool, make_player, requests_started
):
    """The page seats, one seat and two waiting places a line:
    while a log-in holds the seat (its thread waits for its hash), a
    visitor's page, a page with a made-up session cookie and a signed-in
    player's lobby wait outside Django, on the event loop, and one more
    visitor gets the busy page at once. When the seat comes free the
    player's lobby goes in first, then the others in the order they came."""
    session = await steady_player(make_player)
    player_cookie = [(b"cookie", f"sessionid={session}".encode())]
    seats = PageSeats(django_asgi_app, at_once=1, waiting=2)
    assert (await call("/", headers=player_cookie, app=seats))["status"] == 200
    login = await seat_held_by_a_login(seats, requests_started)
    visitor = asyncio.ensure_future(call("/accounts/signup/", app=seats))
    await until(lambda: seats.places.waiting() == 1, "the visitor is not waiting")
    forged = [(b"cookie", b"sessionid=" + b"x" * 32)]
    forger = asyncio.ensure_future(call("/history/", headers=forged, app=seats))
    await until(lambda: seats.places.waiting() == 2, "the made-up cookie is not waiting")
    player = asyncio.ensure_future(call("/", headers=player_cookie, app=seats))
    await until(lambda: seats.places.waiting() == 3, "the player is not waiting")
    busy = await asyncio.wait_for(call("/accounts/login/", app=seats), 10)
    assert busy["status"] == 429
    assert {k.lower(): v for k, v in busy["headers"]}[b"retry-after"] == b"1"
    assert paths(requests_started) == ["/accounts/login/"]  # no one else got in

    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(login, player, visitor, forger), 10)
    assert [a["status"] for a in answers] == [200, 200, 200, 302]
    assert b'data-testid="header-balance">10,000<' in answers[1]["body"]
    order = ["/accounts/login/", "/", "/accounts/signup/", "/history/"]
    assert paths(requests_started) == order
    assert seats.places.inside == 0 and not seats.places.waiting()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_request_gives_its_seat_back_as_its_answer_starts(blocking_pool, make_player):
    """A streamed download holds no seat while its client reads it (a slow
    reader would otherwise keep the seat for as long as it likes), and a
    request whose body trickles in takes none before its body is all there."""
    session = await steady_player(make_player)
    seats = PageSeats(django_asgi_app, at_once=1, waiting=0)
    trickle = HttpCommunicator(seats, "POST", "/accounts/login/", body=b"")
    await trickle.send_input({"type": "http.request", "body": b"u", "more_body": True})

    reading = asyncio.Event()
    answer: list[dict] = []

    pieces = [{"type": "http.request", "body": b""}]

    async def request() -> dict:
        if pieces:
            return pieces.pop()
        await asyncio.Event().wait()  # the client stays; it never sends more
        raise AssertionError

    async def slow_reader(message: dict) -> None:
        answer.append(message)
        if message["type"] == "http.response.body":
            await reading.wait()  # the client has not read the first piece yet

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/history/export.csv",
        "query_string": b"",
        "headers": [*HOST, (b"cookie", f"sessionid={session}".encode())],
        "client": ("127.0.0.1", 50000),
    }
    download = asyncio.ensure_future(seats(scope, request, slow_reader))
    await until(lambda: len(answer) == 2, "the download never started")
    assert answer[0]["status"] == 200 and not download.done()
    assert seats.places.inside == 0  # its answer has started: the seat is free
    page = await asyncio.wait_for(call("/accounts/login/", app=seats), 10)
    assert page["status"] == 200  # not the busy page: the seat was free
    reading.set()
    await asyncio.wait_for(download, 10)
    assert b"server_seed_hash" in b"".join(m.get("body", b"") for m in answer[1:])
    trickle.future.cancel()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_waiting_page_whose_client_leaves_gives_its_place_back(blocking_pool):
    seats = PageSeats(django_asgi_app, at_once=1, waiting=1)
    login = await seat_held_by_a_login(seats)
    dropped = HttpCommunicator(seats, "GET", "/accounts/login/", headers=HOST)
    await dropped.send_input({"type": "http.request", "body": b""})
    await until(lambda: seats.places.waiting() == 1, "the page is not waiting")
    dropped.future.cancel()  # as the server does with a request whose client left
    await until(lambda: not seats.places.waiting(), "the dropped page still holds its place")
    BlockingHasher.hold.set()
    assert (await asyncio.wait_for(login, 10))["status"] == 200
    assert seats.places.inside == 0


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
    session = await steady_player(make_player)
    csrf = await csrf_pass()
    logins = [login_post(f"stranger-{n}", csrf) for n in range(3)]
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


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_visitors_hold_only_their_share_of_the_seats(
    blocking_pool, make_player, requests_started
):
    """Two seats, visitors' share one: while a stranger's log-in holds a
    seat (waiting for its hash), another visitor's page waits though a seat
    is free, and a signed-in player's lobby takes that seat and answers at
    once. A flood of strangers' pages thus runs on one thread at most."""
    session = await steady_player(make_player)
    seats = PageSeats(django_asgi_app, at_once=2, waiting=4, visitors=1)
    login = await seat_held_by_a_login(seats, requests_started)
    visitor = asyncio.ensure_future(call("/accounts/signup/", app=seats))
    await until(lambda: seats.places.waiting() == 1, "the visitor is not waiting")
    lobby = await asyncio.wait_for(
        call("/", headers=[(b"cookie", f"sessionid={session}".encode())], app=seats), 10
    )
    assert lobby["status"] == 200 and not visitor.done() and not login.done()
    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(login, visitor), 10)
    assert [a["status"] for a in answers] == [200, 200]
    assert paths(requests_started) == ["/accounts/login/", "/", "/accounts/signup/"]
    assert seats.places.inside == 0 and seats.places.held == [0, 0]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_one_client_holds_only_a_few_places_in_line(blocking_pool, make_player):
    """Found by a cold attack: a script signed in with a free account sent
    200 requests at once and filled the players' whole line, so honest
    players got the busy page. One session holds at most ``per_client``
    places (inside and waiting); its next request gets the busy page at once
    while another player's still takes a place and is answered."""
    seats = PageSeats(django_asgi_app, at_once=1, waiting=8, per_client=2)
    honest, mallory = await two_signed_in_players(seats, make_player)

    login = await seat_held_by_a_login(seats)
    flood = [asyncio.ensure_future(call("/", headers=mallory, app=seats)) for _ in range(2)]
    await until(lambda: seats.places.waiting() == 2, "mallory's two are not waiting")
    third = await asyncio.wait_for(call("/", headers=mallory, app=seats), 10)
    assert third["status"] == 429  # mallory's share is taken, the line is not full
    player = asyncio.ensure_future(call("/", headers=honest, app=seats))
    await until(lambda: seats.places.waiting() == 3, "the honest player is not waiting")

    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(login, player, *flood), 10)
    assert [a["status"] for a in answers] == [200, 200, 200, 200]
    assert not seats.held and seats.places.inside == 0


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_full_line_makes_room_for_a_player_holding_fewer_places(blocking_pool, make_player):
    """Found by a third cold attack: 22 free accounts, 8 places each, filled
    the players' whole line. When the line is full, a newcomer takes the
    place of the newest waiter of the client holding the most places (at
    least two more than the newcomer's): that waiter gets the busy page and
    the honest player waits their turn."""
    seats = PageSeats(django_asgi_app, at_once=1, waiting=3, per_client=8)
    honest, mallory = await two_signed_in_players(seats, make_player)
    login = await seat_held_by_a_login(seats)
    flood = [asyncio.ensure_future(call("/", headers=mallory, app=seats)) for _ in range(3)]
    await until(lambda: seats.places.waiting() == 3, "mallory's three are not waiting")
    player = asyncio.ensure_future(call("/", headers=honest, app=seats))
    bumped = await asyncio.wait_for(flood[2], 10)
    assert bumped["status"] == 429  # mallory's newest gave its place up
    await until(lambda: seats.places.waiting() == 3, "the honest player is not waiting")
    BlockingHasher.hold.set()
    answers = await asyncio.wait_for(asyncio.gather(login, player, *flood[:2]), 10)
    assert [a["status"] for a in answers] == [200, 200, 200, 200]
    assert not seats.held and not seats.waiters and seats.places.inside == 0


@pytest.mark.django_db
def test_only_a_live_signed_in_session_is_seated_first(make_player):
    """The page seats' first line takes the sessions this process has served
    signed in: a player's key after a page, no longer once they log out or
    an operator ends their sessions (a stolen old cookie waits with the
    visitors)."""
    player, other = make_player("seated-1"), make_player("seated-2")
    clients = []
    for user in (player, other):
        client = Client()
        client.force_login(user)
        assert client.get("/").status_code == 200
        clients.append(client)
    keys = [client.cookies["sessionid"].value for client in clients]
    assert all(key in signed_in_keys for key in keys)

    clients[0].post("/accounts/logout/")
    assert keys[0] not in signed_in_keys
    end_user_sessions(other.pk)
    assert keys[1] not in signed_in_keys
