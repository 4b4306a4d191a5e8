"""Backups of the books, taken while players play, and their restore.

A backup is one file, consistent to one moment, whatever commits meanwhile:

- SQLite: the online backup API (``sqlite3.Connection.backup``) copies the
  live file page by page in one step, under a read transaction, so it sees
  one committed state; in WAL mode writers go on committing meanwhile.
- PostgreSQL: ``pg_dump`` in its custom format. Its snapshot is exported
  from a REPEATABLE READ transaction here, so the manifest's counts are those
  of the very snapshot the dump holds.

Beside each backup a ``.json`` manifest says what it holds: the engine, when
it was taken, its rounds and ledger rows, the last round's id, and the
file's SHA-256 (a restore refuses a file that does not match it). Point in
time recovery on PostgreSQL (continuous WAL archiving) is pgBackRest's job:
ops/pitr.sh and docs/operations.md.

The commitment log is in the database, so a backup holds it whole; a
restore keeps the live log rather than the backup's (commitlog/carry.py):
a log never goes back in time.

Backups hold password hashes and sealed seeds: files are written readable
by their owner only. The seeds stay sealed in them (games/sealing.py): the
key is not in the database, so a stolen backup predicts no card.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, connections

from commitlog.carry import live_log, put_back
from games.models import AuditEntry

SQLITE_SUFFIX = ".sqlite3"
PG_SUFFIX = ".pgdump"


class BackupError(Exception):
    """A backup or restore that could not be done; nothing was changed."""


@dataclass(frozen=True)
class Manifest:
    engine: str
    file: str
    taken_at: str
    seconds: float
    rounds: int
    last_round_id: int | None
    ledger_rows: int
    sha256: str


def backup_dir() -> Path:
    return Path(os.environ.get("CASINO_BACKUP_DIR", "") or settings.BASE_DIR / "backups")


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise BackupError(f"backups support SQLite and PostgreSQL, not {vendor}")
    return vendor


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_COUNTS = (
    "SELECT (SELECT COUNT(*) FROM games_round), (SELECT MAX(id) FROM games_round), "
    "(SELECT COUNT(*) FROM games_ledgerentry)"
)


def backup(folder: Path | None = None) -> tuple[Path, Manifest]:
    """Take a backup into ``folder`` (CASINO_BACKUP_DIR, default backups/)
    and write its manifest; returns the backup's path and manifest."""
    engine = _engine()
    folder = folder or backup_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = dt.datetime.now(dt.UTC)
    name = f"casino-{stamp:%Y%m%dT%H%M%S.%fZ}"
    target = folder / (name + (SQLITE_SUFFIX if engine == "sqlite" else PG_SUFFIX))
    partial = target.with_name(target.name + ".partial")
    started = time.perf_counter()
    old_umask = os.umask(0o077)  # the file holds password hashes: its owner reads it
    try:
        take = _backup_sqlite if engine == "sqlite" else _backup_postgres
        counts = take(partial)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        os.umask(old_umask)
    partial.rename(target)
    rounds, last_round, ledger_rows = counts
    manifest = Manifest(
        engine=engine,
        file=target.name,
        taken_at=stamp.isoformat(),
        seconds=round(time.perf_counter() - started, 3),
        rounds=int(rounds),
        last_round_id=None if last_round is None else int(last_round),
        ledger_rows=int(ledger_rows),
        sha256=_sha256(target),
    )
    manifest_path = target.with_name(target.name + ".json")
    manifest_path.write_text(json.dumps(asdict(manifest), indent=2) + "\n")
    manifest_path.chmod(0o600)
    return target, manifest


def _backup_sqlite(partial: Path) -> tuple[Any, Any, Any]:
    live = str(connection.settings_dict["NAME"])
    source = sqlite3.connect(live, timeout=30)
    copy = sqlite3.connect(partial)
    try:
        # pages=-1: every page in one step, one consistent read.
        source.backup(copy, pages=-1)
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        if copy.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise BackupError("the backup copy failed its integrity check")
        return copy.execute(_COUNTS).fetchone()
    finally:
        copy.close()
        source.close()


def pg_tool(name: str) -> str:
    """The newest installed PostgreSQL client ``name`` (pg_dump, pg_restore):
    it must be at least the server's version."""
    candidates = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3])
    )
    if candidates:
        return str(candidates[-1])
    found = shutil.which(name)
    if not found:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return found


def _pg_env(db: dict[str, Any], name: str | None = None) -> dict[str, str]:
    env = {**os.environ}
    env.update(
        PGHOST=str(db.get("HOST") or "127.0.0.1"),
        PGPORT=str(db.get("PORT") or 5432),
        PGUSER=str(db.get("USER") or "postgres"),
        PGDATABASE=str(name or db["NAME"]),
    )
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    return env


def _pg_connect(db: dict[str, Any], name: str | None = None) -> Any:
    import psycopg  # noqa: PLC0415 - only a PostgreSQL site needs it

    return psycopg.connect(
        host=str(db.get("HOST") or "127.0.0.1"),
        port=str(db.get("PORT") or 5432),
        user=str(db.get("USER") or "postgres"),
        password=str(db.get("PASSWORD") or "") or None,
        dbname=str(name or db["NAME"]),
        autocommit=True,
        connect_timeout=10,
    )


def _backup_postgres(partial: Path) -> tuple[Any, Any, Any]:
    db = connection.settings_dict
    # The dump and the counts read one snapshot: exported from a
    # transaction of our own, held open until pg_dump has taken it up.
    with _pg_connect(db) as conn, conn.cursor() as cursor:
        cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        cursor.execute(_COUNTS)
        counts = cursor.fetchone()
        done = subprocess.run(  # noqa: S603 - our own command line
            [pg_tool("pg_dump"), "--format=custom", f"--snapshot={snapshot}",
             "--no-owner", "--no-privileges", f"--file={partial}"],
            env=_pg_env(db), capture_output=True, text=True, check=False,
        )  # fmt: skip
        cursor.execute("COMMIT")
    if done.returncode:
        raise BackupError(f"pg_dump failed: {done.stderr.strip()[-2000:]}")
    return counts


def read_manifest(path: Path) -> Manifest:
    manifest_path = path.with_name(path.name + ".json")
    if not path.is_file():
        raise BackupError(f"no backup at {path}")
    if not manifest_path.is_file():
        raise BackupError(f"{path} has no manifest ({manifest_path.name}): not one of our backups")
    try:
        manifest = Manifest(**json.loads(manifest_path.read_text()))
    except (ValueError, TypeError) as exc:
        raise BackupError(f"{manifest_path} is not a backup manifest: {exc}") from None
    if _sha256(path) != manifest.sha256:
        raise BackupError(f"{path} does not match its manifest's SHA-256: damaged or altered")
    return manifest


def restore(path: Path) -> Manifest:
    """Bring the database back to ``path``'s backup, replacing what is there.
    The backup is checked first (manifest, SHA-256, engine): a bad one
    changes nothing. Stop the site first (docs/operations.md)."""
    manifest = read_manifest(path)
    engine = _engine()
    if manifest.engine != engine:
        raise BackupError(f"{path} is a {manifest.engine} backup; this site runs on {engine}")
    before = _books_now(engine)
    live = live_log() if before is not None else None
    _close_connections()
    if engine == "sqlite":
        _restore_sqlite(path)
    else:
        _restore_postgres(path)
    _close_connections()
    # The commitment log never goes back in time: the live one is kept.
    put_back(live)
    # A restore drops every round after its backup, payouts included: it
    # leaves its trace in the audit log, where operators read it in words.
    AuditEntry.objects.create(
        actor=None,
        action="database.restore",
        object_type="database",
        object_id=manifest.file[:40],
        object_repr=manifest.file[:200],
        before=before,
        after={
            "taken_at": manifest.taken_at,
            "rounds": manifest.rounds,
            "last_round_id": manifest.last_round_id,
        },
    )
    return manifest


def _close_connections() -> None:
    """This process's own connections, a pool's kept ones too (CASINO_DB_POOL)."""
    for conn in connections.all():
        conn.close()
        if hasattr(conn, "close_pool"):
            conn.close_pool()


def _books_now(engine: str) -> dict[str, Any] | None:
    """The rounds the database holds before a restore (None: it is lost)."""
    if engine == "sqlite" and not Path(str(connection.settings_dict["NAME"])).exists():
        return None  # connecting would make an empty file where the lost one was
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*), MAX(id) FROM games_round")
            rounds, last = cursor.fetchone()
    except DatabaseError:
        return None
    return {"rounds": rounds, "last_round_id": last}


def _restore_sqlite(path: Path) -> None:
    live = Path(str(connection.settings_dict["NAME"]))
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if source.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise BackupError(f"{path} fails SQLite's integrity check")
        if not live.exists():
            # A write-ahead log left from a lost file belongs to that file:
            # replayed into the restored one it would corrupt it.
            for suffix in ("-wal", "-shm"):
                Path(str(live) + suffix).unlink(missing_ok=True)
        live.parent.mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(live, timeout=30)
        try:
            source.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode=WAL")
        finally:
            target.close()
    finally:
        source.close()


def _restore_postgres(path: Path) -> None:
    db = connection.settings_dict
    listed = subprocess.run(  # noqa: S603
        [pg_tool("pg_restore"), "--list", str(path)], capture_output=True, text=True, check=False
    )
    if listed.returncode:
        raise BackupError(f"{path} is not a pg_dump archive: {listed.stderr.strip()[-500:]}")
    # The database may be gone with the rest (a new server): make it again.
    import psycopg  # noqa: PLC0415 - only a PostgreSQL site needs it
    from psycopg import sql  # noqa: PLC0415

    try:
        with _pg_connect(db, "postgres") as conn:
            found = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]
            ).fetchone()
            if not found:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db["NAME"])))
            # A server still using the database would wait on the restore's
            # locks, or write into it half-way: the site must be stopped.
            users = conn.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                [db["NAME"]],
            ).fetchone()[0]
    except psycopg.OperationalError as exc:
        raise BackupError(f"PostgreSQL does not answer: {exc}") from None
    if users:
        raise BackupError(
            f"{users} connection(s) to {db['NAME']} are open: stop the site (and any "
            "shell on it) before restoring"
        )
    # One transaction: a restore that fails half-way leaves the database as it was.
    done = subprocess.run(  # noqa: S603
        [pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
         "--single-transaction", "--exit-on-error", f"--dbname={db['NAME']}", str(path)],
        env=_pg_env(db), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise BackupError(f"pg_restore failed: {done.stderr.strip()[-2000:]}")
