"""The servers a bench plays against: ``make run``'s (its commands read from
the Makefile) on a fresh SQLite file, or ``make cluster`` (gunicorn, uvicorn,
PostgreSQL, Redis, nginx); the process ids of each part of the stack, for the
CPU it spends. A server that does not come up stops the bench with the
reason (SystemExit)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def wait_http(url: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if requests.get(url + "/accounts/login/", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server at {url} did not answer within {seconds:.0f} s")


def server_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "CASINO_REVEAL_DELAY": "0",
            "CASINO_REVEAL_FAST_DELAY": "0",
            "DJANGO_LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    env.update(extra)
    return env


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
        "PYTHONDONTWRITEBYTECODE": "1",
    }


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
    commands: list[str] = []
    pending = ""
    for line in printed.splitlines():
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append((pending + line).strip())
        pending = ""
    commands = [c for c in commands if c]
    server = commands[-1]
    if server.startswith("echo") or "manage.py" in server:
        raise SystemExit(f"`make -n run`'s last command does not look like a server: {server}")
    setup = [c for c in commands[:-1] if "manage.py" in c and "compilemessages" not in c]
    return setup, server


class SingleServer:
    """``make run``'s server on a fresh SQLite file, production settings
    (DEBUG off), its static files in a folder of its own; stopped and deleted
    afterwards."""

    def __init__(self, host: str, port: int) -> None:
        if port_open(host, port):
            raise SystemExit(f"something already listens on {host}:{port}; pick another --url")
        self.dir = Path(tempfile.mkdtemp(prefix="casino-load-"))
        self.env = server_env(production_env(self.dir))
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        setup, self.command = make_run_commands(host, port)
        for command in setup:
            done = subprocess.run(["sh", "-c", command], cwd=ROOT, env=self.env, check=False)
            if done.returncode:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise SystemExit(f"make run's set-up failed (exit {done.returncode}): {command}")
        print(f"make run serves with: {self.command}", file=sys.stderr, flush=True)
        self.log = open(self.dir / "server.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            ["sh", "-c", self.command],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pids = [self.proc.pid]
        self.stack_pids = self.pids
        self.parts = {"make run": self.pids}

    def ledger_env(self) -> dict[str, str]:
        return self.env

    def log_tail(self) -> str:
        self.log.flush()
        return (self.dir / "server.log").read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        """SIGTERM to the whole process group (the shell may have gone while
        the server lingers on open connections), SIGKILL after 15 s."""
        for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            end = time.monotonic() + wait
            while time.monotonic() < end:
                self.proc.poll()  # reap the shell
                try:
                    os.killpg(self.proc.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def pids_in(folder: Path, *patterns: str) -> list[int]:
    """The pids that these pid files (glob patterns in ``folder``) name."""
    out = []
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            with contextlib.suppress(OSError, ValueError, IndexError):
                out.append(int(path.read_text().split()[0]))
    return out


class ClusterServer:
    """``make cluster`` with the reveal pacing off, ``make cluster-stop`` after."""

    PIDFILES = ("supervisord.pid", "gunicorn.pid", "login.pid", "ws*.pid")

    def __init__(self, port: int, workers: int, ws_workers: int = 1) -> None:
        self.dir = cluster = Path(os.environ.get("CLUSTER_DIR") or ROOT / ".cluster")
        for pidfile in self.pidfiles(cluster):
            try:
                os.kill(int(pidfile.read_text().strip()), 0)
            except (OSError, ValueError):
                continue
            raise SystemExit(
                f"a cluster is already running ({pidfile}): run `make cluster-stop` "
                "first, or use --serve none against it"
            )
        self.env = server_env(
            {"PORT": str(port), "HTTP_WORKERS": str(workers), "WS_WORKERS": str(ws_workers)}
        )
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        if port_open("127.0.0.1", port):
            raise SystemExit(f"something already listens on 127.0.0.1:{port}; pick another --url")
        self.started = True
        done = subprocess.run(
            [
                "make",
                "--no-print-directory",
                "cluster",
                f"PORT={port}",
                f"HTTP_WORKERS={workers}",
                f"WS_WORKERS={ws_workers}",
            ],
            cwd=ROOT,
            env=self.env,
            check=False,
        )
        if done.returncode:
            self.stop()
            raise SystemExit(
                f"`make cluster` failed (exit {done.returncode}); see its output above"
            )
        # supervisord: gunicorn (its workers are its children) and uvicorn.
        self.pids = [int(p.read_text().strip()) for p in self.pidfiles(cluster) if p.exists()]
        # The rest of the stack: PostgreSQL's postmaster (its backends are its
        # children), Redis and nginx's master (its workers are children).
        data = Path(f"/tmp/casino-cluster-{os.environ.get('CLUSTER_PG_PORT', '25433')}")  # noqa: S108 - ops/cluster.sh keeps its data there
        self.parts = {
            "gunicorn": self.supervised("gunicorn", "login"),
            "uvicorn": self.supervised(*(f"ws{i}" for i in range(ws_workers))),
            "postgresql": pids_in(data / "pg", "postmaster.pid"),
            "redis": pids_in(data, "redis.pid"),
            "nginx": pids_in(cluster, "nginx.pid"),
        }
        missing = [name for name, pids in self.parts.items() if not pids]
        if missing:
            self.stop()
            raise SystemExit(f"the cluster came up without {', '.join(missing)} (no pid file)")
        self.stack_pids = [pid for pids in self.parts.values() for pid in pids]
        self.db_env: dict[str, str] = {}
        for line in (cluster / "env").read_text().splitlines():
            line = line.removeprefix("export ").strip()
            if "=" in line:
                key, value = line.split("=", 1)
                self.db_env[key] = value

    def supervised(self, *names: str) -> list[int]:
        """The pids supervisord gives for these programs (0: not running)."""
        out = []
        for name in names:
            done = subprocess.run(
                [sys.executable, "-m", "supervisor.supervisorctl", "-c"]
                + [str(self.dir / "supervisord.conf"), "pid", name],
                capture_output=True,
                text=True,
                check=False,
            )
            with contextlib.suppress(ValueError):
                if int(done.stdout.strip()) > 0:
                    out.append(int(done.stdout.strip()))
        return out

    @classmethod
    def pidfiles(cls, cluster: Path) -> list[Path]:
        return [p for pattern in cls.PIDFILES for p in sorted(cluster.glob(pattern))]

    def ledger_env(self) -> dict[str, str]:
        return {**os.environ, **self.db_env}

    def log_tail(self) -> str:
        out = []
        logs = ["gunicorn.log", *(p.name for p in sorted(self.dir.glob("ws*.log")))]
        for log in (self.dir / name for name in logs):
            if not log.exists():
                continue
            out.append(f"--- {log.name}\n" + log.read_text(errors="replace")[-1500:])
        return "\n".join(out)

    def stop(self) -> None:
        subprocess.run(["make", "--no-print-directory", "cluster-stop"], cwd=ROOT, check=False)
