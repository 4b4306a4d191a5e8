"""The table sockets open only for the logged-in player, from the site's own
pages, and carry only that player's rounds.

Every socket here goes through the real ``casino.asgi.application``: the
origin check (casino/frontdoor/origin.py: scheme, host and port), the session cookie
(``AuthMiddlewareStack``) and the routing, as a browser's would. A socket
refused before its handshake completes is answered 403 by the server
(checked over a real server in tests/casino/test_production.py).
"""

from __future__ import annotations

import datetime as dt

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from casino.asgi import application
from games.models import Profile, Round, Table
from games.services import baccarat as baccarat_service
from games.services import war as war_service
from tests.games.consumers.conftest import session_id
from tests.security.conftest import CLIENT_SEED, read_books, war_seed
from tests.security.totp import code_now, enrolled

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

WAR_SOCKET = "/ws/war/casino-war/"
BACCARAT_SOCKET = "/ws/baccarat/baccarat-social/"
SOCKETS = [WAR_SOCKET, BACCARAT_SOCKET]
OWN_ORIGIN = b"http://localhost:8000"


@pytest.fixture(autouse=True)
def quick_reveal(settings):
    settings.CASINO_REVEAL_DELAY = 0.01
    settings.CASINO_REVEAL_FAST_DELAY = 0.001


async def session_key(user) -> str:
    return await database_sync_to_async(session_id)(user)


def socket(
    path: str,
    *,
    session: str | None = None,
    origin: bytes | None = OWN_ORIGIN,
    host: bytes = b"localhost:8000",
) -> WebsocketCommunicator:
    headers = [(b"host", host), (b"accept-language", b"en")]
    if origin is not None:
        headers.append((b"origin", origin))
    if session is not None:
        headers.append((b"cookie", f"sessionid={session}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def refused(communicator: WebsocketCommunicator) -> bool:
    connected, _code = await communicator.connect(timeout=3)
    if connected:
        await communicator.disconnect()
    return not connected


@pytest.mark.parametrize("path", SOCKETS)
async def test_it_lets_the_logged_in_player_in_from_the_sites_own_pages(make_player, path):
    key = await session_key(await database_sync_to_async(make_player)())
    # The page's origin is the origin the socket is served on.
    for host, origin in (
        (b"localhost:8000", OWN_ORIGIN),
        (b"127.0.0.1:8000", b"http://127.0.0.1:8000"),
        (b"localhost", b"http://localhost"),
        (b"localhost", b"http://localhost:80"),
    ):
        communicator = socket(path, session=key, origin=origin, host=host)
        connected, _ = await communicator.connect(timeout=3)
        assert connected, origin
        await communicator.disconnect()


@pytest.mark.parametrize("path", SOCKETS)
async def test_it_refuses_another_port_or_scheme_of_the_sites_host(make_player, path):
    """Another port of an allowed host is another origin (another program on
    the player's machine, a forgotten test server), and so is the other scheme."""
    key = await session_key(await database_sync_to_async(make_player)())
    for origin in (
        b"http://localhost:1",
        b"http://localhost:8001",
        b"http://localhost",
        b"https://localhost:8000",
        b"https://localhost",
        b"ws://localhost:8000",
        b"http://127.0.0.1:8000",  # another host name of the same machine
        b"http://localhost:notaport",
    ):
        assert await refused(socket(path, session=key, origin=origin)), origin


async def test_an_origin_listed_as_trusted_is_let_in(make_player, settings):
    """An operator serving the pages from another origin lists it in
    CSRF_TRUSTED_ORIGINS (as Django wants for form posts); only that origin."""
    settings.CSRF_TRUSTED_ORIGINS = ["https://casino.example"]
    key = await session_key(await database_sync_to_async(make_player)())
    communicator = socket(BACCARAT_SOCKET, session=key, origin=b"https://casino.example")
    assert (await communicator.connect(timeout=3))[0]
    await communicator.disconnect()
    for origin in (b"http://casino.example", b"https://casino.example:8443"):
        assert await refused(socket(BACCARAT_SOCKET, session=key, origin=origin)), origin


def staff_session(user, *, with_code: bool) -> str:
    """The session cookie of a staff member past the password, and past the
    authenticator's code too if ``with_code``."""
    client = Client()
    client.force_login(user)
    if with_code:
        client.post(reverse("staff_otp_verify"), {"code": code_now(enrolled(user))})
    return client.cookies["sessionid"].value


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_staff_session_owing_its_code_gets_no_socket(make_player, settings, path):
    """A staff password alone plays nothing over a socket either (casino/otp.py)."""
    settings.CASINO_STAFF_OTP = True
    member = await database_sync_to_async(make_player)("pit-boss", is_staff=True)
    key = await database_sync_to_async(staff_session)(member, with_code=False)
    assert await refused(socket(path, session=key))
    key = await database_sync_to_async(staff_session)(member, with_code=True)
    communicator = socket(path, session=key)
    assert (await communicator.connect(timeout=3))[0]
    await communicator.disconnect()


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_host_outside_allowed_hosts_gets_no_socket(make_player, path):
    key = await session_key(await database_sync_to_async(make_player)())
    evil = b"evil.example:8000"
    assert await refused(socket(path, session=key, origin=b"http://" + evil, host=evil))


@pytest.mark.parametrize("path", SOCKETS)
async def test_it_refuses_a_page_from_another_site(make_player, path):
    """Cross-site WebSocket hijacking: another site's page in the player's
    browser sends the player's cookie but its own Origin."""
    key = await session_key(await database_sync_to_async(make_player)())
    for origin in (
        b"http://evil.example",
        b"https://localhost.evil.example",
        b"http://localhost@evil.example",
        b"http://evil.example/localhost",
        # The site's own origin dressed up: an Origin is scheme, host and
        # port alone, and no browser sends one with more.
        b"http://evil.example@localhost:8000",
        b"http://user:pw@localhost:8000",
        b"http://localhost:8000/",
        b"http://localhost:8000/page",
        b"http://localhost:8000?x=1",
        b"http://localhost:8000#x",
        b"null",
        b"",
        None,  # no Origin header at all
    ):
        assert await refused(socket(path, session=key, origin=origin)), origin


@pytest.mark.parametrize("path", SOCKETS)
async def test_it_refuses_a_socket_without_a_live_session(make_player, path):
    user = await database_sync_to_async(make_player)()
    expired = await session_key(user)
    await database_sync_to_async(Session.objects.filter(session_key=expired).update)(
        expire_date=timezone.now() - dt.timedelta(seconds=1)
    )
    logged_out = await session_key(user)
    await database_sync_to_async(Session.objects.filter(session_key=logged_out).delete)()
    for session in (None, "", "not-a-session", "x" * 500, expired, logged_out):
        assert await refused(socket(path, session=session)), session


async def test_an_unknown_table_has_no_socket(make_player):
    key = await session_key(await database_sync_to_async(make_player)())
    # A table socket on the other game's table, an unknown slug, and any
    # path that is no table's socket are refused at the handshake.
    for path in (
        "/ws/baccarat/casino-war/",
        "/ws/baccarat/no-such-table/",
        "/ws/war/baccarat-social/",
        "/ws/war/no-such-table/",
        "/ws/",
        "/ws/nothing/",
        "/ws/war/casino-war/x",
        "/ws/baccarat/baccarat-social/extra/",
    ):
        assert await refused(socket(path, session=key)), path


async def _reveal_of(communicator: WebsocketCommunicator) -> list[str]:
    messages = []
    while True:
        message = await communicator.receive_from(timeout=5)
        messages.append(message)
        if 'data-phase="done"' in message:
            return messages


async def test_a_player_never_receives_another_players_reveal(make_player):
    alice, bob = [await database_sync_to_async(make_player)(name, chips=100) for name in "ab"]
    alice_socket = socket(BACCARAT_SOCKET, session=await session_key(alice))
    bob_socket = socket(BACCARAT_SOCKET, session=await session_key(bob))
    assert (await alice_socket.connect(timeout=5))[0]
    assert (await bob_socket.connect(timeout=5))[0]

    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-social")
    rnd = await database_sync_to_async(baccarat_service.place_bet)(
        user=bob, table=table, bets={"banker": 500}, slip_key="bob-1"
    )
    shown = await _reveal_of(bob_socket)
    assert f'data-round="{rnd.pk}"' in shown[-1]
    assert await alice_socket.receive_nothing(timeout=0.3)

    # Even an event on Alice's own group naming Bob's round shows her nothing:
    # the consumer reads only rounds of the socket's own player.
    await get_channel_layer().group_send(
        baccarat_service.reveal_group(alice.pk),
        {"type": "round.reveal", "round_id": rnd.pk, "table": "baccarat-social"},
    )
    assert await alice_socket.receive_nothing(timeout=0.3)
    # And a frame from the browser pretending to be that event is just text.
    await alice_socket.send_json_to(
        {"type": "round.reveal", "round_id": rnd.pk, "table": "baccarat-social"}
    )
    assert await alice_socket.receive_nothing(timeout=0.3)
    await alice_socket.disconnect()
    await bob_socket.disconnect()


async def test_another_players_war_timeout_never_reaches_a_player(make_player, quick_war):
    """Bob's tie decision ran out: his socket is closed (he is taken off the
    table), Alice's at the same table stays open, whatever is sent to Bob."""
    alice, bob = [await database_sync_to_async(make_player)(name, chips=100) for name in "ab"]
    await database_sync_to_async(Profile.objects.filter(user=bob).update)(
        next_server_seed=war_seed(True), client_seed=CLIENT_SEED, nonce=0
    )
    rnd = await database_sync_to_async(war_service.deal)(
        user=bob, table=quick_war, ante=500, tie_bet=0, slip_key="bob-tie"
    )
    assert rnd.status == Round.Status.OPEN
    await database_sync_to_async(Round.objects.filter(pk=rnd.pk).update)(
        decision_deadline=timezone.now() - dt.timedelta(minutes=1)
    )
    path = "/ws/war/quick-war/"
    alice_socket = socket(path, session=await session_key(alice))
    assert (await alice_socket.connect(timeout=5))[0]
    bob_socket = socket(path, session=await session_key(bob))
    assert (await bob_socket.connect(timeout=5))[0]
    closed = await bob_socket.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4000}

    await get_channel_layer().group_send(
        war_service.group_name(bob.pk), {"type": "war.update", "slug": "quick-war"}
    )
    assert await alice_socket.receive_nothing(timeout=0.3)
    books = await database_sync_to_async(read_books)()
    assert books.rounds[rnd.pk][0] == Round.Status.OPEN  # Bob's round is saved
    await alice_socket.disconnect()
