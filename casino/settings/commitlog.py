"""The public commitment log (commitlog/, docs/commitment-log.md)."""

from __future__ import annotations

import os
from pathlib import Path

from casino.settings.base import BASE_DIR
from casino.settings.database import CASINO_SQLITE_PATH, DATABASE_URL
from casino.settings.env import envint

# The log's name: the checkpoint's origin line and its signing key's name.
CASINO_LOG_ORIGIN = os.environ.get("CASINO_LOG_ORIGIN", "casino.local/log")
# The log's Ed25519 signing key, outside the database, made once by
# `manage.py make_log_key` (`make setup`); readable by its owner only.
CASINO_LOG_KEY_FILE = Path(os.environ.get("CASINO_LOG_KEY_FILE") or BASE_DIR / "db" / "log_key")
# The newest checkpoint this site published, kept beside the database: a
# restored database whose tree does not extend it is not served. Another
# SQLite file (a bench's, a test server's) keeps its own beside it, so that
# it never makes make run's database look like a fork.
_sqlite = Path(CASINO_SQLITE_PATH)
CASINO_LOG_PUBLISHED_FILE = Path(
    os.environ.get("CASINO_LOG_PUBLISHED_FILE")
    or (
        BASE_DIR / "db" / "log_published"
        if DATABASE_URL or _sqlite == BASE_DIR / "db" / "casino.sqlite3"
        else _sqlite.with_name(f"{_sqlite.stem}.log_published")
    )
)
# The witnesses whose cosignatures the site accepts and serves: a file of
# verifier keys, one a line (`manage.py witness --key` prints one).
CASINO_LOG_WITNESSES_FILE = Path(
    os.environ.get("CASINO_LOG_WITNESSES_FILE") or BASE_DIR / "db" / "log_witnesses"
)
# Seconds between the integrator's passes in a serving process (the first
# new leaf starts it); 0: no integrator in the serving processes (the
# cluster runs `manage.py integrate_log` as its own program).
CASINO_LOG_INTEGRATE_SECONDS = envint("CASINO_LOG_INTEGRATE_SECONDS", 1, minimum=0)
