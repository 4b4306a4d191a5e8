"""A live table's socket: it shows a page that joins mid-coup the coup in
progress, takes BET and answers as the HTTP BET does (a stake after the
close refused, nothing taken), passes on the dealer's state, and tells the
player their bet settled with their new balance."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from games.baccarat.live import seed_commitment
from games.models import Coup, Round, Table
from games.presenters import live as presenter
from games.selectors.live import live_view
from games.selectors.roads import result_shown_at
from games.services import live
from tests.games.consumers.conftest import baccarat_socket
from tests.tables import shown_version

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def socket(user, slug: str) -> WebsocketCommunicator:
    return await baccarat_socket(user, slug, kind="live")


SECRET = "the-page's-secret"


async def bet_message(slip: str, **stakes) -> str:
    version = await database_sync_to_async(shown_version)("baccarat-live")
    return json.dumps(
        {
            "action": "bet",
            "slip_key": slip,
            "table_version": version,
            "commit": seed_commitment(SECRET),
            **stakes,
        }
    )


async def test_join_mid_coup_bet_and_hear_the_deal(make_player):
    ann = await database_sync_to_async(make_player)(chips=1_000)
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-live")
    await database_sync_to_async(live.advance)(table)
    communicator = await socket(ann, table.slug)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    arrival = await communicator.receive_from()
    assert 'id="live-state"' in arrival and 'data-state="open"' in arrival

    await communicator.send_to(text_data=await bet_message("one", player="10"))
    answer = await communicator.receive_from()
    assert 'id="bac-placed"' in answer and "placed on coup 1" in answer

    # At the close the commitments are fixed: the page reveals its seed.
    coup = await database_sync_to_async(Coup.objects.get)(table=table)
    await database_sync_to_async(presenter.tick)(now=coup.closes_at)
    assert 'data-status="revealing"' in await communicator.receive_from()
    await communicator.send_to(text_data=json.dumps({"action": "reveal", "seed": "another"}))
    assert "does not match" in await communicator.receive_from()
    await communicator.send_to(text_data=json.dumps({"action": "reveal", "seed": SECRET}))
    assert "Your seed is revealed" in await communicator.receive_from()

    # Then the dealer deals: the socket hears the cards, and nothing that
    # gives the result away while they slide in (no winner, no balance).
    deal_at = coup.closes_at + dt.timedelta(seconds=live.REVEAL_SECONDS)
    due = await database_sync_to_async(presenter.tick)(now=deal_at)
    cards = await communicator.receive_from()
    assert 'data-card="' in cards and "data-winner" not in cards
    assert f'data-dealt-at="{int(deal_at.timestamp() * 1000)}"' in cards
    assert await communicator.receive_nothing(timeout=0.2)
    rnd = await database_sync_to_async(Round.objects.get)(player=ann)
    assert rnd.status == Round.Status.OPEN

    # Once the cards are in place, the result, then the player's own figures.
    # The dealer passes again the moment they are, not at its next whole second.
    dealt = await database_sync_to_async(Coup.objects.get)(pk=coup.pk)
    assert due == result_shown_at(dealt)
    assert await database_sync_to_async(presenter.tick)(now=due) is None
    state, seat = [await communicator.receive_from() for _ in range(2)]
    assert 'id="live-state"' in state and 'id="live-last"' in seat
    rnd = await database_sync_to_async(Round.objects.get)(player=ann)
    assert rnd.status == Round.Status.SETTLED
    assert f'data-winner="{rnd.winner}"' in state
    heard = "win" if rnd.total_return > rnd.total_bet else "end"
    assert f'data-sound="{heard}"' in seat  # the page plays the player's own result
    assert f'data-balance="{rnd.balance_after}"' in seat
    assert "Your last coup (1): staked 10, returned" in seat  # from the dealer's message
    await communicator.disconnect()


async def test_a_bet_after_the_close_is_refused_over_the_socket(make_player):
    ann = await database_sync_to_async(make_player)(chips=1_000)
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-live")
    past = timezone.now() - dt.timedelta(seconds=16)
    await database_sync_to_async(live.advance)(table, now=past)  # its window closed a second ago
    communicator = await socket(ann, table.slug)
    assert (await communicator.connect(timeout=5))[0]
    await communicator.receive_from()
    await communicator.send_to(text_data=await bet_message("late", player="10"))
    answer = await communicator.receive_from()
    assert "No more bets" in answer
    assert not await database_sync_to_async(Round.objects.filter(player=ann).exists)()
    await communicator.disconnect()


async def test_a_private_table_has_no_live_socket(make_player):
    ann = await database_sync_to_async(make_player)(chips=1_000)
    communicator = await socket(ann, "baccarat-classic")
    connected, _ = await communicator.connect(timeout=5)
    assert not connected


async def test_the_dealer_sends_the_state_when_something_changed_only(make_player):
    """The countdown runs in the browser: a second in which nothing moved
    sends nothing, a new stake sends the new shares, at most every
    SHARES_SECONDS."""
    ann = await database_sync_to_async(make_player)(chips=1_000)
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-live")
    communicator = await socket(ann, table.slug)
    await database_sync_to_async(live.advance)(table)
    assert (await communicator.connect(timeout=5))[0]
    await communicator.receive_from()  # the state on arrival
    await database_sync_to_async(presenter.tick)()
    assert 'id="live-state"' in await communicator.receive_from()  # the first pass sends it
    await database_sync_to_async(presenter.tick)()
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.send_to(text_data=await bet_message("one", banker="10"))
    await communicator.receive_from()  # BET's answer
    await database_sync_to_async(presenter.tick)()
    assert await communicator.receive_nothing(timeout=0.3)  # the shares went out just now
    later = timezone.now() + dt.timedelta(seconds=presenter.SHARES_SECONDS)
    await database_sync_to_async(presenter.tick)(now=later)
    state = await communicator.receive_from()
    assert re.search(r'data-testid="share-banker">.*?<b>100%</b>', state)
    await communicator.disconnect()


def players_shown(html: str) -> str:
    return re.search(r'data-testid="live-players">([^<]*)<', html).group(1).strip()


async def test_players_watching_are_counted_at_the_table(make_player):
    """Nobody has bet yet, and the table says who is there: each arriving
    watcher sees themself counted, and the dealer's next state counts the
    one who left no more."""
    ann, bob = [await database_sync_to_async(make_player)(chips=1_000) for _ in range(2)]
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-live")
    await database_sync_to_async(live.advance)(table)
    anns = await socket(ann, table.slug)
    assert (await anns.connect(timeout=5))[0]
    assert players_shown(await anns.receive_from()) == "1 player"
    bobs = await socket(bob, table.slug)
    assert (await bobs.connect(timeout=5))[0]
    assert players_shown(await bobs.receive_from()) == "2 players"

    await database_sync_to_async(presenter.tick)()
    assert players_shown(await anns.receive_from()) == "2 players"
    await bobs.disconnect()
    view = await database_sync_to_async(live_view)(table)
    assert view.players == 1
    await anns.disconnect()


async def test_a_bet_in_one_tab_shows_in_the_players_other_tab(make_player):
    """Two tabs at the table: the one that bets hears BET's answer, the
    other its stake and balance at once (not only when the coup settles).
    A player with one tab hears nothing more than their answer."""
    ann, bob = [await database_sync_to_async(make_player)(chips=1_000) for _ in range(2)]
    table = await database_sync_to_async(Table.objects.get)(slug="baccarat-live")
    await database_sync_to_async(live.advance)(table)
    bobs = await socket(bob, table.slug)
    assert (await bobs.connect(timeout=5))[0]
    await bobs.receive_from()
    await bobs.send_to(text_data=await bet_message("alone", player="10"))
    assert 'id="bac-placed"' in await bobs.receive_from()
    assert await bobs.receive_nothing(timeout=0.2)

    first, second = socket(ann, table.slug), socket(ann, table.slug)
    first, second = await first, await second
    for tab in (first, second):
        assert (await tab.connect(timeout=5))[0]
        await tab.receive_from()
    await first.send_to(text_data=await bet_message("two-tabs", banker="25"))
    assert 'id="bac-placed"' in await first.receive_from()
    shown = await second.receive_from()
    assert "Your bet on this coup</strong>: BANKER 25" in shown
    assert 'data-balance="97500"' in shown and ">975<" in shown  # 1,000 chips less 25
    for tab in (bobs, first, second):
        await tab.disconnect()
