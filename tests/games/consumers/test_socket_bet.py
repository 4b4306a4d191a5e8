"""BET over the Baccarat table's socket, as the page sends it with the socket
open: one message with the slip's fields, answered on the same socket with
BET's fragments and then the reveal of the round it made.

Everything the HTTP BET promises holds on the socket: each refusal with the
same message and nothing taken, a slip key sent twice makes one round, the
ledger exact, a session that ended ends the socket instead of betting, and
a script that floods the socket is refused, then cut off. Each refusal runs
over both transports (``transport``) and must read the same.

Sockets go through the real ASGI application (origin check, session cookie,
auth); rounds through the real pipeline.
"""

from __future__ import annotations

import asyncio
import json
import re
from functools import cache
from importlib import import_module

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import reverse

from casino.asgi import application
from games.baccarat.rules import play_coup
from games.consumers.limits import MessageBudget
from games.consumers.session import SESSION_END_CLOSE_CODE
from games.models import Profile, Round, Table
from games.services import play_safe
from games.services.baccarat import reveal_group
from games.services.faults import inject_fault
from games.services.tables import snapshot_version
from tests.games.consumers.conftest import books
from tests.seeds import find_seed
from tests.tables import shown_version

pytestmark = [pytest.mark.waits, pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SLUG = "baccarat-classic"  # PLAYER/BANKER MIN 0.10; TIE 10-2,000
PLACED = re.compile(r'id="bac-placed"[^>]*data-round="(\d+)"')
ERROR = re.compile(r'data-testid="slip-error">([^<]*)<')
START = 100_000  # units: the player's 1,000 chips


@pytest.fixture
def player(rich_player):
    return rich_player


class Tab:
    """One logged-in browser tab at the table: its HTTP client and, once
    opened, its socket, on the same session. Its BET sends the table's
    version its page showed when the tab was opened, as the page does."""

    def __init__(self, client: Client, version: str) -> None:
        self.client = client
        self.version = version
        self.socket: WebsocketCommunicator | None = None

    @classmethod
    async def of(cls, user) -> Tab:
        def logged_in() -> Client:
            client = Client(HTTP_ACCEPT_LANGUAGE="en")
            client.force_login(user)
            return client

        client = await database_sync_to_async(logged_in)()
        return cls(client, await database_sync_to_async(shown_version)(SLUG))

    @property
    def session_key(self) -> str:
        return self.client.cookies[settings.SESSION_COOKIE_NAME].value

    async def open(self) -> WebsocketCommunicator:
        cookie = f"{settings.SESSION_COOKIE_NAME}={self.session_key}; django_language=en"
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        self.socket = WebsocketCommunicator(
            application, f"/ws/baccarat/{SLUG}/", headers=[*headers, (b"cookie", cookie.encode())]
        )
        connected, _ = await self.socket.connect(timeout=5)
        assert connected
        return self.socket

    async def bet_over_socket(self, fields: dict[str, str]) -> str:
        assert self.socket is not None
        message = {"action": "bet", "table_version": self.version, **fields}
        await self.socket.send_to(text_data=json.dumps(message))
        return await self.socket.receive_from(timeout=5)

    async def bet_over_http(self, fields: dict[str, str]) -> str:
        post = database_sync_to_async(self.client.post)
        response = await post(
            reverse("baccarat_bet", args=[SLUG]),
            {"table_version": self.version, **fields},
            HTTP_HX_REQUEST="true",
        )
        return response.content.decode()

    async def until_done(self) -> list[str]:
        assert self.socket is not None
        frames = []
        while True:
            frame = await self.socket.receive_from(timeout=5)
            frames.append(frame)
            if 'id="bac-phase"' in frame and 'data-phase="done"' in frame:
                return frames


@database_sync_to_async
def set_daily_limit(user, units: int) -> None:
    with transaction.atomic():
        play_safe.set_loss_limit(user=user, period="day", amount=units)


@database_sync_to_async
def rounds_of(user) -> list[Round]:
    return list(Round.objects.filter(player=user).order_by("id"))


@pytest.mark.engines
async def test_a_whole_round_is_bet_answered_and_revealed_over_the_socket(player):
    tab = await Tab.of(player)
    await tab.open()
    answer = await tab.bet_over_socket({"slip_key": "k1", "banker": "50", "player_pair": "10"})
    (rnd,) = await rounds_of(player)
    # BET's answer, as the HTTP BET renders it: the slip is spent.
    assert PLACED.search(answer).group(1) == str(rnd.pk)
    assert 'id="bac-fairness"' in answer and 'id="bac-rebet"' in answer
    assert rnd.bets == {"banker": 5_000, "player_pair": 1_000}
    # Then the reveal of that round, card by card, to its result.
    frames = await tab.until_done()
    assert 'data-phase="revealing"' in frames[0]
    opened = [c for f in frames for c in re.findall(r'data-card="(\w\w)"', f)]
    for code in rnd.cards:
        assert code in opened
    assert f'data-winner="{rnd.winner}"' in frames[-1]
    shown = re.search(r'data-testid="table-balance">([\d,.]+)<', frames[-1]).group(1)
    assert float(shown.replace(",", "")) == rnd.balance_after / 100
    # The ledger is exact: the stakes out, what came back in.
    balance, count, _ = await books(player)
    assert count == 1 and balance == START - rnd.total_bet + rnd.total_return
    assert await tab.socket.receive_nothing(timeout=0.2)  # nothing more, nothing twice
    await tab.socket.disconnect()


@pytest.mark.engines
async def test_a_slip_key_sent_twice_makes_one_round_and_shows_it_once(player):
    tab = await Tab.of(player)
    await tab.open()
    first = await tab.bet_over_socket({"slip_key": "twice", "player": "10"})
    await tab.until_done()
    again = await tab.bet_over_socket({"slip_key": "twice", "player": "10"})
    assert PLACED.search(again).group(1) == PLACED.search(first).group(1)
    assert await tab.socket.receive_nothing(timeout=0.3)  # no second reveal
    balance, count, entries = await books(player)
    (rnd,) = await rounds_of(player)
    assert count == 1 and balance == START - rnd.total_bet + rnd.total_return
    # The same key over HTTP (a page whose socket had dropped) is the same round too.
    html = await tab.bet_over_http({"slip_key": "twice", "player": "10"})
    assert PLACED.search(html).group(1) == str(rnd.pk)
    assert await books(player) == (balance, 1, entries)
    await tab.socket.disconnect()


@pytest.mark.parametrize("transport", ["http", "socket"])
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"player": "10", "banker": "10"}, "PLAYER and BANKER cannot both be bet"),
        ({"tie": "2100"}, "maximum bet on TIE is 2,000"),
        ({"player": "1100"}, "needs 1,100 and your balance is 1,000"),
        ({"tie": "5"}, "minimum bet on TIE is 10"),
        ({"dragon": "5"}, "Place at least one chip"),
        ({"player": "10.55"}, "Bets are made in steps of 0.10 chips"),
        ({"player": "1e3"}, "written with the digits 0-9"),
        ({"player": "1e999999999"}, "written with the digits 0-9"),
        ({"player": "１０"}, "written with the digits 0-9"),
        ({"player": "9" * 400}, "written with the digits 0-9"),
        ({"player": "10", "slip_key": ""}, "This bet slip has expired"),
        # A page that sent no version (an old client) or an older one.
        ({"player": "10", "table_version": ""}, "paytable or limits changed"),
        ({"player": "10", "table_version": "0"}, "paytable or limits changed"),
    ],
)
async def test_each_refusal_reads_the_same_over_both_transports_and_takes_nothing(
    player, transport, fields, message
):
    tab = await Tab.of(player)
    fields = {"slip_key": "refused", **fields}
    if transport == "socket":
        await tab.open()
        answer = await tab.bet_over_socket(fields)
    else:
        answer = await tab.bet_over_http(fields)
    assert message in ERROR.search(answer).group(1)
    assert not PLACED.search(answer)  # the browser keeps the slip to fix it
    assert await books(player) == (START, 0, player.start_rows)
    if tab.socket is not None:
        assert await tab.socket.receive_nothing(timeout=0.2)  # no reveal
        await tab.socket.disconnect()


@database_sync_to_async
def change_the_paytable(tie: str) -> int:
    """The operator changes TIE's payout: a new version of the table."""
    table = Table.objects.get(slug=SLUG)
    table.pays = {**table.pays, "tie": tie}
    table.save(update_fields=["pays"])
    return snapshot_version(table=table).number


@pytest.mark.parametrize("transport", ["http", "socket"])
async def test_a_bet_from_a_page_with_an_older_paytable_shows_the_new_one_and_takes_nothing(
    player, transport
):
    tab = await Tab.of(player)  # the page shows TIE x9
    if transport == "socket":
        await tab.open()
    number = await change_the_paytable("7")
    bet = tab.bet_over_socket if transport == "socket" else tab.bet_over_http
    answer = await bet({"slip_key": "stale", "tie": "10"})
    assert "paytable or limits changed" in ERROR.search(answer).group(1)
    assert not PLACED.search(answer)
    assert await books(player) == (START, 0, player.start_rows)
    # The page now shows the new payout, and its next BET names the new version.
    assert 'id="bac-areas"' in answer and "×7<" in answer
    assert f'name="table_version" value="{number}"' in answer
    tab.version = str(number)
    assert PLACED.search(await bet({"slip_key": "fresh", "tie": "10"}))
    if tab.socket is not None:
        await tab.until_done()
        await tab.socket.disconnect()


async def test_json_values_that_are_not_amounts_are_refused(player):
    tab = await Tab.of(player)
    await tab.open()
    for value in ([10], {"chips": 10}, True, -5, 1e999):
        answer = await tab.bet_over_socket({"slip_key": "odd", "player": value})
        assert ERROR.search(answer), value
    assert await books(player) == (START, 0, player.start_rows)
    await tab.socket.disconnect()


@pytest.mark.parametrize("transport", ["http", "socket"])
async def test_a_loss_limit_refuses_over_both_transports_with_the_play_safe_note(player, transport):
    await set_daily_limit(player, 500)  # 5 chips
    tab = await Tab.of(player)
    fields = {"slip_key": "limit", "player": "10"}
    if transport == "socket":
        await tab.open()
        answer = await tab.bet_over_socket(fields)
        await tab.socket.disconnect()
    else:
        answer = await tab.bet_over_http(fields)
    assert "loss limit" in ERROR.search(answer).group(1).lower()
    assert 'data-testid="limit-refusal"' in answer
    assert await books(player) == (START, 0, player.start_rows)


async def test_a_failure_while_dealing_is_explained_and_nothing_is_taken(player):
    tab = await Tab.of(player)
    await tab.open()
    with inject_fault("baccarat.after_debit"):
        answer = await tab.bet_over_socket({"slip_key": "fault", "player": "100"})
    assert "Something went wrong while dealing" in ERROR.search(answer).group(1)
    assert await books(player) == (START, 0, player.start_rows)
    # The slip is still in the browser: BET again works.
    again = await tab.bet_over_socket({"slip_key": "fault", "player": "100"})
    assert PLACED.search(again)
    await tab.until_done()
    await tab.socket.disconnect()


async def test_a_closed_table_refuses_the_socket_bet(player):
    tab = await Tab.of(player)
    await tab.open()
    await database_sync_to_async(Table.objects.filter(slug=SLUG).update)(enabled=False)
    answer = await tab.bet_over_socket({"slip_key": "closed", "player": "10"})
    assert "This table is closed" in ERROR.search(answer).group(1)
    assert await books(player) == (START, 0, player.start_rows)
    await tab.socket.disconnect()


@pytest.mark.engines
async def test_a_bet_after_logging_out_elsewhere_ends_the_socket_and_bets_nothing(player):
    """The session is read again at BET: a socket whose session is gone (a
    logout that did not reach it) bets nothing. (After a round, and on an
    expiry: tests/security/test_socket_session.py.)"""
    tab = await Tab.of(player)
    socket = await tab.open()
    store = import_module(settings.SESSION_ENGINE).SessionStore(tab.session_key)
    await database_sync_to_async(store.delete)()
    await socket.send_to(
        text_data=json.dumps({"action": "bet", "slip_key": "gone", "player": "10"})
    )
    closed = await socket.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": SESSION_END_CLOSE_CODE}
    assert await books(player) == (START, 0, player.start_rows)


@pytest.mark.engines
async def test_the_squeeze_turned_on_over_http_holds_for_the_next_socket_bet(make_player):
    """Turning the SQUEEZE toggle on (an HTTP post of the same session,
    which sends the socket no message: it may be on another worker) holds
    for the very next BET over the socket, which reads the stored session:
    the round waits on the squeeze stage."""
    player = await database_sync_to_async(make_player)(chips=20_000)
    tab = await Tab.of(player)
    await tab.open()
    await tab.bet_over_socket({"slip_key": "off", "banker": "5000"})  # the threshold
    assert not any('data-peel="' in frame for frame in await tab.until_done())
    toggled = await database_sync_to_async(tab.client.post)(
        reverse("baccarat_squeeze", args=[SLUG]), {"action": "toggle"}, HTTP_HX_REQUEST="true"
    )
    assert toggled.status_code == 200
    await tab.bet_over_socket({"slip_key": "on", "banker": "5000"})
    frame = ""
    while 'data-peel="' not in frame:
        frame = await tab.socket.receive_from(timeout=5)
        assert 'data-phase="done"' not in frame  # the round went by unsqueezed
    assert 'data-side="banker"' in frame
    assert await tab.socket.receive_nothing(timeout=0.2)  # waiting for the player
    await tab.socket.disconnect()


@pytest.mark.engines
async def test_another_tab_of_the_player_sees_the_round_the_socket_placed(player):
    """A second tab at the table gets the round as a push; the tab that bet
    shows it once."""
    first, second = await Tab.of(player), await Tab.of(player)
    await first.open()
    await second.open()
    await first.bet_over_socket({"slip_key": "tabs", "banker": "10"})
    (rnd,) = await rounds_of(player)
    for tab in (first, second):
        frames = await tab.until_done()
        assert f'data-round="{rnd.pk}"' in frames[-1]
        assert await tab.socket.receive_nothing(timeout=0.2)
        await tab.socket.disconnect()


@pytest.mark.engines
async def test_a_tab_opened_after_the_only_other_closed_still_gets_pushes(player):
    """The count of the player's sockets goes down as they close: a BET over
    HTTP with one socket open reaches it, and a socket BET with a second tab
    opened later reaches that one."""
    first = await Tab.of(player)
    await first.open()
    await first.socket.disconnect()
    second = await Tab.of(player)
    await second.open()
    await second.bet_over_http({"slip_key": "http", "player": "10"})
    assert 'data-phase="done"' in (await second.until_done())[-1]
    third = await Tab.of(player)
    await third.open()
    await second.bet_over_socket({"slip_key": "sock", "player": "10"})
    for tab in (second, third):
        assert 'data-phase="done"' in (await tab.until_done())[-1]
        await tab.socket.disconnect()


async def test_a_flood_of_messages_is_refused_then_cut_off(player, settings):
    settings.CASINO_TABLE_ACTIONS_PER_SECOND = 1
    settings.CASINO_TABLE_ACTION_BURST = 2
    tab = await Tab.of(player)
    socket = await tab.open()
    frame = json.dumps({"action": "bet", "slip_key": "", "player": "10"})
    for _ in range(3):
        await socket.send_to(text_data=frame)
    answers = [await socket.receive_from(timeout=3) for _ in range(3)]
    assert "expired" in ERROR.search(answers[0]).group(
        1
    )  # within the budget: the pipeline's answer
    assert "Too many actions at once" in ERROR.search(answers[2]).group(1)
    for _ in range(MessageBudget.MAX_REFUSED + 2):
        await socket.send_to(text_data=frame)
    while True:
        output = await socket.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            break
    assert output["code"] == MessageBudget.CLOSE_CODE
    assert await books(player) == (START, 0, player.start_rows)


@pytest.mark.engines
async def test_a_round_bet_over_the_only_socket_takes_no_trip_through_the_channel_layer(player):
    """The socket that placed the round reveals it from what it holds: with
    no other tab at the table, nothing is sent to the player's group (a BET
    over HTTP still is: that is how its reveal reaches the socket)."""
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(reveal_group(player.pk), listener)
    tab = await Tab.of(player)
    await tab.open()
    # One receive for the whole test: a receive given up (timed out) ends
    # its channel on the Redis pub/sub layer.
    heard = asyncio.ensure_future(layer.receive(listener))
    await tab.bet_over_socket({"slip_key": "alone", "player": "10"})
    await tab.until_done()
    await asyncio.wait([heard], timeout=0.3)
    assert not heard.done()  # nothing was sent to the group
    await tab.bet_over_http({"slip_key": "http", "player": "10"})
    event = await asyncio.wait_for(heard, 3)
    assert event["type"] == "round.reveal" and event["table"] == SLUG
    await tab.until_done()
    await tab.socket.disconnect()


@pytest.mark.engines
async def test_a_socket_dropped_right_after_bet_resumes_the_round_and_bet_again_is_the_same(
    player, settings
):
    """The network blinks as BET goes: the round was placed (or not) once.
    The page's socket opens again and shows that round's reveal; the page
    then sends its unspent slip again, which answers with the same round."""
    settings.CASINO_REVEAL_DELAY = 0.3
    tab = await Tab.of(player)
    socket = await tab.open()
    await socket.send_to(
        text_data=json.dumps(
            {"action": "bet", "slip_key": "blink", "player": "10", "table_version": tab.version}
        )
    )
    await socket.receive_from(timeout=5)  # BET's answer: the round was placed
    await socket.receive_from(timeout=5)  # the deal; then the network blinks
    await socket.disconnect()
    (rnd,) = await rounds_of(player)

    await tab.open()
    frames = await tab.until_done()  # the rest of the reveal, to its result
    assert f'data-round="{rnd.pk}"' in frames[-1]
    again = await tab.bet_over_socket({"slip_key": "blink", "player": "10"})
    assert PLACED.search(again).group(1) == str(rnd.pk)
    assert await tab.socket.receive_nothing(timeout=0.4)  # shown once
    balance, count, _ = await books(player)
    assert count == 1 and balance == START - rnd.total_bet + rnd.total_return
    await tab.socket.disconnect()


@cache
def banker_wins_seed() -> str:
    return find_seed("quiet", "quiet", 8, lambda shoe: play_coup(shoe).winner == "banker")


def slip_balance(html: str) -> int | None:
    found = re.search(r'id="bac-slip-limits"[^>]*>([^<]*)<', html)
    return json.loads(found.group(1))["balance"] if found else None


@pytest.mark.parametrize("transport", ["http", "socket"])
async def test_bets_answer_does_not_tell_the_result_before_the_cards(player, transport):
    """BET's answer comes before any card is shown (a squeeze peels them
    later still): the balance it gives the slip is the one after the stakes;
    the reveal's result gives the balance after the round."""
    await database_sync_to_async(Profile.objects.filter(user=player).update)(
        next_server_seed=banker_wins_seed(), client_seed="quiet", nonce=0
    )
    tab = await Tab.of(player)
    await tab.open()
    fields = {"slip_key": "quiet", "banker": "100"}
    if transport == "socket":
        answer = await tab.bet_over_socket(fields)
    else:
        answer = await tab.bet_over_http(fields)
    (rnd,) = await rounds_of(player)
    assert rnd.winner == "banker" and rnd.balance_after == START + 9_500  # won 95
    assert slip_balance(answer) == START - 10_000
    frames = await tab.until_done()
    if transport == "socket":
        assert slip_balance(frames[-1]) == rnd.balance_after
    assert all(slip_balance(frame) is None for frame in frames[:-1])  # nothing before it
    await tab.socket.disconnect()


async def test_a_slip_key_that_is_not_text_is_no_slip_key(player):
    tab = await Tab.of(player)
    await tab.open()
    for key in ({"$ne": 1}, ["a"], 12345, True, None):
        answer = await tab.bet_over_socket({"slip_key": key, "player": "10"})
        assert "expired" in ERROR.search(answer).group(1), key
    assert await books(player) == (START, 0, player.start_rows)
    await tab.socket.disconnect()
