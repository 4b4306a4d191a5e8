"""The squeeze over the table's socket: the reveal stops at the squeezed
side's 2nd and 3rd cards, the peeled card's face is sent only after the
browser says the peel started, and the reveal goes on when it says the card
is open. The round itself was settled at BET.

Sockets go through the real ASGI application; rounds are placed through the
real service, whose commit sends the reveal event (with the side to squeeze).
"""

from __future__ import annotations

import json
import re
from functools import cache

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.baccarat.rules import play_coup
from games.consumers import baccarat as consumer
from games.models import Profile, Round, Table
from games.services import baccarat
from tests.games.consumers.conftest import baccarat_socket
from tests.seeds import find_seed

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
]

CLIENT_SEED = "squeeze-consumer"
SLUG = "baccarat-classic"
OPENED = re.compile(r'id="bac-card-(\w\d)"[^>]*data-card="(\w\w)"')


@cache
def six_card_seed() -> str:
    """Both sides draw, and the Player's 2nd and 3rd cards appear nowhere else in
    the coup (so finding their code in a message can only mean they leaked)."""

    def unique_peels(shoe) -> bool:
        codes = [str(c) for c in play_coup(shoe).cards_in_deal_order]
        return len(codes) == 6 and codes.count(codes[2]) == 1 and codes.count(codes[4]) == 1

    return find_seed("squeeze-consumer", CLIENT_SEED, 8, unique_peels)


@pytest.fixture
def player(make_player):
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(
        next_server_seed=six_card_seed(), client_seed=CLIENT_SEED, nonce=0
    )
    return user


async def socket(user) -> WebsocketCommunicator:
    communicator = await baccarat_socket(user, SLUG)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def bet(user, **bets: int) -> Round:
    table = await database_sync_to_async(Table.objects.get)(slug=SLUG)
    return await database_sync_to_async(baccarat.place_bet)(
        user=user,
        table=table,
        bets={area: chips * 100 for area, chips in bets.items()},
        slip_key="squeeze",
        squeeze=baccarat.SqueezeWish(on=True, promo=True),  # watched the clip
    )


async def until(communicator: WebsocketCommunicator, marker: str) -> list[str]:
    """Messages up to and including the first one containing ``marker``."""
    messages = []
    while True:
        message = await communicator.receive_from(timeout=5)
        messages.append(message)
        if marker in message:
            return messages


async def say(communicator: WebsocketCommunicator, **message: str) -> None:
    await communicator.send_to(text_data=json.dumps(message))


def leaked(code: str, messages: list[str]) -> bool:
    return any(re.search(rf"(?<![\w#-]){code}(?!\w)", m) for m in messages)


@pytest.mark.engines
async def test_the_peeled_cards_face_is_sent_only_after_the_peel_starts(player):
    communicator = await socket(player)
    rnd = await bet(player, player=10, player_pair=10)
    p2, p3 = rnd.cards[2], rnd.cards[4]

    # deal, P1, B1, then the Player's 2nd card face down on the squeeze stage.
    before = await until(communicator, 'data-peel="')
    peel = before[-1]
    assert [OPENED.findall(m) for m in before[1:3]] == [
        [("p1", rnd.cards[0])],
        [("b1", rnd.cards[1])],
    ]
    assert 'data-slot="p2"' in peel and 'data-side="player"' in peel
    assert 'id="bac-card-p2"' in peel and "peeling" in peel
    assert 'class="peel-face blank"' in peel
    assert 'data-testid="navigator"' in peel and "CHANCE NO." in peel
    assert 'data-testid="nav-pair"' in peel  # PLAYER PAIR was bet: PAIR WIN NO.
    assert not leaked(p2, before)
    # The reveal waits for the player; a stray "continue" or another card's
    # peel does not move it on.
    assert await communicator.receive_nothing(timeout=0.2)
    await say(communicator, action="continue")
    await say(communicator, action="peel_start", slot="p3")
    assert await communicator.receive_nothing(timeout=0.2)

    await say(communicator, action="peel_start", slot="p2")
    face = await communicator.receive_from(timeout=5)
    assert 'id="bac-peel-face"' in face and f'data-card="{p2}"' in face
    assert 'class="pc-corner pc-top"' in face  # hidden by CSS until the card is open
    assert await communicator.receive_nothing(timeout=0.2)  # until the card is open

    await say(communicator, action="continue", slot="p2")
    opened = await communicator.receive_from(timeout=5)
    assert OPENED.findall(opened) == [("p2", p2)]
    assert 'id="bac-score-player"' in opened
    assert 'id="bac-squeeze" data-testid="squeeze-stage" hidden' in opened

    # B2 opens as usual; then the Player's 3rd card is peeled the same way.
    middle = await until(communicator, 'data-peel="')
    assert OPENED.findall(middle[0]) == [("b2", rnd.cards[3])]
    assert 'data-slot="p3"' in middle[-1]
    assert 'data-testid="nav-pair"' not in middle[-1]  # no PAIR WIN NO. on a 3rd card
    assert not leaked(p3, before + [face, opened] + middle)
    await say(communicator, action="peel_start", slot="p3")
    face3 = await communicator.receive_from(timeout=5)
    assert f'data-card="{p3}"' in face3
    await say(communicator, action="continue")
    rest = await until(communicator, 'data-phase="done"')
    assert OPENED.findall(rest[0]) == [("p3", p3)]
    assert OPENED.findall(rest[1]) == [("b3", rnd.cards[5])]
    assert f'data-winner="{rnd.winner}"' in rest[-1]
    await communicator.disconnect()


async def test_a_peel_left_alone_opens_by_itself_after_the_timeout(player, monkeypatch):
    monkeypatch.setattr(consumer, "PEEL_TIMEOUT", 0.2)
    communicator = await socket(player)
    rnd = await bet(player, banker=10)
    messages = await until(communicator, 'data-phase="done"')
    opened = [c for m in messages for c in OPENED.findall(m)]
    slots = ["p1", "b1", "p2", "b2", "p3", "b3"]
    assert opened == list(zip(slots, rnd.cards, strict=True))
    stages = [re.search(r'data-peel="\d+-(\w\d)"', m) for m in messages]
    assert [s.group(1) for s in stages if s] == ["b2", "b3"]
    await communicator.disconnect()


async def test_without_the_squeeze_nothing_waits_for_the_player(player):
    communicator = await socket(player)
    table = await database_sync_to_async(Table.objects.get)(slug=SLUG)
    await database_sync_to_async(baccarat.place_bet)(
        user=player, table=table, bets={"player": 1_000}, slip_key="plain"
    )
    messages = await until(communicator, 'data-phase="done"')
    assert not any('data-slot="' in m for m in messages)
    assert len(messages) == 8  # deal, six cards, result
    await communicator.disconnect()
