"""Serving the site in tests as ``make run`` does, with the benches' own
helpers (bench/stack.py): its server command read from the Makefile (``make
-n run``) so the tests follow it when its server or limits change,
production settings on a fresh file, its set-up steps, and a server
subprocess for the length of a block."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.stack import Server, free_port, make_run_command, production_env, set_up

__all__ = ["free_port", "make_run_command", "production_env", "serving", "set_up_site"]

# What the set-up makes (a migrated database with the default tables and the
# staff roles, the collected static files) depends on neither a site's
# secret key nor its port: made once per test process, then copied for each
# next site (migrate and collectstatic take seconds each).
_made: dict[str, Path] = {}


def set_up_site(env: dict[str, str]) -> None:
    """``make run``'s set-up that a served site needs (bench/stack.py's
    ``set_up``), on the database and static folder ``env`` names."""
    database, static = Path(env["CASINO_SQLITE_PATH"]), Path(env["DJANGO_STATIC_ROOT"])
    if not _made:
        set_up(env)
        kept = Path(tempfile.mkdtemp(prefix="casino-site-"))
        atexit.register(shutil.rmtree, kept, True)
        _copy_site(database, static, kept / database.name, kept / "static")
        _made.update(database=kept / database.name, static=kept / "static")
        return
    _copy_site(_made["database"], _made["static"], database, static)


def _copy_site(database: Path, static: Path, to_database: Path, to_static: Path) -> None:
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
