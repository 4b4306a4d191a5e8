"""The front door's ASGI guards (casino/frontdoor/) inside the real ASGI application (casino.asgi), fed the
messages a server sends: a body in pieces, as a chunked upload streams, and
sockets from one address. The same attacks against a real server are in
tests/casino/test_front_door.py."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import ApplicationCommunicator, WebsocketCommunicator
from django.test import Client

from casino.asgi import application, django_asgi_app
from casino.frontdoor.body_limit import BodyLimit

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

LIMIT = 4096


@pytest.fixture(autouse=True)
def small_limits(settings):
    settings.CASINO_MAX_BODY_BYTES = LIMIT
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    settings.CASINO_SOCKETS_PER_ADDRESS = 2


def http_scope(headers=()) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/accounts/login/",
        "raw_path": b"/accounts/login/",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"localhost"),
            (b"content-type", b"application/x-www-form-urlencoded"),
            *headers,
        ],
        "client": ("127.0.0.9", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def answer(communicator: ApplicationCommunicator) -> tuple[int, bytes]:
    start = await communicator.receive_output(5)
    assert start["type"] == "http.response.start"
    body = b""
    while True:
        message = await communicator.receive_output(5)
        body += message.get("body", b"")
        if not message.get("more_body"):
            return start["status"], body


async def test_a_body_streamed_past_the_limit_is_refused_before_django_sees_it(
    requests_started,
):
    communicator = ApplicationCommunicator(application, http_scope())
    piece = b"a" * 1024
    for _ in range(LIMIT // len(piece)):
        await communicator.send_input({"type": "http.request", "body": piece, "more_body": True})
    # One byte past the limit, and the rest still to come.
    await communicator.send_input({"type": "http.request", "body": b"a", "more_body": True})
    status, body = await answer(communicator)
    await communicator.wait(5)
    assert status == 413
    assert b"too large" in body
    assert requests_started == [], "Django read the request"


async def test_a_body_at_the_limit_in_pieces_reaches_the_site_whole(requests_started):
    communicator = ApplicationCommunicator(application, http_scope())
    piece = b"a" * 1024
    for n in range(LIMIT // len(piece)):
        more = n < LIMIT // len(piece) - 1
        await communicator.send_input({"type": "http.request", "body": piece, "more_body": more})
    status, _body = await answer(communicator)
    await communicator.wait(5)
    assert status == 403  # Django's own answer: no CSRF token
    assert len(requests_started) == 1


async def test_a_declared_length_over_the_limit_is_refused_with_no_body_read(requests_started):
    communicator = ApplicationCommunicator(
        application, http_scope([(b"content-length", str(LIMIT + 1).encode())])
    )
    status, _body = await answer(communicator)  # nothing of the body was sent
    await communicator.wait(5)
    assert status == 413
    assert requests_started == []


async def test_a_length_that_is_no_number_is_refused(requests_started):
    communicator = ApplicationCommunicator(application, http_scope([(b"content-length", b"1e9")]))
    status, _body = await answer(communicator)
    await communicator.wait(5)
    assert status == 413
    assert requests_started == []


async def test_a_body_that_stalls_is_dropped_instead_of_held_open(requests_started):
    """A slow-body client (a piece, then nothing) does not hold its request
    for as long as it likes."""
    guarded = BodyLimit(django_asgi_app, body_gap=0.3)
    communicator = ApplicationCommunicator(guarded, http_scope())
    await communicator.send_input({"type": "http.request", "body": b"a=1", "more_body": True})
    status, _body = await answer(communicator)
    await communicator.wait(5)
    assert status == 408
    assert requests_started == []


async def test_the_refusal_speaks_the_browsers_language():
    communicator = ApplicationCommunicator(
        application,
        http_scope([(b"content-length", b"99999999"), (b"accept-language", b"en")]),
    )
    _status, body = await answer(communicator)
    await communicator.wait(5)
    assert body == b"The request is too large for this site.\n"


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def war_socket(cookie: bytes, address: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(
        application,
        "/ws/war/casino-war/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    socket.scope["client"] = (address, 50000)
    return socket


async def test_one_address_gets_no_more_sockets_than_the_cap_until_one_closes(make_player):
    player = await database_sync_to_async(make_player)()
    cookie = await database_sync_to_async(session_cookie)(player)
    held = []
    for _ in range(2):
        socket = await war_socket(cookie, "127.0.0.9")
        connected, _ = await socket.connect(timeout=5)
        assert connected
        held.append(socket)

    extra = await war_socket(cookie, "127.0.0.9")
    connected, _ = await extra.connect(timeout=5)
    assert not connected, "a third socket from the same address got in"
    neighbour = await war_socket(cookie, "127.0.0.10")
    connected, _ = await neighbour.connect(timeout=5)
    assert connected, "another address was held up"
    await neighbour.disconnect()

    await held.pop().disconnect()
    again = await war_socket(cookie, "127.0.0.9")
    connected, _ = await again.connect(timeout=5)
    assert connected, "a closed socket's place was not freed"
    for socket in [*held, again]:
        await socket.disconnect()
