"""A table socket speaks its page's language. Found by the cold attack of
issue 44: a script's socket library sent neither the language cookie nor
the page's Accept-Language, so its refusals came in Japanese (the site's
default) while its English page said otherwise. The page names its
language in the socket's address (``ws-connect``), and the socket speaks
it, whatever the socket's own headers say."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from casino.asgi import application

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TABLES = [
    # (table page, a refused action, its message in English and in Japanese)
    (
        "/baccarat/baccarat-classic/",
        {"action": "bet", "slip_key": "", "player": "10"},
        "This bet slip has expired",
        "このベットは有効期限が切れました",
    ),
    (
        "/war/casino-war/",
        {"action": "deal", "slip_key": "", "ante": "10"},
        "This bet slip is not valid",
        "このベットは無効です",
    ),
]


def page_and_session(user, language: str) -> tuple[str, str]:
    """The table page as a browser asking for ``language`` gets it, and the
    session cookie."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client, client.cookies["sessionid"].value


async def refusal(address: str, session: str, action: dict, accept: str) -> str:
    """A socket opened as a script opens it: the session cookie and the
    origin, no language cookie, and an Accept-Language of its own."""
    headers = [
        (b"origin", b"http://localhost"),
        (b"host", b"localhost"),
        (b"cookie", f"sessionid={session}".encode()),
        (b"accept-language", accept.encode()),
    ]
    socket = WebsocketCommunicator(application, address, headers=headers)
    connected, _ = await socket.connect(timeout=5)
    assert connected
    await socket.send_to(text_data=json.dumps(action))
    answer = await socket.receive_from(timeout=5)
    await socket.disconnect()
    return answer


@pytest.mark.parametrize(("table", "action", "english", "japanese"), TABLES)
@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_socket_speaks_the_language_of_its_page(
    make_player, table, action, english, japanese, language
):
    user = await database_sync_to_async(make_player)(chips=100)
    client, session = await database_sync_to_async(page_and_session)(user, language)
    page = (await database_sync_to_async(client.get)(table)).content.decode()
    assert f'<html lang="{language}">' in page
    address = re.search(r'ws-connect="([^"]+)"', page).group(1)
    other = "ja" if language == "en" else "en"
    answer = await refusal(address, session, action, accept=other)
    assert (english if language == "en" else japanese) in answer
