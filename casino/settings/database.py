"""The database and the cache: SQLite on one machine, PostgreSQL and Redis
in the cluster (ops/cluster.sh)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from casino.settings.base import BASE_DIR
from casino.settings.env import envint, envstr

DATABASE_URL = envstr("DATABASE_URL")
REDIS_URL = envstr("REDIS_URL")
CASINO_SQLITE_PATH = envstr("CASINO_SQLITE_PATH") or str(BASE_DIR / "db" / "casino.sqlite3")
CASINO_SQLITE_TEST_PATH = envstr("CASINO_SQLITE_TEST_PATH") or str(BASE_DIR / "db" / "test.sqlite3")
# PostgreSQL only (what each does: docs/configuration.md). Why: prepared
# statements took PostgreSQL's CPU per BET from about 2.2 to 1.5 ms; a new
# connection per request cost about a third of the stack's CPU per round
# (bench/load.py); a kept connection per thread saves a socket worker's round
# the pool's take and give-back (about 30 us) and is replaced after a restart.
CASINO_DB_PREPARE = envint("CASINO_DB_PREPARE", 5, minimum=0)
CASINO_DB_POOL = envint("CASINO_DB_POOL", 0, minimum=0)
CASINO_DB_HEALTH_CHECKS = bool(envint("CASINO_DB_HEALTH_CHECKS", 0, minimum=0))
CASINO_DB_CONN_MAX_AGE = envint("CASINO_DB_CONN_MAX_AGE", 0, minimum=0)


def postgresql(url: str) -> dict[str, Any]:
    import dj_database_url  # noqa: PLC0415 - only a PostgreSQL site needs it

    try:
        database: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
    except Exception as exc:  # dj_database_url raises several kinds
        raise ImproperlyConfigured(f"DATABASE_URL is malformed: {exc}") from None
    if database["ENGINE"] != "django.db.backends.postgresql":
        return database
    # Under ASGI every request may run on another thread: no connection kept
    # by default, so one worker never holds many idle ones.
    database["CONN_MAX_AGE"] = CASINO_DB_CONN_MAX_AGE
    database["CONN_HEALTH_CHECKS"] = CASINO_DB_HEALTH_CHECKS
    options = database.setdefault("OPTIONS", {})
    options.update(server_side_binding=True, prepare_threshold=CASINO_DB_PREPARE or None)
    if CASINO_DB_POOL:
        if CASINO_DB_CONN_MAX_AGE:
            raise ImproperlyConfigured(
                "CASINO_DB_CONN_MAX_AGE keeps each thread's own connection: "
                "set CASINO_DB_POOL=0 with it"
            )
        try:
            import psycopg_pool  # noqa: F401, PLC0415
        except ImportError:
            raise ImproperlyConfigured(
                "CASINO_DB_POOL needs the psycopg-pool package (pip install psycopg-pool)"
            ) from None
        # (Django's pool already checks a connection as it leaves the pool.)
        options["pool"] = {
            "min_size": min(2, CASINO_DB_POOL),
            "max_size": CASINO_DB_POOL,
            "timeout": 10,
        }
    return database


def sqlite(path: str) -> dict[str, Any]:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        # WAL alone still gave "database is locked" under concurrent writes;
        # IMMEDIATE transactions take the write lock up front.
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
        "TEST": {"NAME": CASINO_SQLITE_TEST_PATH},
    }


DATABASES = {"default": postgresql(DATABASE_URL) if DATABASE_URL else sqlite(CASINO_SQLITE_PATH)}

if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"REDIS_URL must start with redis://, rediss:// or unix://; got {REDIS_URL!r}"
    )
# One cache for every process of the cluster (the front door's counters and
# axes' must be shared to mean anything); one process's own memory otherwise.
CACHES = {
    "default": {"BACKEND": "casino.cache.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "casino"}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
