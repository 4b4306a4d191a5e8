"""The live squeeze over the table's socket (games/consumers/live_squeeze.py):
the peeler's moves reach every other page at the table; a watcher's, the
other side's peeler's, a move for a card not being peeled, or one whose
numbers are not numbers in range, reach nobody; only the peeler opens the
card; a watcher flooding peel moves is cut off by the socket's budget; and
a peeler's several tabs relay no more moves than one."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.consumers.limits import MessageBudget
from games.models import Coup, Round, Table
from games.services import live, live_squeeze
from games.services.tables import save_table, table_snapshot
from tests.games.consumers.conftest import baccarat_socket
from tests.live import shoe_under_way

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

MOVE = {"x0": 0.5, "y0": 1.0, "nx": 0.0, "ny": -1.0, "depth": 0.4}


@database_sync_to_async
def squeezing_table(make_player):
    """A coup being squeezed now: ann peels PLAYER, bob BANKER, cat watches."""
    table = Table.objects.get(slug="baccarat-live")
    before = table_snapshot(table)
    table.squeeze_threshold = 5_000
    save_table(table=table, actor=None, before=before)
    now = timezone.now()
    ann, bob, cat = (make_player(chips=1_000) for _ in range(3))
    shoe_under_way(table, make_player(chips=1_000), next_opens_at=now - dt.timedelta(seconds=20))
    live.advance(table, now=now - dt.timedelta(seconds=20))
    for user, slip in ((ann, {"player": 6_000}), (bob, {"banker": 8_000}), (cat, {"player": 10})):
        live.place_bet(
            user=user, table=table, bets=slip, slip_key="s", now=now - dt.timedelta(seconds=19)
        )
    assert live.advance(table, now=now).did == "squeezing"
    return table, ann, bob, cat


async def seated(*users):
    sockets = []
    for user in users:
        socket = await baccarat_socket(user, "baccarat-live", kind="live")
        assert (await socket.connect(timeout=5))[0]
        arrival = await socket.receive_from()
        assert 'data-testid="live-squeeze"' in arrival and 'data-slot="p2"' in arrival
        sockets.append(socket)
    return sockets


async def state_from(socket) -> str:
    while 'id="live-state"' not in (said := await socket.receive_from()):
        pass
    return said


def peel(slot: str, **fields) -> str:
    return json.dumps({"action": "peel", "slot": slot, **fields})


@database_sync_to_async
def coup_now(table) -> Coup:
    return Coup.objects.filter(table=table).first()  # the latest


async def test_only_the_peelers_moves_reach_the_table(make_player):
    table, ann, bob, cat = await squeezing_table(make_player)
    a, b, c = await seated(ann, bob, cat)
    # Not the peeler of the card being peeled (PLAYER's 2nd): nobody hears it.
    await c.send_to(text_data=peel("p2", **MOVE))  # a watcher with a PLAYER stake
    await b.send_to(text_data=peel("p2", **MOVE))  # the BANKER's peeler
    await a.send_to(text_data=peel("b2", **MOVE))  # the right peeler, a card not being peeled
    await a.send_to(text_data=peel("p2", **{**MOVE, "depth": 5}))  # out of range
    await a.send_to(text_data=peel("p2", **{**MOVE, "depth": "0.5"}))  # not a number
    await a.send_to(text_data=peel("p2", **{**MOVE, "depth": True}))
    for socket in (a, b, c):
        assert await socket.receive_nothing(timeout=0.2)
    # The peeler's move reaches everybody else, written from its numbers.
    await a.send_to(text_data=peel("p2", **MOVE, extra="<script>"))
    for watcher in (b, c):
        move = await watcher.receive_from()
        assert 'id="live-peel-move"' in move and 'data-slot="p2"' in move
        assert 'data-depth="0.400"' in move and "script" not in move
    assert await a.receive_nothing(timeout=0.2)  # its own page drew it already
    for socket in (a, b, c):
        await socket.disconnect()


async def test_only_the_peeler_opens_the_card_and_everybody_sees_it_open(make_player):
    table, ann, bob, cat = await squeezing_table(make_player)
    a, b, c = await seated(ann, bob, cat)
    for socket, slot in ((c, "p2"), (b, "p2"), (a, "b2")):
        await socket.send_to(text_data=peel(slot, open=True))
    for socket in (a, b, c):
        assert await socket.receive_nothing(timeout=0.2)
    coup = await coup_now(table)
    assert coup.squeeze["peeled"] == 0

    await a.send_to(text_data=peel("p2", open=True))
    said = [await socket.receive_from() for socket in (a, b, c)]
    coup = await coup_now(table)  # (the OPEN is done once its state is out)
    p2 = coup.cards[2]
    for state in said:
        assert 'data-slot="b2"' in state  # the BANKER's 2nd card is peeled next
        assert f'data-card="{p2}"' in state  # the PLAYER's 2nd is open for all
    # The BANKER's peeler, and then whoever peels next, open the rest: the coup settles.
    while (turn := live_squeeze.current(coup)) is not None:
        peeler = a if turn.side == "player" else b
        await peeler.send_to(text_data=peel(turn.slot, open=True))
        for socket in (a, b, c):
            await state_from(socket)  # (with the last card, the seat's balance too)
        coup = await coup_now(table)
    assert coup.status == Coup.Status.DEALT
    statuses = await database_sync_to_async(
        lambda: set(Round.objects.values_list("status", flat=True))
    )()
    assert statuses == {Round.Status.SETTLED}
    for socket in (a, b, c):
        await socket.disconnect()


async def test_a_watcher_flooding_peel_moves_is_cut_off(make_player, settings):
    settings.CASINO_TABLE_ACTIONS_PER_SECOND = 1
    settings.CASINO_TABLE_ACTION_BURST = 2
    table, ann, bob, cat = await squeezing_table(make_player)
    (c,) = await seated(cat)
    for _ in range(MessageBudget.MAX_REFUSED + 5):
        await c.send_to(text_data=peel("p2", **MOVE))
    while True:
        output = await c.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            break
    assert output["code"] == MessageBudget.CLOSE_CODE


async def test_a_peeler_with_two_tabs_relays_no_more_moves_than_one_tab(make_player):
    """Each socket has its own message budget: a peeler's script sending moves
    from two tabs at once would make every page at the table draw twice as
    many. A card's moves are relayed at most one every RELAY_SECONDS."""
    table, ann, bob, cat = await squeezing_table(make_player)
    a1, a2, c = await seated(ann, ann, cat)
    for k in range(10):
        for tab in (a1, a2):
            await tab.send_to(text_data=peel("p2", **{**MOVE, "depth": k / 10}))
    heard = []
    while not await c.receive_nothing(timeout=0.3):
        heard.append(await c.receive_from())
    assert heard and all('id="live-peel-move"' in move for move in heard)
    assert len(heard) <= 3, len(heard)  # 20 sent within a few milliseconds
    # A move after the pause is relayed again.
    await a2.send_to(text_data=peel("p2", **MOVE))
    assert 'data-depth="0.400"' in await c.receive_from()
    for socket in (a1, a2, c):
        await socket.disconnect()
