"""Shared fixtures: players with wallets, and the browser harness.

Browser tests (marker ``browser``) run in their own pytest process with
``CASINO_SQLITE_PATH`` pointing at a file database. They do not use
pytest-django's test database: a session fixture migrates that file and starts
``make run``'s server on it (pytest-django's live_server has no websockets),
and tests read or arrange state through the ORM on the same file with the
``server_db`` fixture. Under pytest-xdist each worker migrates and serves a
file of its own (``worker_database``).
"""

from __future__ import annotations

import itertools
import os
import tempfile
import time
from pathlib import Path

import hypothesis
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.signals import request_started
from django.db import connections, transaction
from django.test import Client
from django.utils import timezone, translation

from casino.frontdoor.hash_pool import Argon2Hasher
from games.models import LedgerEntry, Table
from games.presets import WAR_PAYS
from games.selectors.roads import forget_kept_rounds
from games.services import play_safe
from games.services.tables import create_presets, snapshot_version
from games.services.wallet import Posting, open_account, post
from tests.browser.helpers import PASSWORD, log_in
from tests.make_run import free_port, make_run_command, serving

ROOT = Path(__file__).resolve().parent.parent
_usernames = itertools.count(1)

# Property tests (Hypothesis): `ci`, the default, tries the same hundred
# examples on every run (derandomize: a failure found once is found again,
# with no example database on disk) and sets no deadline (a busy machine is
# slow, not wrong). HYPOTHESIS_PROFILE=thorough tries ten times as many, new
# ones each run. A test asks for fewer only where each example is costly.
hypothesis.settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, database=None
)
hypothesis.settings.register_profile(
    "thorough", hypothesis.settings.get_profile("ci"), max_examples=1000, derandomize=False
)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    """A fast password hasher: the default one costs about a second per test
    user on these machines. Servers started by the browser tests keep theirs."""

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The commitment log: a signing key of the tests' own, and no integrator
    # thread (a test integrates when it means to: commitlog.integrator.integrate).
    keys = Path(tempfile.mkdtemp(prefix="casino-log-"))
    (keys / "log_key").write_text(bytes(range(32)).hex() + "\n", encoding="ascii")
    settings.CASINO_LOG_KEY_FILE = keys / "log_key"
    settings.CASINO_LOG_WITNESSES_FILE = keys / "log_witnesses"
    settings.CASINO_LOG_INTEGRATE_SECONDS = 0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """The tests marked ``waits`` run first and one marked
    ``ends_db_connections`` after the others (pyproject's markers say why);
    the others keep their order. Run last, the waiting tests left the
    machine mostly idle for the last 40 s of make test."""
    items.sort(
        key=lambda item: (
            item.get_closest_marker("ends_db_connections") is not None,
            item.get_closest_marker("waits") is None,
        )
    )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """On PostgreSQL the test database is dropped at the end, which waits
    5 s and then fails while another session still holds it: the idle
    connection a worker thread kept (the sockets' pool keeps its thread
    alive to the end, and the thread its connection). Those sessions are
    ended first."""
    yield
    with django_db_blocker.unblock():
        connection = connections["default"]
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.fixture(autouse=True)
def log_published_here(tmp_path_factory, settings):
    """Each test's database starts a log of its own: the checkpoints it
    publishes are kept apart from other tests'."""
    settings.CASINO_LOG_PUBLISHED_FILE = tmp_path_factory.mktemp("log") / "log_published"


@pytest.fixture(autouse=True)
def english_messages():
    """Service messages read in English unless a test picks a language
    (the site's fallback language is Japanese)."""

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def fresh_road_rows():
    """No road rows kept from another test: its rolled-back rounds' ids and
    seqs come again in this one."""
    forget_kept_rounds()
    yield
    forget_kept_rounds()


_DB_FIXTURES = {
    "db",
    "transactional_db",
    "client",
    "admin_client",
    "make_player",
    "django_db_reset_sequences",
}


@pytest.fixture(autouse=True)
def default_tables(request):
    """The default tables come from a data migration; a transactional test
    flushes them away afterwards, so put back whatever is missing."""
    if request.node.get_closest_marker("django_db") or _DB_FIXTURES & set(request.fixturenames):
        request.getfixturevalue("_django_db_helper")

        create_presets()


@pytest.fixture
def client():
    """A test client whose browser asks for English, as the tests read
    English; a test about languages sends its own Accept-Language."""

    return Client(HTTP_ACCEPT_LANGUAGE="en")


@pytest.fixture
def requests_started():
    """Requests that got into Django (its request_started signal)."""
    started: list[object] = []

    def count(**kwargs) -> None:
        started.append(kwargs)

    request_started.connect(count)
    yield started
    request_started.disconnect(count)


@pytest.fixture
def make_player(db):
    """A signed-up player: user, profile and wallet with the starting grant."""

    counter = {"n": 0}

    def make(username: str | None = None, *, chips: int | None = None, **extra):
        counter["n"] += 1
        User = get_user_model()
        user = User.objects.create_user(
            username or f"player{counter['n']}", password="pw-Secret-123", **extra
        )
        open_account(user=user)
        if chips is not None:
            wallet = user.wallet
            wallet.refresh_from_db()
            with transaction.atomic():
                post(
                    wallet_id=wallet.pk,
                    postings=[
                        Posting(
                            LedgerEntry.Kind.ADJUSTMENT, chips * 100 - wallet.balance, "test setup"
                        )
                    ],
                )
            wallet.refresh_from_db()
        return user

    return make


@pytest.fixture
def quick_war(db):
    """A War table whose tie decision times out after one second."""

    table = Table.objects.create(
        game="war",
        name="Quick War",
        slug="quick-war",
        decks=6,
        chips=[1, 5, 25, 100, 500],
        pays=WAR_PAYS,
        limits={"ante": {"min": 100, "max": 100_000}, "tie_bet": {"min": 100, "max": 10_000}},
        max_bet=110_000,
        decision_timeout=1,
    )
    snapshot_version(table=table)
    return table


# --- browser harness ---------------------------------------------------------


# Debian's chromium-headless-shell (make chromium installs it): Chromium's
# headless build alone, without the desktop browser's UI layers, which
# drives the same Blink and V8 for less CPU across the suite
# (docs/measurements/test-times.md). The full browser where it is missing.
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = HEADLESS_SHELL if HEADLESS_SHELL.exists() else Path("/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """Pages in English, and with motion reduced, as a player may ask: no
    card slides, count-up, chip shower or pulsing glow, which were 40% of
    the table-fit tests' CPU (docs/measurements/test-times.md). A test that
    looks at motion, or at a page while things move on it, asks for it back
    (tests/browser/helpers.py's MOTION)."""
    return {**browser_context_args, "locale": "en-US", "reduced_motion": "reduce"}


def worker_database(path: Path) -> Path:
    """The browser database of this pytest-xdist worker: CASINO_SQLITE_PATH
    with the worker's id (``browser-gw1.sqlite3``), so each worker's server
    serves a file of its own; the path itself when not under xdist."""

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return path.with_stem(f"{path.stem}-{worker}") if worker else path


def published_file(database: Path) -> Path:
    """The checkpoint the server on ``database`` published (never make
    run's ``db/log_published``: a fresh browser database would be a fork of
    it, and make run's database one of the browser's)."""
    return database.with_name(f"{database.stem}.log_published")


@pytest.fixture(scope="session")
def server_db(django_db_blocker):
    """The file database the server subprocess serves, open to the ORM here."""

    assert os.environ.get("CASINO_SQLITE_PATH"), (
        "browser tests need CASINO_SQLITE_PATH (make test-browser)"
    )
    # Changed in place, as pytest-django renames each worker's test database:
    # Django's connection holds this very dict and reads NAME as it connects.
    database = settings.DATABASES["default"]
    path = worker_database(Path(database["NAME"]))
    database["NAME"] = str(path)
    with django_db_blocker.unblock():
        connections.close_all()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        published_file(path).unlink(missing_ok=True)
        call_command("migrate", verbosity=0, interactive=False)
        yield path
        connections.close_all()


@pytest.fixture(scope="session")
def live_url(server_db):
    """``make run``'s server in a subprocess, serving the site on the browser
    database."""
    port = free_port()
    env = {
        **os.environ,
        "CASINO_SQLITE_PATH": str(server_db),
        "CASINO_LOG_PUBLISHED_FILE": str(published_file(server_db)),
        "CASINO_REVEAL_DELAY": os.environ.get("CASINO_REVEAL_DELAY", "0.15"),
        "CASINO_REVEAL_FAST_DELAY": "0.03",
        "DJANGO_DEBUG": "1",
        # The browser suite signs up dozens of players from 127.0.0.1; the
        # credential throttle has its own tests.
        "CASINO_CREDENTIAL_POSTS": "0",
    }
    # The server make run starts.
    with serving(make_run_command("127.0.0.1", port), env, port, seconds=30) as url:
        yield url


@pytest.fixture
def orm(server_db, django_db_blocker):
    """Use the ORM on the browser database inside a test."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture(scope="session")
def password_hash() -> str:
    """Every browser player's password as the server hashes it, made once."""
    hasher = Argon2Hasher()
    return hasher.encode(PASSWORD, hasher.salt())


@pytest.fixture
def signed_up(page, live_url, orm, password_hash):
    """A fresh player as sign-up leaves one (chips granted, a session begun),
    logged in in the page's browser; returns the username. The sign-up form
    itself: tests/browser/test_signup_browser.py."""
    username = f"browser{next(_usernames)}x{int(time.time() * 1000) % 1000000}"
    user = get_user_model().objects.create(username=username, password=password_hash)
    open_account(user=user)
    now = timezone.now()
    play_safe.start_session(user=user, now=now)
    log_in(page.context, live_url, user, **{play_safe.SESSION_STARTED: now.isoformat()})
    return username
