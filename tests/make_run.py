"""Serving the site in tests as ``make run`` does: its server command, read
from the Makefile itself (``make -n run``) so the tests follow it when its
server or limits change; production settings on a fresh file, its set-up
steps, and a server subprocess for the length of a block."""

from __future__ import annotations

import atexit
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import urlopen

from bench.load import make_run_commands, production_env  # noqa: F401 - the tests' import

ROOT = Path(__file__).resolve().parent.parent


def make_run_command(host: str, port: int) -> list[str]:
    """``make run``'s last command for ``host`` and ``port`` (read by
    bench/load.py's ``make_run_commands``), with this interpreter as its
    Python."""
    command = shlex.split(make_run_commands(host, port)[1])
    if command[0].endswith("/python"):
        command[0] = sys.executable
    return command


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# What the set-up makes (a migrated database with the default tables and the
# staff roles, the collected static files) depends on neither a site's
# secret key nor its port: made once per test process, then copied for each
# next site (migrate and collectstatic take seconds each).
_made: dict[str, Path] = {}


def set_up_site(env: dict[str, str]) -> None:
    """``make run``'s set-up that a served site needs: migrate, the default
    tables, the collected static files."""
    database, static = Path(env["CASINO_SQLITE_PATH"]), Path(env["DJANGO_STATIC_ROOT"])
    if not _made:
        for command in (
            ["migrate", "--no-input", "-v", "0"],
            ["setup_casino"],
            ["collectstatic", "--no-input", "-v", "0"],
        ):
            done = subprocess.run(
                [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True
            )
            if done.returncode:
                raise RuntimeError(f"{command[0]} failed: {done.stderr.decode()[-2000:]}")
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
def serving(command: list[str], env: dict[str, str], port: int, *, seconds: float = 120):
    """``command`` in a subprocess until the block ends; the block starts
    once the server answers on ``port`` (its URL is yielded). Its log goes to
    a file: a pipe nobody reads fills up with a line a request, and the
    server stops answering once its next write blocks."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"

    def log_tail() -> str:
        log.seek(0)
        return log.read().decode(errors="replace")[-2000:]

    try:
        deadline = time.monotonic() + seconds
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{command[:3]} exited: {log_tail()}")
            try:
                urlopen(url + "/accounts/login/", timeout=10).close()  # noqa: S310 - loopback
                break
            except HTTPError:  # it answers
                break
            except OSError:  # not listening yet, or still loading
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{command[:3]} did not answer in {seconds:g} s") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
