"""A Baccarat socket that drops and connects again (the page's ws extension
reconnects by itself) is shown its table's latest round: a reveal cut off
midway ends on its settled result, never on nothing; a round already shown
is not shown again.

Sockets go through the real ASGI application; rounds are placed through the
real service, whose commit sends the reveal event.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.models import Round, Table
from games.services import baccarat
from tests.games.consumers.conftest import baccarat_socket

pytestmark = [
    pytest.mark.engines,
    pytest.mark.waits,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
]

SLUG = "baccarat-classic"
RESULT_ROUND = re.compile(r'id="bac-result"[^>]*data-round="(\d+)"')


@pytest.fixture
def player(make_player):
    return make_player(chips=1_000)


async def bet(user, slip_key: str, **bets: int) -> Round:
    table = await database_sync_to_async(Table.objects.get)(slug=SLUG)
    return await database_sync_to_async(baccarat.place_bet)(
        user=user, table=table, bets={a: c * 100 for a, c in bets.items()}, slip_key=slip_key
    )


async def until_result(communicator, timeout: float = 5) -> list[str]:
    messages = []
    while True:
        message = await communicator.receive_from(timeout=timeout)
        messages.append(message)
        if RESULT_ROUND.search(message):
            return messages


async def test_a_socket_that_reconnects_mid_reveal_gets_the_settled_result(player, settings):
    settings.CASINO_REVEAL_DELAY = 0.5  # slow enough to drop the socket midway
    first = await baccarat_socket(player)
    assert (await first.connect(timeout=5))[0]
    rnd = await bet(player, "s1", banker=10)
    shown = [await first.receive_from(timeout=3), await first.receive_from(timeout=3)]
    assert not any(RESULT_ROUND.search(m) for m in shown), "dropped before the result"
    await first.disconnect()  # the network blinks

    again = await baccarat_socket(player)
    assert (await again.connect(timeout=5))[0]
    messages = await until_result(again)
    result = messages[-1]
    assert RESULT_ROUND.search(result).group(1) == str(rnd.pk)
    await database_sync_to_async(rnd.refresh_from_db)()
    assert f'data-winner="{rnd.winner}"' in result
    shown_balance = re.search(r'data-testid="table-balance">([\d,.]+)<', result).group(1)
    assert float(shown_balance.replace(",", "")) == rnd.balance_after / 100
    # Shown once: a third tab opened now does not show it again.
    await again.disconnect()
    third = await baccarat_socket(player)
    assert (await third.connect(timeout=5))[0]
    assert await third.receive_nothing(timeout=0.3)
    await third.disconnect()


async def test_a_round_dealt_while_the_socket_was_down_is_shown_on_reconnect(player):
    rnd = await bet(player, "s1", player=10)  # no socket at the table: the push reaches no one
    communicator = await baccarat_socket(player)
    assert (await communicator.connect(timeout=5))[0]
    messages = await until_result(communicator)
    assert len(messages) == 1
    assert RESULT_ROUND.search(messages[0]).group(1) == str(rnd.pk)
    await communicator.disconnect()


async def test_a_round_shown_to_the_end_is_not_shown_again(player):
    communicator = await baccarat_socket(player)
    assert (await communicator.connect(timeout=5))[0]
    await bet(player, "s1", player=10)
    await until_result(communicator)
    await communicator.disconnect()
    again = await baccarat_socket(player)
    assert (await again.connect(timeout=5))[0]
    assert await again.receive_nothing(timeout=0.3)
    await again.disconnect()


async def test_an_old_round_or_another_tables_round_is_not_replayed(player, settings):
    settings.CASINO_REVEAL_RESUME_SECONDS = 30
    rnd = await bet(player, "s1", player=10)
    await database_sync_to_async(Round.objects.filter(pk=rnd.pk).update)(
        settled_at=timezone.now() - dt.timedelta(seconds=31)
    )
    here = await baccarat_socket(player)
    assert (await here.connect(timeout=5))[0]
    assert await here.receive_nothing(timeout=0.3)
    await here.disconnect()
    await bet(player, "s2", player=10)  # fresh, but at the Classic table
    elsewhere = await baccarat_socket(player, slug="baccarat-social")
    assert (await elsewhere.connect(timeout=5))[0]
    assert await elsewhere.receive_nothing(timeout=0.3)
    await elsewhere.disconnect()


async def test_a_reveal_cut_off_goes_on_from_the_last_card_the_player_saw(player, settings):
    # The socket keeps how far the reveal got in memory and notes it in the
    # cache only as it starts and as it closes: the next socket must still
    # resend exactly what was shown at once, then go on with the next card.
    # A pause between cards well above the "at once" below, so a loaded
    # machine's slower resend is not read as a pause (0.4 and 0.3 s did).
    settings.CASINO_REVEAL_DELAY = 1.5
    first = await baccarat_socket(player)
    assert (await first.connect(timeout=5))[0]
    await bet(player, "s1", banker=10)
    seen = [await first.receive_from(timeout=3) for _ in range(3)]  # deal, P1, B1
    await first.disconnect()  # the tab reloads during the pause after B1

    again = await baccarat_socket(player)
    assert (await again.connect(timeout=5))[0]
    resent = [await again.receive_from(timeout=1) for _ in range(3)]  # at once, no pause
    assert resent == seen
    following = await again.receive_from(timeout=3)
    assert 'id="bac-card-p2"' in following  # the next card, not skipped and not the result
    assert not RESULT_ROUND.search(following)
    await until_result(again)
    await again.disconnect()
