"""DEAL and the tie decision over the War table's socket, as the page sends
them with the socket open: the same services as the HTTP endpoints, the same
fragment back, each refusal with its message and nothing taken, a slip key
sent twice one round, and a session that ended the end of the socket.

Sockets go through the real ASGI application (origin check, session cookie,
auth); rounds through the real pipeline.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import import_module

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from casino.asgi import application
from games.consumers.limits import MessageBudget
from games.consumers.session import SESSION_END_CLOSE_CODE
from games.consumers.war import TERMS_CHANGED_CLOSE_CODE
from games.models import UNITS_PER_CHIP, Profile, Round, Table
from games.services.tables import save_table, table_snapshot
from games.war.rules import first_cards_tied
from tests.games.consumers.conftest import books, surrender_a_tie
from tests.seeds import find_seed

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ROUND_TAG = re.compile(r'<section[^>]*id="war-round"[^>]*>')


class _Round:
    """The round region's id and status in a fragment (``search`` as a regex's)."""

    @staticmethod
    def search(html: str):
        tag = ROUND_TAG.search(html)
        if tag is None:
            return None
        round_id = re.search(r'data-round-id="(\d+)"', tag.group(0))
        status = re.search(r'data-status="(\w+)"', tag.group(0))
        return _Found(round_id.group(1) if round_id else "", status.group(1))


class _Found:
    def __init__(self, round_id: str, status: str) -> None:
        self.values = (round_id, status)

    def groups(self) -> tuple[str, str]:
        return self.values

    def group(self, n: int) -> str:
        return self.values[n - 1]


ROUND = _Round()
MESSAGE = re.compile(r'data-testid="war-message"[^>]*>([^<]*)<')
START = 100_000


@cache
def tie_seed() -> str:
    return find_seed("war-socket", "war-socket", 6, first_cards_tied)


@pytest.fixture
def player(rich_player):
    return rich_player


@pytest.fixture
def tie_next(player):
    Profile.objects.filter(user=player).update(
        next_server_seed=tie_seed(), client_seed="war-socket", nonce=0
    )
    return player


async def open_tab(user, slug: str = "casino-war") -> tuple[WebsocketCommunicator, Client]:
    def logged_in() -> Client:
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        return client

    client = await database_sync_to_async(logged_in)()
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    socket = WebsocketCommunicator(
        application,
        f"/ws/war/{slug}/",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", f"{settings.SESSION_COOKIE_NAME}={key}; django_language=en".encode()),
        ],
    )
    connected, _ = await socket.connect(timeout=5)
    assert connected
    return socket, client


async def say(socket: WebsocketCommunicator, **message) -> str:
    await socket.send_to(text_data=json.dumps(message))
    return await socket.receive_from(timeout=5)


@database_sync_to_async
def only_round(user) -> Round:
    return Round.objects.get(player=user)


@pytest.mark.engines
async def test_a_round_is_dealt_and_settled_over_the_socket(player):
    socket, _ = await open_tab(player)
    answer = await say(socket, action="deal", slip_key="k1", ante="10", tie_bet="")
    rnd = await only_round(player)
    round_id, status = ROUND.search(answer).groups()
    assert round_id == str(rnd.pk) and status == rnd.status
    assert 'id="header-balance"' in answer and 'id="war-slip"' in answer  # the next slip key
    balance, _, _ = await books(player)
    if rnd.status == Round.Status.SETTLED:
        assert balance == START - rnd.total_bet + rnd.total_return
    await socket.disconnect()


@pytest.mark.engines
async def test_a_tie_is_decided_over_the_socket_and_the_ledger_is_exact(tie_next):
    player = tie_next
    socket, _ = await open_tab(player)
    answer = await say(socket, action="deal", slip_key="tie", ante="10", tie_bet="")
    round_id, status = ROUND.search(answer).groups()
    assert status == "open" and 'data-testid="decision-panel"' in answer
    settled = await say(socket, action="decide", round_id=round_id, decision="war")
    # The open round's countdown push may come first: read on to the answer.
    while not ROUND.search(settled):
        settled = await socket.receive_from(timeout=5)
    assert ROUND.search(settled).groups() == (round_id, "settled")
    rnd = await only_round(player)
    assert "raise" in rnd.bets  # went to war: the raise was staked
    balance, _, _ = await books(player)
    assert balance == START - rnd.total_bet + rnd.total_return
    await socket.disconnect()


@pytest.mark.engines
async def test_a_slip_key_sent_twice_deals_one_round(player):
    socket, _ = await open_tab(player)
    first = await say(socket, action="deal", slip_key="twice", ante="10", tie_bet="")
    again = await say(socket, action="deal", slip_key="twice", ante="10", tie_bet="")
    assert ROUND.search(first).group(1) == ROUND.search(again).group(1)
    _, count, _ = await books(player)
    assert count == 1
    await socket.disconnect()


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"ante": "", "tie_bet": ""}, "ante"),
        ({"ante": "1e3", "tie_bet": ""}, "written with the digits 0-9"),
        ({"ante": "1e999999999", "tie_bet": ""}, "written with the digits 0-9"),
        ({"ante": [10], "tie_bet": ""}, "written with the digits 0-9"),
        ({"ante": "1100", "tie_bet": ""}, "balance"),
        ({"ante": "10", "tie_bet": "", "slip_key": ""}, "not valid"),
    ],
)
async def test_a_refused_deal_says_why_over_the_socket_and_takes_nothing(player, message, says):
    socket, client = await open_tab(player)
    fields = {"slip_key": "refused", **message}
    answer = await say(socket, action="deal", **fields)
    assert says in MESSAGE.search(answer).group(1).lower() or says in answer.lower()
    assert not ROUND.search(answer)
    assert await books(player) == (START, 0, player.start_rows)
    # Over HTTP the same slip reads the same (the endpoint without a socket).
    if all(isinstance(v, str) for v in fields.values()):
        post = database_sync_to_async(client.post)
        http = await post(reverse("war_deal", args=["casino-war"]), fields, HTTP_HX_REQUEST="true")
        assert MESSAGE.search(http.content.decode()).group(1) == MESSAGE.search(answer).group(1)
    await socket.disconnect()


async def test_deciding_someone_elses_or_no_round_is_refused(player, make_player, tie_next):
    other = await database_sync_to_async(make_player)(chips=1_000)
    owner_socket, _ = await open_tab(tie_next)
    answer = await say(owner_socket, action="deal", slip_key="tie", ante="10", tie_bet="")
    round_id, _ = ROUND.search(answer).groups()
    socket, _ = await open_tab(other)
    for bad in (round_id, "x", "²", None, 10**30):
        refused = await say(socket, action="decide", round_id=bad, decision="war")
        assert MESSAGE.search(refused).group(1), bad
    rnd = await only_round(tie_next)
    assert rnd.status == Round.Status.OPEN  # untouched by the stranger
    await socket.disconnect()
    await owner_socket.disconnect()


@pytest.mark.engines
async def test_a_deal_after_the_session_ended_closes_the_socket_and_deals_nothing(player):
    socket, client = await open_tab(player)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    store = import_module(settings.SESSION_ENGINE).SessionStore(key)
    await database_sync_to_async(store.delete)()
    await socket.send_to(
        text_data=json.dumps({"action": "deal", "slip_key": "gone", "ante": "10", "tie_bet": ""})
    )
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": SESSION_END_CLOSE_CODE}
    assert await books(player) == (START, 0, player.start_rows)


async def test_a_flood_of_deals_is_refused_in_the_players_language_then_cut_off(player, settings):
    settings.CASINO_TABLE_ACTIONS_PER_SECOND = 1
    settings.CASINO_TABLE_ACTION_BURST = 1
    socket, _ = await open_tab(player)
    frame = json.dumps({"action": "deal", "slip_key": "", "ante": "10", "tie_bet": ""})
    await socket.send_to(text_data=frame)
    await socket.send_to(text_data=frame)
    first = await socket.receive_from(timeout=5)
    second = await socket.receive_from(timeout=5)
    assert "not valid" in MESSAGE.search(first).group(1)  # within the budget: the service's answer
    assert "Too many actions at once" in MESSAGE.search(second).group(1)
    for _ in range(MessageBudget.MAX_REFUSED + 2):
        await socket.send_to(text_data=frame)
    while (output := await socket.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert output["code"] == MessageBudget.CLOSE_CODE
    assert await books(player) == (START, 0, player.start_rows)


@database_sync_to_async
def operator_edits(slug: str, **fields) -> Table:
    table = Table.objects.get(slug=slug)
    before = table_snapshot(table)
    for name, value in fields.items():
        setattr(table, name, value)
    return save_table(table=table, actor=None, before=before)


@database_sync_to_async
def latest_round(user) -> Round:
    return Round.objects.filter(player=user).latest("pk")


@pytest.mark.engines
async def test_the_operators_changes_reach_a_socket_already_open_at_its_next_deal(player):
    """The socket reads the table once as it opens; every DEAL reads it again
    in the round's transaction, so a lower MAX BET, a new version and a
    closed table all count from the next DEAL on that socket."""
    socket, _ = await open_tab(player)
    await say(socket, action="deal", slip_key="before", ante="50", tie_bet="")
    await surrender_a_tie(player)  # the cards are the player's own: a tie now and then
    first = await latest_round(player)
    edited = await operator_edits("casino-war", max_bet=20 * UNITS_PER_CHIP)
    refused = await say(socket, action="deal", slip_key="over", ante="50", tie_bet="")
    assert "max bet" in MESSAGE.search(refused).group(1).lower()
    assert not ROUND.search(refused)
    after = await say(socket, action="deal", slip_key="after", ante="10", tie_bet="")
    assert ROUND.search(after), after
    second = await latest_round(player)
    assert second.version_id == edited.current_version_id != first.version_id
    await operator_edits("casino-war", enabled=False)
    closed = await say(socket, action="deal", slip_key="closed", ante="10", tie_bet="")
    assert "This table is closed" in MESSAGE.search(closed).group(1)
    assert (await latest_round(player)).pk == second.pk
    balance, count, _ = await books(player)
    assert count == 2
    assert balance == START - sum(r.total_bet - r.total_return for r in (first, second))
    await socket.disconnect()


async def test_a_deal_from_a_page_with_an_older_paytable_takes_nothing_and_redraws_the_page(
    player,
):
    """The operator lowers the tie bonus after the page was drawn: a DEAL
    naming the version that page showed is not settled at payouts the
    player never saw. The socket closes with its own code, on which the page
    loads itself again with the terms in force; nothing is taken."""
    table = await database_sync_to_async(Table.objects.select_related("current_version").get)(
        slug="casino-war"
    )
    shown = table.current_version.number
    socket, _ = await open_tab(player)
    await operator_edits("casino-war", pays={**table.pays, "tie_bet": "3"})
    await socket.send_to(
        text_data=json.dumps(
            {"action": "deal", "slip_key": "stale", "ante": "10", "tie_bet": "5",
             "table_version": str(shown)}
        )
    )  # fmt: skip
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": TERMS_CHANGED_CLOSE_CODE}
    assert await books(player) == (START, 0, player.start_rows)
