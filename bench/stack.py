"""The servers a bench plays against, started one way each: ``make run``'s
server (its commands read from the Makefile) on a fresh SQLite file, or the
cluster (``make cluster``, that is ops/cluster.sh: gunicorn, uvicorn,
PostgreSQL, Redis, nginx); the process ids of each part of the stack, for
the CPU it spends. A server that does not come up stops the bench with the
reason (SystemExit). Only the standard library here: the tests start their
servers with it too (tests/make_run.py)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urlsplit
from urllib.request import urlopen

from commitlog.keys import make_key

ROOT = Path(__file__).resolve().parent.parent
# The reveal's card-by-card pacing is the browser's, not the server's work.
NO_PACING = {"CASINO_REVEAL_DELAY": "0", "CASINO_REVEAL_FAST_DELAY": "0"}


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def wait_http(url: str, seconds: float, proc: subprocess.Popen | None = None) -> None:
    """Until the site at ``url`` answers (any HTTP status); SystemExit when
    ``proc`` exits first or ``seconds`` pass."""
    end = time.monotonic() + seconds
    while True:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the server for {url} exited (status {proc.returncode})")
        try:
            urlopen(url + "/accounts/login/", timeout=5).close()  # noqa: S310 - loopback
            return
        except HTTPError:  # it answers
            return
        except OSError:  # not listening yet, or still loading
            if time.monotonic() > end:
                raise SystemExit(
                    f"the server at {url} did not answer within {seconds:.0f} s"
                ) from None
            time.sleep(0.2)


def production_env(folder: Path) -> dict[str, str]:
    """Production settings (debug off) on a fresh SQLite file and static root
    in ``folder``, over plain http on loopback: what ``make run`` serves, for
    the servers the benches and the tests start themselves."""
    return {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_HSTS_SECONDS": "0",
        "DJANGO_STATIC_ROOT": str(folder / "static"),
        "CASINO_SQLITE_PATH": str(folder / "casino.sqlite3"),
        "CASINO_TESTING": "0",
        # The Makefile's bytecode cache, outside the tree.
        "PYTHONPYCACHEPREFIX": os.environ.get("PYTHONPYCACHEPREFIX", str(ROOT / ".pycache")),
        # The commitment log's files beside the database (its key made here:
        # make run's `make_log_key` step writes the shared db/log_key only).
        "CASINO_LOG_KEY_FILE": str(_log_key(folder)),
        "CASINO_LOG_PUBLISHED_FILE": str(folder / "log_published"),
        "CASINO_LOG_WITNESSES_FILE": str(folder / "log_witnesses"),
    }


def _log_key(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    make_key(folder / "log_key")
    return folder / "log_key"


def make_run_commands(host: str, port: int) -> tuple[list[str], str]:
    """(set-up commands, server command) of the Makefile's ``run`` target,
    from ``make -n``: the last command serves, the ``manage.py`` ones before
    it prepare the database and the static files."""
    printed = subprocess.run(
        ["make", "-n", "--no-print-directory", "run", f"HOST={host}", f"PORT={port}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    commands = [c.strip() for c in printed.replace("\\\n", " ").splitlines() if c.strip()]
    server = commands[-1]
    if server.startswith("echo") or "manage.py" in server:
        raise SystemExit(f"`make -n run`'s last command does not look like a server: {server}")
    return [c for c in commands[:-1] if "manage.py" in c], server


def make_run_command(host: str, port: int) -> list[str]:
    """``make run``'s server command for ``host`` and ``port``, with this
    interpreter as its Python."""
    command = shlex.split(make_run_commands(host, port)[1])
    if command[0].endswith("/python"):
        command[0] = sys.executable
    return command


# make run's steps that a fresh folder skips: its secret key is in the
# environment (its log key in its folder; no witness runs beside it), a new database has no rounds to repair nor demo players to
# clean up, and compiling the catalogues would rewrite the shared tree's.
NOT_ON_A_FRESH_SITE = (
    "make_secret_key",
    "make_log_key",
    "witness",
    "repair_rounds",
    "cleanup_demo",
    "compilemessages",
)


def set_up(env: dict[str, str]) -> None:
    """``make run``'s set-up steps (migrate, the default tables, the
    collected static files) on the fresh database ``env`` names."""
    for command in make_run_commands("127.0.0.1", 8000)[0]:
        if any(step in command for step in NOT_ON_A_FRESH_SITE):
            continue
        done = subprocess.run(
            ["sh", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True
        )
        if done.returncode:
            raise SystemExit(f"make run's set-up failed: {command}\n{done.stderr[-2000:]}")


class Server:
    """A server command in a session of its own, its output in a file (a
    pipe nobody reads fills up, and the server stops once its next write
    blocks), until ``stop()``: SIGTERM to the whole session, SIGKILL after
    15 s."""

    def __init__(self, command: list[str], env: dict[str, str], url: str, wait: float = 120):
        self.url = url
        self.command = shlex.join(command)
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pids = [self.proc.pid]
        try:
            wait_http(url, wait, self.proc)
        except SystemExit as exc:
            tail = self.log_tail()
            self.stop()
            raise SystemExit(f"{exc}: {command[:3]}\n{tail}") from None

    def log_tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=wait)
                break
        self.log.close()


class MakeRun(Server):
    """``make run``'s server on a fresh SQLite file, production settings
    (DEBUG off), the reveal's pacing off, its static files in a folder of
    its own; stopped and deleted afterwards."""

    def __init__(
        self,
        host: str,
        port: int,
        wait: float = 120,
        set_up: Callable[[dict[str, str]], None] = set_up,
    ) -> None:
        if port_open(host, port):
            raise SystemExit(f"something already listens on {host}:{port}; pick another --url")
        self.dir = Path(tempfile.mkdtemp(prefix="casino-make-run-"))
        self.env = {**production_env(self.dir), **NO_PACING, "DJANGO_LOG_LEVEL": "WARNING"}
        try:
            set_up(self.env)
            command = make_run_command(host, port)
            print(f"make run serves with: {shlex.join(command)}", file=sys.stderr, flush=True)
            super().__init__(command, self.env, f"http://{host}:{port}", wait)
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        self.parts = {"make run": self.pids}

    def ledger_env(self) -> dict[str, str]:
        return self.env

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def pids_in(folder: Path, *patterns: str) -> list[int]:
    """The pids that these pid files (glob patterns in ``folder``) name."""
    out = []
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            with contextlib.suppress(OSError, ValueError, IndexError):
                out.append(int(path.read_text().split()[0]))
    return out


class Cluster:
    """``make cluster`` (ops/cluster.sh) with the reveal's pacing off, ``make
    cluster-stop`` after. Its folder, ports and data are ops/cluster.sh's:
    ``CLUSTER_DIR``, ``CLUSTER_PG_PORT``, ``CLUSTER_REDIS_PORT`` and
    ``CLUSTER_WORKER_BASE`` move it off another cluster's."""

    PIDFILES = ("supervisord.pid", "gunicorn.pid", "login.pid", "ws*.pid")

    def __init__(self, port: int, workers: int, ws_workers: int = 1) -> None:
        self.dir = Path(os.environ.get("CLUSTER_DIR") or ROOT / ".cluster")
        if any(map(alive, pids_in(self.dir, *self.PIDFILES))):
            raise SystemExit(
                f"a cluster is already running ({self.dir}): run `make cluster-stop` "
                "first, or use --serve none against it"
            )
        if port_open("127.0.0.1", port):
            raise SystemExit(f"something already listens on 127.0.0.1:{port}; pick another --url")
        self.url = f"http://127.0.0.1:{port}"
        env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
            **NO_PACING,
            "DJANGO_LOG_LEVEL": "WARNING",
        }
        settings = [f"PORT={port}", f"HTTP_WORKERS={workers}", f"WS_WORKERS={ws_workers}"]
        done = subprocess.run(
            ["make", "--no-print-directory", "cluster", *settings], cwd=ROOT, env=env, check=False
        )
        if done.returncode:
            self.stop()
            raise SystemExit(
                f"`make cluster` failed (exit {done.returncode}); see its output above"
            )
        # What the cluster wrote of itself: its settings, the ports of its
        # PostgreSQL and Redis, and so their folder (ops/cluster.sh's header).
        self.db_env: dict[str, str] = {}
        for line in (self.dir / "env").read_text().splitlines():
            key, _, value = line.removeprefix("export ").strip().partition("=")
            if value:
                self.db_env[key] = value
        self.pg_port = str(urlsplit(self.db_env["DATABASE_URL"]).port)
        self.redis_port = str(urlsplit(self.db_env["REDIS_URL"]).port)
        self.data = Path(f"/tmp/casino-cluster-{self.pg_port}")  # noqa: S108 - ops/cluster.sh's
        # supervisord: gunicorn (its workers are its children) and uvicorn.
        self.pids = pids_in(self.dir, *self.PIDFILES)
        # The rest of the stack: PostgreSQL's postmaster (its backends are its
        # children), Redis and nginx's master (its workers are children).
        self.parts = {
            "gunicorn": self.supervised("gunicorn", "login"),
            "uvicorn": self.supervised(*(f"ws{i}" for i in range(ws_workers))),
            "live dealer": self.supervised("live_dealer"),
            "postgresql": pids_in(self.data / "pg", "postmaster.pid"),
            "redis": pids_in(self.data, "redis.pid"),
            "nginx": pids_in(self.dir, "nginx.pid"),
        }
        missing = [name for name, pids in self.parts.items() if not pids]
        if missing:
            self.stop()
            raise SystemExit(f"the cluster came up without {', '.join(missing)} (no pid file)")

    def supervisorctl(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "supervisor.supervisorctl", "-c"]
            + [str(self.dir / "supervisord.conf"), *args],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def supervised(self, *names: str) -> list[int]:
        """The pids supervisord gives for these programs (none: not running)."""
        out = []
        for name in names:
            with contextlib.suppress(ValueError):
                if (pid := int(self.supervisorctl("pid", name).strip())) > 0:
                    out.append(pid)
        return out

    def ledger_env(self) -> dict[str, str]:
        return {**os.environ, **self.db_env}

    def log_tail(self) -> str:
        out = []
        for log in [self.dir / "gunicorn.log", *sorted(self.dir.glob("ws*.log"))]:
            if log.exists():
                out.append(f"--- {log.name}\n" + log.read_text(errors="replace")[-1500:])
        return "\n".join(out)

    def stop(self) -> None:
        subprocess.run(["make", "--no-print-directory", "cluster-stop"], cwd=ROOT, check=False)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
