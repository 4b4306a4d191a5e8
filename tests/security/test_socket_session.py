"""A table socket lives only as long as its session (games/services/sockets.py,
games/consumers/session.py): logging out in one tab closes the sockets of
the other tabs of that browser at once, on both games; so do a password
change and an operator deactivating the account; an expired session's
socket is closed at its expiry; and nothing is pushed after that. A round
over the socket reads the stored session first, so an end no push brought
still plays nothing, and playing restarts the idle clock."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from casino.asgi import application
from games.consumers.session import SESSION_END_CLOSE_CODE
from games.models import Round
from games.services import baccarat as baccarat_service
from games.services.faults import inject_fault
from tests.games.consumers.conftest import surrender_a_tie
from tests.tables import shown_version

pytestmark = [pytest.mark.waits, pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SOCKETS = ["/ws/war/casino-war/", "/ws/baccarat/baccarat-social/"]
CLOSED = {"type": "websocket.close", "code": SESSION_END_CLOSE_CODE}


def browser(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def tab(client: Client, path: str) -> WebsocketCommunicator:
    session = client.cookies["sessionid"].value
    headers = [
        (b"host", b"localhost:8000"),
        (b"origin", b"http://localhost:8000"),
        (b"cookie", f"sessionid={session}".encode()),
    ]
    return WebsocketCommunicator(application, path, headers=headers)


async def browser_expiring_in(make_player, *, seconds: float) -> Client:
    """A new player's logged-in browser whose session has ``seconds`` left."""
    player = await database_sync_to_async(make_player)()
    here = await database_sync_to_async(browser)(player)
    key = here.cookies["sessionid"].value
    await database_sync_to_async(Session.objects.filter(session_key=key).update)(
        expire_date=timezone.now() + dt.timedelta(seconds=seconds)
    )
    return here


async def opened(client: Client, path: str) -> WebsocketCommunicator:
    communicator = tab(client, path)
    connected, _ = await communicator.connect(timeout=3)
    assert connected
    return communicator


@pytest.mark.parametrize("path", SOCKETS)
async def test_logout_in_one_tab_closes_the_socket_of_another_tab(make_player, path):
    player = await database_sync_to_async(make_player)(chips=100)
    here = await database_sync_to_async(browser)(player)
    elsewhere = await database_sync_to_async(browser)(player)  # another browser
    other_tab = await opened(here, path)
    other_browser = await opened(elsewhere, path)

    response = await database_sync_to_async(here.post)(reverse("logout"))
    assert response.status_code == 302
    assert await other_tab.receive_output(timeout=3) == CLOSED
    # The player's other browser has its own session: it stays.
    assert await other_browser.receive_nothing(timeout=0.3)
    await other_browser.disconnect()


async def test_no_reveal_reaches_a_logged_out_tab(make_player):
    """A push already on its way when the session ends is not shown."""
    player = await database_sync_to_async(make_player)(chips=100)
    here = await database_sync_to_async(browser)(player)
    other_tab = await opened(here, "/ws/baccarat/baccarat-social/")
    layer = get_channel_layer()
    await layer.group_send(baccarat_service.reveal_group(player.pk), {"type": "session.end"})
    await layer.group_send(
        baccarat_service.reveal_group(player.pk),
        {"type": "round.reveal", "round_id": 1, "table": "baccarat-social"},
    )
    assert await other_tab.receive_output(timeout=3) == CLOSED
    assert await other_tab.receive_nothing(timeout=0.3)


@pytest.mark.parametrize("path", SOCKETS)
async def test_an_expired_sessions_socket_is_closed_at_its_expiry(make_player, path):
    # The player has been idle for almost the whole hour: one second left.
    here = await browser_expiring_in(make_player, seconds=1)
    socket = await opened(here, path)
    assert await socket.receive_nothing(timeout=0.5)  # still within the hour
    assert await socket.receive_output(timeout=3) == CLOSED


async def test_a_session_activity_keeps_the_socket_open(make_player, settings):
    """A page request in the meantime restarts the hour: the socket stays."""
    settings.CASINO_SOCKET_SESSION_CHECK = 0.5
    here = await browser_expiring_in(make_player, seconds=1)
    socket = await opened(here, SOCKETS[0])
    await database_sync_to_async(here.get)(reverse("lobby"))  # restarts the hour
    assert await socket.receive_nothing(timeout=2)
    await socket.disconnect()


async def test_a_session_check_that_failed_is_tried_again(make_player, settings):
    """The socket's watch of its session meets a database error (a restart,
    a failover): it tries again, and still closes the socket at its
    session's expiry."""
    settings.CASINO_SOCKET_SESSION_CHECK = 0.3
    here = await browser_expiring_in(make_player, seconds=1.5)
    with inject_fault("session.watch"):
        socket = await opened(here, SOCKETS[1])
        assert await socket.receive_nothing(timeout=1)  # every check fails meanwhile
    assert await socket.receive_output(timeout=3) == CLOSED


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_password_change_closes_the_players_sockets(make_player, path):
    player = await database_sync_to_async(make_player)()
    here = await database_sync_to_async(browser)(player)
    elsewhere = await database_sync_to_async(browser)(player)
    socket = await opened(elsewhere, path)
    response = await database_sync_to_async(here.post)(
        reverse("password_change"),
        {
            "old_password": "pw-Secret-123",
            "new_password1": "new-Secret-456",
            "new_password2": "new-Secret-456",
        },
    )
    assert response.status_code == 302
    assert await socket.receive_output(timeout=3) == CLOSED
    # The other browser's session is no longer valid: it cannot reopen one.
    again = tab(elsewhere, path)
    assert not (await again.connect(timeout=3))[0]


@pytest.mark.parametrize("path", SOCKETS)
async def test_an_operator_deactivating_the_account_closes_its_sockets(make_player, path):
    player = await database_sync_to_async(make_player)()
    here = await database_sync_to_async(browser)(player)
    socket = await opened(here, path)

    def deactivate() -> None:
        player.is_active = False
        player.save()

    await database_sync_to_async(deactivate)()
    assert await socket.receive_output(timeout=3) == CLOSED


async def test_saving_a_player_without_a_change_of_credentials_keeps_the_socket(make_player):
    player = await database_sync_to_async(make_player)()
    here = await database_sync_to_async(browser)(player)
    socket = await opened(here, SOCKETS[1])

    def rename() -> None:
        player.first_name = "Ann"
        player.save()

    await database_sync_to_async(rename)()
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


@pytest.mark.parametrize("path", SOCKETS)
async def test_one_player_holds_only_so_many_table_sockets(make_player, settings, path):
    """Found by a cold attack: one free account held 2,000 sockets from 200
    addresses, ten each, under the cap per address. Past
    ``CASINO_SOCKETS_PER_PLAYER`` the handshake is refused, from any
    address and any browser of that player; another player is not held
    back, and a place comes back once a socket closes."""
    settings.CASINO_SOCKETS_PER_PLAYER = 2
    player = await database_sync_to_async(make_player)(chips=100)
    other = await database_sync_to_async(make_player)(chips=100)
    browsers = [await database_sync_to_async(browser)(player) for _ in range(2)]
    held = [await opened(browsers[0], path), await opened(browsers[1], path)]
    refused, _ = await tab(browsers[1], path).connect(timeout=3)
    assert not refused
    someone_else = await opened(await database_sync_to_async(browser)(other), path)

    await held[0].disconnect()
    again = await opened(browsers[0], path)
    for socket in (held[1], again, someone_else):
        await socket.disconnect()


# A round over each socket, and what its last frame holds (War answers in
# one frame; Baccarat's reveal ends with the result).
ROUNDS = {
    "/ws/war/casino-war/": ({"action": "deal", "ante": "10", "tie_bet": ""}, ""),
    "/ws/baccarat/baccarat-social/": ({"action": "bet", "player": "10"}, 'data-phase="done"'),
}


async def play_round(socket: WebsocketCommunicator, path: str, slip_key: str) -> None:
    message, last = ROUNDS[path]
    if message["action"] == "bet":  # the table's version the Baccarat page shows
        message = {
            **message,
            "table_version": await database_sync_to_async(shown_version)(path.split("/")[3]),
        }
    await socket.send_to(text_data=json.dumps({**message, "slip_key": slip_key}))
    while True:
        frame = await socket.receive_from(timeout=5)
        assert "slip-error" not in frame, frame
        if last in frame:
            return


@database_sync_to_async
def rounds_played(user) -> int:
    return Round.objects.filter(player=user).count()


@pytest.mark.parametrize("how", ["deleted", "expired"])
@pytest.mark.parametrize("path", SOCKETS)
async def test_a_round_after_an_unheard_end_of_the_session_plays_nothing(make_player, path, how):
    """A logout whose push never came (the row gone) or an expiry between
    the socket's checks (the row past its date) ends the socket at the next
    round, and nothing is played."""
    player = await database_sync_to_async(make_player)(chips=100)
    here = await database_sync_to_async(browser)(player)
    socket = await opened(here, path)
    await play_round(socket, path, "first")  # the socket now holds the session
    await surrender_a_tie(player)
    stored = Session.objects.filter(session_key=here.cookies["sessionid"].value)
    if how == "deleted":
        await database_sync_to_async(stored.delete)()  # no push: straight from the table
    else:
        await database_sync_to_async(stored.update)(
            expire_date=timezone.now() - dt.timedelta(seconds=1)
        )
    message, _ = ROUNDS[path]
    await socket.send_to(text_data=json.dumps({**message, "slip_key": "second"}))
    assert await socket.receive_output(timeout=3) == CLOSED
    assert await rounds_played(player) == 1


@pytest.mark.parametrize("path", SOCKETS)
async def test_playing_over_the_socket_restarts_the_sessions_idle_clock(make_player, path):
    """A round over the socket is activity, as a request is: a session whose
    stored expiry lags by half an hour has its hour started again."""
    player = await database_sync_to_async(make_player)(chips=100)
    here = await database_sync_to_async(browser)(player)
    socket = await opened(here, path)
    await play_round(socket, path, "first")
    await surrender_a_tie(player)
    stored = Session.objects.filter(session_key=here.cookies["sessionid"].value)
    # As if the session were last written half an hour ago.
    await database_sync_to_async(stored.update)(
        expire_date=timezone.now() + dt.timedelta(minutes=30)
    )
    await play_round(socket, path, "second")
    expiry = await database_sync_to_async(lambda: stored.get().expire_date)()
    assert expiry - timezone.now() > dt.timedelta(minutes=59)
    await socket.disconnect()
