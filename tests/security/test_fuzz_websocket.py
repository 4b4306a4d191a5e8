"""Garbage on the table sockets: random JSON, non-JSON, binary and huge
frames never crash a consumer, never reach another player and never move a
chip.

The sockets go through the real ASGI application with a logged-in session.
After each example the consumer must still be running (its application task
not finished) and answer a well-formed message, and the books must be as
before.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import example, given
from hypothesis import strategies as st

from casino.asgi import application
from games.models import Table
from games.services import baccarat as baccarat_service
from tests.security.conftest import FUZZ, SENDABLE, read_books

pytestmark = [pytest.mark.waits, pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

BACCARAT_SOCKET = "/ws/baccarat/baccarat-social/"
WAR_SOCKET = "/ws/war/casino-war/"

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(SENDABLE, max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(SENDABLE, max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
ACTIONS = st.fixed_dictionaries(
    {
        "action": st.one_of(
            st.sampled_from(
                [
                    "speed",
                    "continue",
                    "peel_start",
                    "bet",
                    "peel",
                    "squeeze",
                    "deal",
                    "decide",
                    "",
                    "SPEED",
                ]
            ),
            JSON_VALUES,
        )
    },
    optional={
        "fast": JSON_VALUES,
        "round_id": JSON_VALUES,
        "area": st.sampled_from(["player", "banker", "dragon"]),
        "slot": st.one_of(st.sampled_from(["p1", "b3", "x9", ""]), JSON_VALUES),
        "amount": JSON_VALUES,
        "user_id": st.integers(),
        "type": st.sampled_from(["round.reveal", "speed.changed", "war.update", "websocket.close"]),
        "HEADERS": JSON_VALUES,
    },
)
FRAMES = st.one_of(
    ACTIONS.map(json.dumps),
    JSON_VALUES.map(json.dumps),
    st.text(SENDABLE, max_size=200),
    st.binary(max_size=200),
    st.sampled_from(["", "null", "{", '{"action": "speed", "fast": ', "[]", "NaN", "Infinity"]),
)
HUGE = "x" * 1_000_000


def _session_key(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def open_socket(path: str, user) -> WebsocketCommunicator:
    key = await database_sync_to_async(_session_key)(user)
    communicator = WebsocketCommunicator(
        application,
        path,
        headers=[
            (b"host", b"localhost"),
            (b"origin", b"http://localhost"),
            (b"cookie", f"sessionid={key}".encode()),
        ],
    )
    connected, _ = await communicator.connect(timeout=3)
    assert connected
    return communicator


async def send(communicator: WebsocketCommunicator, frame: str | bytes) -> None:
    """One frame as the server hands it to the consumer (empty ones too,
    which ``send_to`` refuses to build)."""
    key = "bytes" if isinstance(frame, bytes) else "text"
    await communicator.send_input({"type": "websocket.receive", key: frame})


async def drain(communicator: WebsocketCommunicator) -> list[dict]:
    """Everything the consumer sent back; a close or a crash fails the test."""
    out = []
    while not await communicator.receive_nothing(timeout=0.05):
        message = await communicator.receive_output()
        assert message["type"] == "websocket.send", message
        out.append(message)
    assert not communicator.future.done(), "the consumer stopped"
    return out


@pytest.fixture
def player(make_player):
    return make_player(chips=100)


@pytest.fixture
def quick_reveal(settings):
    settings.CASINO_REVEAL_DELAY = 0.01
    settings.CASINO_REVEAL_FAST_DELAY = 0.001


@FUZZ
@given(frames=st.lists(FRAMES, min_size=1, max_size=8))
@example(frames=[HUGE])
@example(frames=[b"\x00\xff" * 50, "", "null", "[1, 2]"])
@example(frames=[json.dumps({"action": "speed", "fast": {"a": [1, None]}})])
@example(frames=[json.dumps({"action": "continue"})] * 5)
async def test_the_baccarat_socket_survives_any_frame(player, quick_reveal, frames):
    before = await database_sync_to_async(read_books)()
    communicator = await open_socket(BACCARAT_SOCKET, player)
    for frame in frames:
        await send(communicator, frame)
    await drain(communicator)
    # Still alive: a well-formed speed change is answered with its control
    # (after any answer still on its way: a BET's refusal runs the pipeline).
    await communicator.send_json_to({"action": "speed", "fast": False})
    answer = await communicator.receive_from(timeout=3)
    while 'id="bac-speed"' not in answer:
        assert 'data-testid="slip-error"' in answer, answer[:200]
        answer = await communicator.receive_from(timeout=3)
    await communicator.disconnect()
    assert await database_sync_to_async(read_books)() == before


@FUZZ
@given(frames=st.lists(FRAMES, min_size=1, max_size=8))
@example(frames=[HUGE])
@example(frames=[json.dumps({"type": "war.update", "slug": "casino-war"})])
async def test_the_war_socket_survives_any_frame(player, frames):
    before = await database_sync_to_async(read_books)()
    communicator = await open_socket(WAR_SOCKET, player)
    for frame in frames:
        await send(communicator, frame)
    # The War socket answers only a DEAL or a decision, and these (never
    # well-formed here: no slip key, no round of the player's) with a refusal.
    await asyncio.sleep(0.2)  # a refusal runs the pipeline in a thread
    for answer in await drain(communicator):
        assert 'data-testid="war-message"' in answer["text"], answer
        assert 'id="war-round"' not in answer["text"]
    await communicator.disconnect()
    assert await database_sync_to_async(read_books)() == before


async def test_garbage_during_a_reveal_neither_stops_it_nor_moves_chips(player, quick_reveal):
    communicator = await open_socket(BACCARAT_SOCKET, player)
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-social")
    rnd = await database_sync_to_async(baccarat_service.place_bet)(
        user=player, table=table, bets={"player": 500}, slip_key="reveal"
    )
    after_bet = await database_sync_to_async(read_books)()
    for frame in ("{", HUGE, json.dumps({"action": "continue", "round_id": rnd.pk + 1})):
        await communicator.send_to(text_data=frame)
    await communicator.send_json_to({"action": "speed", "fast": "maybe"})
    seen = []
    while not any('data-phase="done"' in m for m in seen):
        seen.append(await communicator.receive_from(timeout=5))
    assert f'data-round="{rnd.pk}"' in seen[-1]
    await communicator.disconnect()
    assert await database_sync_to_async(read_books)() == after_bet


async def test_deeply_nested_json_does_not_kill_the_baccarat_socket(player):
    """Found by the sweep: json.loads raises RecursionError (not ValueError)
    on deep nesting, which used to end the consumer. Both a frame past the
    size limit and one under it but nested past the recursion limit."""
    communicator = await open_socket(BACCARAT_SOCKET, player)
    for depth in (100_000, 2_000):
        await communicator.send_to(text_data="[" * depth + "]" * depth)
        await drain(communicator)
    await communicator.send_json_to({"action": "speed", "fast": True})
    assert 'id="bac-speed"' in await communicator.receive_from(timeout=3)
    await communicator.disconnect()
