"""HTTP through ``casino.asgi.application`` as daphne serves it under
``make run`` (Django's own ASGI handler).

These go through the real ASGI application (not Django's test client, which
has a handler of its own), so they check what a browser gets from the
server: middleware headers, cookies, redirects, forms, the CSV stream, and
that each request ends (``request_finished``, which gives the database
connection back) exactly once. The cluster's gunicorn side is checked by
tests/casino/test_wsgi.py and, served for real, by tests/engines/test_cluster.py.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator
from django.core.signals import request_finished
from django.test import Client

from casino.asgi import application
from games.models import Round, Table
from games.services import war as war_service

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

HOST = [(b"host", b"localhost:8000"), (b"accept-language", b"en")]


def headers_of(response: dict) -> dict[bytes, list[bytes]]:
    out: dict[bytes, list[bytes]] = {}
    for name, value in response["headers"]:
        out.setdefault(name.lower(), []).append(value)
    return out


async def call(
    path: str, *, method: str = "GET", body: bytes = b"", headers=(), app=application
) -> dict:
    """One request, and the whole response (a final body message may carry
    no ``body`` key, as Django's streaming responses send it)."""
    communicator = HttpCommunicator(app, method, path, body=body, headers=[*HOST, *headers])
    await communicator.send_input({"type": "http.request", "body": body})
    start = await communicator.receive_output(10)
    assert start["type"] == "http.response.start"
    chunks = []
    while True:
        message = await communicator.receive_output(10)
        assert message["type"] == "http.response.body"
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    await communicator.wait()
    return {**start, "body": b"".join(chunks)}


def cookies(response: dict) -> dict[str, str]:
    out = {}
    for raw in headers_of(response).get(b"set-cookie", []):
        name, _, rest = raw.decode().partition("=")
        out[name] = rest.split(";", 1)[0]
    return out


@pytest.fixture
def finished():
    """How many requests have ended (``request_finished``)."""
    count = {"n": 0}

    def receiver(**kwargs):
        count["n"] += 1

    request_finished.connect(receiver)
    yield count
    request_finished.disconnect(receiver)


async def test_page_carries_the_middleware_headers_and_ends_once(finished):
    response = await call("/accounts/login/")
    assert response["status"] == 200
    headers = headers_of(response)
    assert b"default-src 'self'" in headers[b"content-security-policy"][0]
    assert headers[b"x-frame-options"] == [b"DENY"]
    assert headers[b"x-content-type-options"] == [b"nosniff"]
    assert "csrftoken" in cookies(response)
    assert b'name="csrfmiddlewaretoken"' in response["body"]
    assert finished["n"] == 1


async def test_login_form_posts_through_the_stack(make_player):
    await database_sync_to_async(make_player)("handler-player")
    page = await call("/accounts/login/")
    csrf_cookie = cookies(page)["csrftoken"]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"]).group(1)
    form = urlencode(
        {
            "csrfmiddlewaretoken": token.decode(),
            "username": "handler-player",
            "password": "pw-Secret-123",
        }
    ).encode()
    response = await call(
        "/accounts/login/",
        method="POST",
        body=form,
        headers=[
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", f"csrftoken={csrf_cookie}".encode()),
            (b"origin", b"http://localhost:8000"),
            (b"referer", b"http://localhost:8000/accounts/login/"),
        ],
    )
    assert response["status"] == 302, response["body"][:300]
    session = cookies(response)["sessionid"]
    lobby = await call("/", headers=[(b"cookie", f"sessionid={session}".encode())])
    assert lobby["status"] == 200  # logged in: not sent back to the login page
    assert b'data-testid="header-balance">10,000<' in lobby["body"]


async def test_a_post_without_the_csrf_token_is_refused_and_deals_nothing(make_player):
    user = await database_sync_to_async(make_player)()

    def login() -> str:
        client = Client()
        client.force_login(user)
        return client.cookies["sessionid"].value

    session = await database_sync_to_async(login)()
    response = await call(
        "/war/casino-war/deal/",
        method="POST",
        body=b"slip_key=abc&ante=10&tie_bet=0",
        headers=[
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", f"sessionid={session}".encode()),
        ],
    )
    assert response["status"] == 403
    assert await database_sync_to_async(Round.objects.filter(player=user).count)() == 0


async def test_the_csv_export_streams_whole_and_ends_once(make_player, finished):
    user = await database_sync_to_async(make_player)()

    def play_and_login() -> str:
        table = Table.objects.get(slug="casino-war")
        for n in range(3):
            rnd = war_service.deal(user=user, table=table, ante=1000, tie_bet=0, slip_key=f"s{n}")
            if rnd.status == Round.Status.OPEN:  # a tie: settle it before the next deal
                war_service.decide(user=user, round_id=rnd.pk, decision="surrender")
        client = Client()
        client.force_login(user)
        return client.cookies["sessionid"].value

    session = await database_sync_to_async(play_and_login)()
    finished["n"] = 0
    response = await call(
        "/history/export.csv", headers=[(b"cookie", f"sessionid={session}".encode())]
    )
    assert response["status"] == 200
    assert headers_of(response)[b"content-type"] == [b"text/csv; charset=utf-8"]
    lines = response["body"].decode().strip().splitlines()
    rounds = await database_sync_to_async(Round.objects.filter(player=user).count)()
    assert len(lines) == 1 + rounds  # the header and one line per round
    assert finished["n"] == 1
