"""Serving the site in tests as ``make run`` does, with the benches' own
helpers (bench/stack.py): its server command read from the Makefile (``make
-n run``) so the tests follow it when its server or limits change,
production settings on a fresh file, its set-up steps, and a server
subprocess for the length of a block."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.stack import Server, free_port, make_run_command, production_env, set_up

__all__ = [
    "free_port",
    "make_run_command",
    "production_env",
    "run_folder",
    "serving",
    "set_up_site",
]

# What the set-up makes (a migrated database with the default tables and the
# staff roles, the collected static files, about 20 s: whitenoise compresses
# every file) depends on neither a site's secret key nor its port: made once
# per test run, by the first pytest-xdist worker that asks (the others wait
# on a lock), then copied for each site.


def run_folder(tmp_path_factory) -> Path:
    """A folder every worker of this pytest run shares (pytest's base
    temporary folder, its workers' parent under pytest-xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def set_up_site(env: dict[str, str], tmp_path_factory) -> None:
    """``make run``'s set-up that a served site needs (bench/stack.py's
    ``set_up``), on the database and static folder ``env`` names: made once
    a run (or once a ``make test``), then copied."""
    database, static = Path(env["CASINO_SQLITE_PATH"]), Path(env["DJANGO_STATIC_ROOT"])
    # `make test` names one folder for all its suites: the browser suite
    # copies the site the fast suite made.
    shared = os.environ.get("CASINO_TEST_SITE")
    kept = Path(shared) if shared else run_folder(tmp_path_factory) / "casino-site"
    kept.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (kept / "made").exists():
            set_up(env)
            _copy_site(database, static, kept / database.name, kept / "static")
            (kept / "made").touch()
            return
    _copy_site(kept / database.name, kept / "static", database, static)


def _copy_site(database: Path, static: Path, to_database: Path, to_static: Path) -> None:
    to_database.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal"):  # SQLite's write-ahead log, if a set-up step left one
        if Path(f"{database}{suffix}").exists():
            shutil.copyfile(f"{database}{suffix}", f"{to_database}{suffix}")
    shutil.copytree(static, to_static, dirs_exist_ok=True)


@contextmanager
def serving(
    command: list[str], env: dict[str, str], port: int, *, seconds: float = 120
) -> Iterator[str]:
    """``command`` in a subprocess until the block ends; the block starts
    once the server answers on ``port`` (its URL is yielded)."""
    try:
        server = Server(command, env, f"http://127.0.0.1:{port}", seconds)
    except SystemExit as exc:  # a test's error, not the end of pytest
        raise RuntimeError(str(exc)) from None
    try:
        yield server.url
    finally:
        server.stop()
