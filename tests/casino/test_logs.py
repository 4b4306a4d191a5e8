"""The logs: one JSON object a line, naming the request, the user and the
round, and never holding a secret.

The attacks: whoever reads the logs (a log shipper, a dashboard, a mail to
support a line was pasted into) learning a player's next server seed, a
sealed seed, their session key (and so their session), their password or
PIN or a hash of either; with every query logged at DEBUG, and when a round
fails half-way with a traceback.
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
import structlog
from channels.db import database_sync_to_async
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils.crypto import get_random_string

from casino.logs import scrub
from games.models import Profile, Round
from games.sealing import seal
from games.services.faults import inject_fault
from games.services.rounds import Seeds
from tests.games.consumers.conftest import baccarat_socket
from tests.seeds import find_seed, first_cards_tied
from tests.tables import shown_version

PASSWORD = "Gr33n-Felt-Lantern"
WRONG_PASSWORD = "Red-Felt-Lantern-7"
PIN = "958317"
WAR_CLIENT_SEED = "log-tests"


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Every line the site's log handler writes during the test, at DEBUG
    with every query logged: the configured pipeline, only its stream moved."""
    handlers = [h for h in logging.getLogger().handlers if h.name == "console"]
    assert handlers, "the console handler of casino.settings.LOGGING"
    handler = handlers[0]
    stream = io.StringIO()
    old_stream = handler.setStream(stream)
    loggers = [logging.getLogger(), logging.getLogger("django")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    connection.force_debug_cursor = True
    try:
        yield stream
    finally:
        connection.force_debug_cursor = False
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
        handler.setStream(old_stream)


def parsed(stream: io.StringIO) -> list[dict]:
    lines = stream.getvalue().splitlines()
    assert lines
    return [json.loads(line) for line in lines]  # every line is one JSON object


def texts(entry: dict) -> list[str]:
    """A line's text, less the clock (whose microseconds could spell any
    short number): what a secret could hide in."""
    return [f"{k}={v}" for k, v in entry.items() if k != "timestamp"]


def stored(table: str, column: str, pk: int) -> str:
    """A column as the database holds it (a sealed seed's token)."""
    with connection.cursor() as cursor:
        quote = connection.ops.quote_name
        cursor.execute(f"SELECT {quote(column)} FROM {quote(table)} WHERE id = %s", [pk])  # noqa: S608
        return str(cursor.fetchone()[0])


def leaks(secret: str, text: str) -> bool:
    """Whether ``text`` holds ``secret``. A secret of digits alone (the PIN)
    counts as its own number, not as a run inside a longer one: a query's
    duration (``6.0409998695831746e-05``) once held the PIN's six digits."""
    if secret.isdigit():
        return re.search(rf"(?<!\d){secret}(?!\d)", text) is not None
    return secret in text


# Transactional: each round logs its line as its transaction commits.
@pytest.mark.django_db(transaction=True)
def test_a_players_evening_logs_no_seed_pin_password_or_session_key(settings, log_lines):
    settings.DEBUG = False
    browser = Client(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
    assert browser.post(reverse("signup"), {
        "username": "lantern", "password1": PASSWORD, "password2": PASSWORD,
    }).status_code == 302  # fmt: skip
    browser.logout()
    browser.post(reverse("login"), {"username": "lantern", "password": WRONG_PASSWORD})
    browser.post(reverse("login"), {"username": "lantern", "password": PASSWORD})
    session_key = browser.cookies[settings.SESSION_COOKIE_NAME].value
    browser.post(reverse("account_pin"), {
        "password": PASSWORD, "new_pin": PIN, "confirm_pin": PIN,
    })  # fmt: skip
    browser.post(reverse("account_max_bet"), {"max_bet": "500", "pin": PIN})
    profile = Profile.objects.get(user__username="lantern")
    assert profile.pin_hash  # the PIN was set, so its hash went through the queries

    baccarat = browser.post(
        reverse("baccarat_bet", args=["baccarat-classic"]),
        {"slip_key": "evening-1", "banker": "10",
         "table_version": shown_version("baccarat-classic")}, HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert baccarat.status_code == 200
    # A War tie (the round stays open, its seed unrevealed), then WAR.
    tie = find_seed("log-tie", WAR_CLIENT_SEED, 6, first_cards_tied)
    Profile.objects.filter(pk=profile.pk).update(
        next_server_seed=tie, client_seed=WAR_CLIENT_SEED, nonce=0
    )
    browser.post(
        reverse("war_deal", args=["casino-war"]), {"slip_key": "evening-2", "ante": "10"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    war_round = Round.objects.get(player=profile.user, slip_key="evening-2")
    browser.post(
        reverse("war_decide", args=["casino-war"]),
        {"round_id": war_round.pk, "decision": "war"}, HTTP_HX_REQUEST="true",
    )  # fmt: skip
    # A deal that fails after the stakes are taken: a 500 with its traceback.
    with inject_fault("war.after_debit"):
        failed = browser.post(
            reverse("war_deal", args=["casino-war"]), {"slip_key": "evening-3", "ante": "10"},
            HTTP_HX_REQUEST="true",
        )  # fmt: skip
    assert failed.status_code == 500

    rounds = list(Round.objects.filter(player=profile.user))
    profile.refresh_from_db()
    secrets = {
        "password": PASSWORD,
        "wrong password": WRONG_PASSWORD,
        "PIN": PIN,
        "PIN hash": profile.pin_hash,
        "password hash": profile.user.password,
        "session key": session_key,
        "CSRF cookie": browser.cookies[settings.CSRF_COOKIE_NAME].value,
        "next server seed": profile.next_server_seed,
        "sealed next seed": stored(Profile._meta.db_table, "next_server_seed", profile.pk),
    }
    for rnd in rounds:
        secrets[f"round {rnd.pk} seed"] = rnd.server_seed
        secrets[f"round {rnd.pk} sealed seed"] = stored(Round._meta.db_table, "server_seed", rnd.pk)

    entries = parsed(log_lines)
    for entry in entries:
        for text in texts(entry):
            for name, secret in secrets.items():
                assert not leaks(secret, text), f"the {name} is in a log line: {entry}"

    # The lines were there to leak from: queries with their statements, the
    # failed deal's traceback, each request and round named.
    events = [e["event"] for e in entries]
    assert any(e.startswith("INSERT INTO") for e in events)
    assert any(e.startswith("UPDATE") and "pin_hash" in e for e in events)
    error = next(e for e in entries if e["event"] == "request_failed")
    assert "injected fault at war.after_debit" in error["exception"]
    assert error["request"] == "POST /war/casino-war/deal/"
    assert error["user_id"] == profile.user_id and error["request_id"]
    placed = [e for e in entries if e["event"] in ("round_placed", "round_decided")]
    assert {(e["round_id"], e["game"]) for e in placed} == {(r.pk, r.game) for r in rounds} | {
        (war_round.pk, "war")
    }
    assert all(e["user_id"] == profile.user_id and e["request_id"] for e in placed)


def test_a_careless_line_still_shows_no_secret(log_lines):
    """A line written by mistake with a seed, a session key or a PIN in it, as
    text, as a field or in an error's message: the pipeline takes them out."""
    seed = "7f" * 32
    session_key = "k3ycz9w0pq1m2n4b5v6c7x8z9a0s1d2f"
    seeds = Seeds(server_seed=seed, server_seed_hash="0" * 64, client_seed="c", nonce=1)
    log = logging.getLogger("games.services.rounds")
    log.warning("dealing from %s for session %s", seed, session_key)
    try:
        raise KeyError(f"no session {session_key} for seed {seed}")
    except KeyError:
        log.exception("lookup failed")
    structlog.stdlib.get_logger("games").error(
        "deal", server_seed=seed, seeds=seeds, session_key=session_key, pin=PIN, note=seed
    )

    entries = parsed(log_lines)
    assert len(entries) == 3
    for entry in entries:
        for text in texts(entry):
            assert seed not in text and session_key not in text and PIN not in text
    assert entries[0]["event"] == "dealing from [redacted] for session [redacted]"
    assert "KeyError" in entries[1]["exception"] and entries[1]["event"] == "lookup failed"
    assert entries[2]["server_seed"] == "[redacted]" and entries[2]["note"] == "[redacted]"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_sockets_lines_name_the_socket_and_its_player_never_its_session(
    make_player, log_lines
):
    user = await database_sync_to_async(make_player)(chips=100)
    communicator = await baccarat_socket(user)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    await communicator.disconnect()

    entries = parsed(log_lines)
    opened = next(e for e in entries if e["event"] == "socket_connected")
    closed = next(e for e in entries if e["event"] == "socket_closed")
    assert opened["user_id"] == closed["user_id"] == user.pk
    assert opened["socket_id"] == closed["socket_id"]
    assert opened["path"] == "/ws/baccarat/baccarat-classic/"
    session_keys = await database_sync_to_async(
        lambda: list(Session.objects.values_list("session_key", flat=True))
    )()
    assert session_keys  # the socket's browser had logged in
    for entry in entries:
        for text in texts(entry):
            assert not any(key in text for key in session_keys), entry


@pytest.mark.django_db
def test_a_player_cannot_forge_a_log_line(log_lines):
    """A script puts a line break and a whole fake event into what the site
    logs (the path, a login's username): it stays inside its own line."""
    forged = '\n{"event": "round_placed", "round_id": 1, "level": "info"}\n'
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.get("/fair/", {"client_seed": forged})
    browser.post(reverse("login"), {"username": forged, "password": "whatever-it-is"})

    entries = parsed(log_lines)  # every line still one JSON object
    assert not any(e["event"] == "round_placed" for e in entries)
    finished = [e for e in entries if e["event"] == "request_finished"]
    assert any(e["request"].startswith("GET /fair/?client_seed=%0A%7B") for e in finished)


def test_it_takes_out_every_kind_of_secret_and_keeps_the_rest():
    secrets = [
        "ab" * 32,  # a server seed
        seal("cd" * 32),  # a sealed one
        get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789"),  # a session key
        get_random_string(64),  # a CSRF token
        make_password("hunter2-Secret"),  # the tests' hasher
        "pbkdf2_sha256$1000000$Zq9w3lX0aBcD$kC1mT0+o/9YpW2xR4sVbN7eQ8uL3hJ6gF5dA1zK0yU=",
        "argon2$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo",
    ]
    for secret in secrets:
        cleaned = scrub(f"before {secret}; after")
        assert secret not in cleaned and cleaned.startswith("before ") and "after" in cleaned
    plain = (
        "POST /baccarat/baccarat-classic/bet/ round 9121 by 42 "
        "request 4b0c6a52-7f0e-4c52-9d8e-1a2b3c4d5e6f in 0.012 s"
    )
    assert scrub(plain) == plain  # what an operator needs stays
