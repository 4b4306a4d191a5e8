"""A request body has ``CASINO_BODY_SECONDS`` to arrive in all
(casino/frontdoor/body_limit.py): a client sending a byte every few seconds
never stalls long enough for the gap guard (``BODY_GAP_SECONDS``), and
without a deadline held its request, and a place in the server, for as
long as it liked. Fed to the real ASGI application (casino.asgi) as a
server feeds it, with a deadline of a fraction of a second; the same
client against a real server is in tests/casino/test_front_door.py."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from channels.testing import ApplicationCommunicator

from casino.asgi import application
from tests.casino.test_guard import answer, http_scope

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

DEADLINE = 0.6  # seconds
DRIP = 0.1  # seconds between two bytes: far inside the 10 s gap guard


@pytest.fixture(autouse=True)
def short_deadline(settings):
    settings.CASINO_BODY_SECONDS = DEADLINE


async def drip(communicator: ApplicationCommunicator, pieces: int, *, last: bool) -> None:
    """A body a byte at a time, ``DRIP`` seconds apart; finished if ``last``."""
    for n in range(pieces):
        more = not (last and n == pieces - 1)
        await communicator.send_input({"type": "http.request", "body": b"a", "more_body": more})
        await asyncio.sleep(DRIP)


async def test_a_body_that_trickles_in_is_answered_408_at_its_deadline(requests_started):
    communicator = ApplicationCommunicator(application, http_scope([(b"accept-language", b"en")]))
    sender = asyncio.create_task(drip(communicator, 100, last=False))  # 10 s of bytes
    began = time.perf_counter()
    start = await communicator.receive_output(5)
    took = time.perf_counter() - began
    sender.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sender
    assert start["status"] == 408
    assert (b"connection", b"close") in start["headers"]  # nothing more on this connection
    body = await communicator.receive_output(5)
    assert body["body"] == b"The request came too slowly. Please try again.\n"
    await communicator.wait(5)
    assert DEADLINE <= took < DEADLINE + 1.0
    assert requests_started == [], "Django read the request"


async def test_a_body_that_arrives_within_its_deadline_reaches_the_site(requests_started):
    communicator = ApplicationCommunicator(application, http_scope())
    await drip(communicator, 4, last=True)  # 0.4 s of a 0.6 s deadline
    status, _body = await answer(communicator)
    await communicator.wait(5)
    assert status == 403  # Django's own answer: no CSRF token
    assert len(requests_started) == 1
