"""The Baccarat table's socket shows a settled round card by card, to its
own player only, at the speed the player chose.

Sockets go through the real ASGI application (origin check, session cookie,
auth) and rounds are placed through the real service, whose commit sends the
reveal event.
"""

from __future__ import annotations

import json
import re
import time
from functools import cache

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.baccarat.rules import play_coup
from games.models import Profile, Round, Table
from games.services import baccarat
from tests.games.consumers.conftest import baccarat_socket
from tests.seeds import find_seed

pytestmark = [
    pytest.mark.waits,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
]

CLIENT_SEED = "consumer-tests"
SLUG = "baccarat-classic"
CARD = re.compile(r'id="bac-card-(\w\d)"[^>]*data-card="(\w\w)"')


@cache
def six_card_seed() -> str:
    """A shoe where both hands draw a third card (every reveal step is used)."""

    def six_cards(shoe) -> bool:
        coup = play_coup(shoe)
        return len(coup.player) == 3 and len(coup.banker) == 3

    return find_seed("baccarat-consumer", CLIENT_SEED, 8, six_cards)


@pytest.fixture
def player(make_player):
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(
        next_server_seed=six_card_seed(), client_seed=CLIENT_SEED, nonce=0
    )
    return user


socket = baccarat_socket  # a browser tab at the table (anonymous without a user)


async def bet(user, slip_key: str = "slip", **bets: int) -> Round:

    table = await database_sync_to_async(Table.objects.get)(slug=SLUG)
    return await database_sync_to_async(baccarat.place_bet)(
        user=user,
        table=table,
        bets={area: chips * 100 for area, chips in bets.items()},
        slip_key=slip_key,
    )


async def reveal(communicator: WebsocketCommunicator, timeout: float = 5) -> list[str]:
    """Every message up to the one that ends the round."""
    messages = []
    while True:
        message = await communicator.receive_from(timeout=timeout)
        messages.append(message)
        if 'id="bac-phase"' in message and 'data-phase="done"' in message:
            return messages


@pytest.mark.engines
async def test_it_reveals_the_cards_one_by_one_in_deal_order(player):
    communicator = await socket(player)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    rnd = await bet(player, player=10)
    messages = await reveal(communicator)

    # deal (all face down), one message per card in deal order, then the result.
    assert 'data-phase="revealing"' in messages[0]
    assert messages[0].count('class="card back"') == 4
    assert "data-card" not in messages[0]
    per_card = [CARD.findall(m) for m in messages[1:-1]]
    assert all(len(cards) == 1 for cards in per_card)
    assert [c[0] for c in per_card] == [
        ("p1", rnd.cards[0]),
        ("b1", rnd.cards[1]),
        ("p2", rnd.cards[2]),
        ("b2", rnd.cards[3]),
        ("p3", rnd.cards[4]),
        ("b3", rnd.cards[5]),
    ]
    # Each side's score follows its own cards.
    assert 'id="bac-score-player"' in messages[1] and 'id="bac-score-banker"' not in messages[1]
    assert 'id="bac-score-banker"' in messages[2]
    last_player = re.search(r'id="bac-score-player"[^>]*>(\d)<', messages[5]).group(1)
    assert int(last_player) == rnd.detail["player_total"]
    # The result: banner, PAYOUT, balance (table and header), roads.
    result = messages[-1]
    assert f'data-winner="{rnd.winner}"' in result
    assert (
        re.search(r'data-testid="payout">([\d,.]+)<', result).group(1)
        == f"{rnd.total_return // 100:,}"
    )
    balance = f"{rnd.balance_after // 100:,}"
    assert re.search(r'data-testid="table-balance">([\d,.]+)<', result).group(1) == balance
    assert re.search(r'data-testid="header-balance">([\d,.]+)<', result).group(1) == balance
    assert result.count('class="bead ') == 1
    assert 'id="header-balance"' in result and 'id="bac-roads"' in result
    await communicator.disconnect()


async def test_with_only_pair_bets_it_skips_to_the_result_after_four_cards(player):
    communicator = await socket(player)
    assert (await communicator.connect(timeout=5))[0]
    rnd = await bet(player, player_pair=10, banker_pair=10)
    messages = await reveal(communicator)
    per_message = [CARD.findall(m) for m in messages]
    assert [len(cards) for cards in per_message] == [0, 1, 1, 1, 1, 2, 0]
    assert per_message[5] == [("p3", rnd.cards[4]), ("b3", rnd.cards[5])]
    await communicator.disconnect()


async def test_a_pair_only_round_opens_its_third_cards_without_the_extra_pause(player, settings):
    """Seed 000: with only PAIR bets the third cards open at once and the result
    follows them with no pause; the first four cards keep their pacing."""
    settings.CASINO_REVEAL_DELAY = 0.4
    settings.CASINO_REVEAL_FAST_DELAY = 0.4
    communicator = await socket(player)
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, player_pair=10)
    arrived = []
    while True:
        message = await communicator.receive_from(timeout=5)
        arrived.append((time.monotonic(), message))
        if 'id="bac-phase"' in message and 'data-phase="done"' in message:
            break
    gaps = [later[0] - earlier[0] for earlier, later in zip(arrived, arrived[1:], strict=False)]
    # deal, four cards, the two third cards together, the result
    assert len(arrived) == 7
    assert all(gap >= 0.3 for gap in gaps[:5])  # each of the first four cards is paced
    assert gaps[5] < 0.2  # third cards -> result: no pause
    assert len(CARD.findall(arrived[5][1])) == 2
    await communicator.disconnect()


@pytest.mark.engines
async def test_another_players_socket_receives_nothing(player, make_player):
    other = await database_sync_to_async(make_player)(chips=1_000)
    mine, theirs = await socket(player), await socket(other)
    assert (await mine.connect(timeout=5))[0]
    assert (await theirs.connect(timeout=5))[0]
    await bet(player, banker=10)
    await reveal(mine)
    assert await theirs.receive_nothing(timeout=0.3)
    await mine.disconnect()
    await theirs.disconnect()


@pytest.mark.engines
async def test_a_round_at_another_table_is_not_shown_here(player):
    communicator = await socket(player, slug="baccarat-social")
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, banker=10)  # at the Classic table
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_it_accepts_only_a_logged_in_player():
    communicator = await socket(None)
    connected, _ = await communicator.connect(timeout=5)
    assert not connected


async def test_fast_forward_speeds_up_the_reveal_and_play_returns_to_normal(player, settings):
    settings.CASINO_REVEAL_DELAY = 3  # a normal reveal would take 20 s
    communicator = await socket(player)
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, player=10)
    first = await communicator.receive_from(timeout=2)
    assert 'data-phase="revealing"' in first
    started = time.monotonic()
    await communicator.send_to(text_data=json.dumps({"action": "speed", "fast": True}))
    messages = await reveal(communicator, timeout=2)
    assert time.monotonic() - started < 2
    # The button's new face is rendered on the sockets' thread while the
    # sped-up cards go out; on a busy machine it may come after the last one.
    speed = [m for m in messages if 'id="bac-speed"' in m]
    if not speed:
        speed = [await communicator.receive_from(timeout=2)]
    assert len(speed) == 1 and 'data-testid="speed-normal"' in speed[0]
    # ">" (the ws-send form posts strings) returns to normal speed.
    await communicator.send_to(text_data=json.dumps({"action": "speed", "fast": "0"}))
    back = await communicator.receive_from(timeout=2)
    assert 'data-testid="speed-fast"' in back
    await communicator.disconnect()


async def test_the_fast_play_setting_starts_fast(player, settings):
    settings.CASINO_REVEAL_DELAY = 3
    await database_sync_to_async(Profile.objects.filter(user=player).update)(fast_play=True)
    communicator = await socket(player)
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, player=10)
    started = time.monotonic()
    await reveal(communicator, timeout=2)
    assert time.monotonic() - started < 2
    await communicator.disconnect()


@pytest.mark.engines
async def test_two_quick_rounds_are_shown_one_after_the_other(player):
    communicator = await socket(player)
    assert (await communicator.connect(timeout=5))[0]
    first = await bet(player, "one", banker=10)
    second = await bet(player, "two", banker=10)
    one = await reveal(communicator)
    two = await reveal(communicator)
    assert f'data-round="{first.pk}"' in one[-1]
    assert f'data-round="{second.pk}"' in two[-1]
    assert await communicator.receive_nothing(timeout=0.1)
    await communicator.disconnect()


async def test_the_reveal_speaks_the_players_language(player):
    communicator = await socket(player, language="ja")
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, banker=10)
    messages = await reveal(communicator)
    assert "残高" in messages[-1]  # "Balance"
    assert ">Balance<" not in messages[-1]
    await communicator.disconnect()
