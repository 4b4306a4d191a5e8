"""What the socket tests share: a quick reveal, and a browser tab logged in
by its session cookie on the real ASGI application."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from casino.asgi import application
from games.models import LedgerEntry, Round, Wallet
from games.services import war as war_service


@pytest.fixture(autouse=True)
def quick(settings):
    settings.CASINO_REVEAL_DELAY = 0.01
    settings.CASINO_REVEAL_FAST_DELAY = 0.001


def session_id(user) -> str:
    """The session cookie of a browser where ``user`` has logged in."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def baccarat_socket(
    user=None, slug: str = "baccarat-classic", language: str = "en", kind: str = "baccarat"
) -> WebsocketCommunicator:
    """A browser tab at a Baccarat table (``kind`` "live": a live table's):
    the real ASGI app, the site's origin, logged in by the session cookie
    (anonymous without ``user``)."""
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if user is not None:
        sid = await database_sync_to_async(session_id)(user)
        headers.append((b"cookie", f"sessionid={sid}; django_language={language}".encode()))
    return WebsocketCommunicator(application, f"/ws/{kind}/{slug}/", headers=headers)


@pytest.fixture
def rich_player(make_player):
    """A player with 1,000 chips, who knows how many ledger rows that took."""
    user = make_player(chips=1_000)
    user.start_rows = LedgerEntry.objects.filter(wallet__user=user).count()
    return user


@database_sync_to_async
def books(user) -> tuple[int, int, int]:
    """The player's balance, rounds and ledger rows."""
    return (
        Wallet.objects.get(user=user).balance,
        Round.objects.filter(player=user).count(),
        LedgerEntry.objects.filter(wallet__user=user).count(),
    )


@database_sync_to_async
def surrender_a_tie(user) -> None:
    """A War tie waits for a decision and refuses the next DEAL: surrender it."""
    for rnd in Round.objects.filter(player=user, status=Round.Status.OPEN):
        war_service.decide(user=user, round_id=rnd.pk, decision="surrender")
