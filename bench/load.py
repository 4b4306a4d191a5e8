"""Load test: P players sign up and play Baccarat and Casino War for T
seconds over HTTP and websockets, driven by Locust. The last line printed is
one JSON object.

Run from the repository root, for example::

    .venv/bin/python bench/load.py --serve single --players 200 --seconds 30
    .venv/bin/python bench/load.py --serve cluster --players 500 --seconds 60
    .venv/bin/python bench/load.py --serve cluster --players 300 --fast --workers 2
    .venv/bin/python bench/load.py --serve none --url http://127.0.0.1:8000 \\
        --sqlite-path db/casino.sqlite3

``--serve single`` starts ``make run``'s server (its commands read from the
Makefile) on a fresh SQLite file,
``--serve cluster`` runs ``make cluster`` (``--http-workers`` gunicorn and
``--ws-workers`` daphne workers on PostgreSQL and Redis behind nginx) and
``make cluster-stop`` afterwards, ``--serve none`` uses a running server.
The servers it starts run with CASINO_REVEAL_DELAY=0 and
CASINO_REVEAL_FAST_DELAY=0, so the latency measures the server and not the
deliberate card-by-card pacing of the reveal.

The players are bench/locustfile.py's (``PacedPlayer``, or ``FastPlayer``
with ``--fast``), run by ``locust --headless``: one process, or with
``--workers N`` Locust's distributed mode (a master and N workers on this
machine, as one would spread them over several). Every player signs up
(``--spawn-rate`` a second), sits down and waits; once all are seated they
play for ``--seconds`` (the window the CPU is measured over) and finish the
round they are in.

JSON fields: ``players``, ``rounds`` (completed, both games), ``rounds_per_s``,
``p50_ms`` / ``p99_ms`` (every round, bet to result), ``errors`` (HTTP
statuses other than 2xx/3xx, "something went wrong" answers, refusals,
sockets that could not be reopened, timeouts, missing fragments),
``ledger_ok`` (``manage.py audit_ledger`` exits 0 and the balances, the
rounds and the grants add up, every round's ledger rows move exactly its
net), ``stack_cpu_ms_per_round`` (CPU of gunicorn, daphne, PostgreSQL, Redis
and nginx over the window per round completed in it); then ``reveals_lost``
(Baccarat rounds dealt to this run's players that never reached the
player's socket, late or after a reconnect counting as arrived), per game,
per request kind, sign-up times, the load average and the machine's busy
share.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / ".venv" / "bin" / "python"
if not PY.exists():
    PY = Path(sys.executable)
LOCUSTFILE = ROOT / "bench" / "locustfile.py"


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


# ------------------------------------------------------------------ servers


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
            subprocess.run(["sh", "-c", command], cwd=ROOT, env=self.env, check=True)
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
        subprocess.run(
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
            check=True,
        )
        # supervisord: gunicorn (its workers are its children) and daphne.
        self.pids = [int(p.read_text().strip()) for p in self.pidfiles(cluster) if p.exists()]
        # The rest of the stack: PostgreSQL's postmaster (its backends are its
        # children), Redis and nginx's master (its workers are children).
        data = Path(f"/tmp/casino-cluster-{os.environ.get('CLUSTER_PG_PORT', '25433')}")  # noqa: S108 - ops/cluster.sh keeps its data there
        self.stack_pids = list(self.pids)
        for pidfile in (data / "pg" / "postmaster.pid", data / "redis.pid", cluster / "nginx.pid"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                self.stack_pids.append(int(pidfile.read_text().split()[0]))
        self.db_env: dict[str, str] = {}
        for line in (cluster / "env").read_text().splitlines():
            line = line.removeprefix("export ").strip()
            if "=" in line:
                key, value = line.split("=", 1)
                self.db_env[key] = value

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


# ------------------------------------------------------------------ the ledger

LEDGER_CHECK = """
import json
from django.db.models import Q, Sum, Value
from django.db.models.functions import Coalesce
from games.models import LedgerEntry, Round, Wallet
balances = Wallet.objects.aggregate(s=Sum("balance"))["s"] or 0
live = Round.objects.exclude(status=Round.Status.VOID).aggregate(
    b=Sum("total_bet"), r=Sum("total_return"))
house_net = (live["b"] or 0) - (live["r"] or 0)
grants = LedgerEntry.objects.filter(kind__in=["grant", "topup", "adjustment"]).aggregate(
    s=Sum("amount"))["s"] or 0
moved = Round.objects.annotate(m=Coalesce(Sum("ledger_entries__amount"), Value(0)))
bad_live = sum(1 for r in moved.exclude(status=Round.Status.VOID).values("m", "total_bet",
    "total_return").iterator() if r["m"] != r["total_return"] - r["total_bet"])
bad_void = moved.filter(status=Round.Status.VOID).exclude(m=0).count()
import os
prefix = os.environ.get("LOAD_USER_PREFIX")
dealt = {}
if prefix:
    for name, pk in Round.objects.filter(game="baccarat", player__username__startswith=prefix
            ).values_list("player__username", "pk").iterator():
        dealt.setdefault(name, []).append(pk)
print(json.dumps({"dealt": dealt, "balances": balances, "house_net": house_net, "grants": grants,
    "rounds": Round.objects.count(), "open_rounds": Round.objects.filter(status="open").count(),
    "void_rounds": Round.objects.filter(status="void").count(),
    "round_mismatches": bad_live + bad_void, "wallets": Wallet.objects.count()}))
"""


def check_ledger(env: dict[str, str], user_prefix: str = "") -> dict:
    audit = subprocess.run(
        [str(PY), "manage.py", "audit_ledger"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    sums = subprocess.run(
        [str(PY), "manage.py", "shell", "-c", LEDGER_CHECK],
        cwd=ROOT,
        env={**env, "LOAD_USER_PREFIX": user_prefix},
        capture_output=True,
        text=True,
    )
    result: dict = {
        "audit_rc": audit.returncode,
        "audit": (audit.stdout.strip() or audit.stderr.strip())[-300:],
    }
    try:
        result.update(json.loads(sums.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        result["error"] = sums.stderr[-500:]
        result["ok"] = False
        return result
    result["identity_ok"] = result["balances"] + result["house_net"] == result["grants"]
    result["ok"] = (
        audit.returncode == 0 and result["identity_ok"] and result["round_mismatches"] == 0
    )
    return result


# ------------------------------------------------------------------ machine


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pids: list[int]) -> float:
    """User+system CPU seconds of these processes and all their descendants,
    live (PostgreSQL backends, gunicorn and nginx workers) or exited and
    reaped (the kernel adds those to their parent's children's times)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, list[str]] = {}
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields is None:
            continue
        stats[int(entry.name)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    total = 0.0
    todo = [p for p in pids if p in stats]
    seen: set[int] = set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += sum(int(x) for x in stats[pid][11:15]) / tick
        todo += children.get(pid, [])
    return total


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


class Sampler(threading.Thread):
    """The 1-minute load average, once a second, while the window runs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append(loadavg())
            self.stop.wait(1.0)


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--serve", choices=["single", "cluster", "none"], default="none")
    parser.add_argument(
        "--workers", type=int, default=0, help="Locust workers (0: one Locust process)"
    )
    parser.add_argument(
        "--http-workers", type=int, default=2, help="gunicorn workers for --serve cluster"
    )
    parser.add_argument(
        "--ws-workers", type=int, default=1, help="daphne websocket workers for --serve cluster"
    )
    parser.add_argument("--fast", action="store_true", help="FastPlayer: fast play and REBET")
    parser.add_argument(
        "--think",
        type=float,
        default=-1.0,
        help="mean seconds between rounds (PacedPlayer 6, FastPlayer 3)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=-1.0,
        help="seconds per reveal step waited out (PacedPlayer 0.6, FastPlayer 0)",
    )
    parser.add_argument("--games", default="baccarat,war")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds per request/result")
    parser.add_argument("--spawn-rate", type=float, default=10.0, help="sign-ups started a second")
    parser.add_argument("--baccarat-table", default="baccarat-social")
    parser.add_argument("--war-table", default="casino-war")
    parser.add_argument(
        "--database-url", default="", help="--serve none: the server's DATABASE_URL"
    )
    parser.add_argument("--sqlite-path", default="", help="--serve none: the server's SQLite file")
    args = parser.parse_args(argv)
    parts = urlsplit(args.url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        parser.error("--url must be http://127.0.0.1:PORT (traffic stays on this machine)")
    if args.players < 1 or args.seconds <= 0:
        parser.error("--players and --seconds must be positive")
    args.url = f"http://{parts.hostname}:{parts.port or 80}"
    return args


def start_server(args: argparse.Namespace) -> SingleServer | ClusterServer | None:
    parts = urlsplit(args.url)
    if args.serve == "single":
        return SingleServer(parts.hostname or "127.0.0.1", parts.port or 80)
    if args.serve == "cluster":
        return ClusterServer(parts.port or 80, args.http_workers, args.ws_workers)
    return None


def ledger_env_for(
    args: argparse.Namespace, server: SingleServer | ClusterServer | None
) -> dict[str, str] | None:
    if server is not None:
        return server.ledger_env()
    if args.database_url:
        return {**os.environ, "DATABASE_URL": args.database_url}
    if args.sqlite_path:
        env = {**os.environ, "CASINO_SQLITE_PATH": str(Path(args.sqlite_path).resolve())}
        env.pop("DATABASE_URL", None)
        return env
    return None


def add_ledger(result: dict, players: list[dict], env: dict[str, str] | None) -> None:
    """``ledger_ok`` and ``reveals_lost`` from the server's database."""
    if env is None:
        result.update(ledger_ok=None, reveals_lost=None, ledger="no database given")
        return
    ledger = check_ledger(env, f"load-{result['run_id']}-")
    result["ledger_ok"] = ledger.pop("ok")
    # Every Baccarat round dealt to a player must have reached its socket.
    dealt = ledger.pop("dealt", {})
    seen = {p["username"]: set(p["seen_rounds"]) for p in players}
    result["reveals_lost"] = sum(
        len(set(ids) - seen.get(name, set())) for name, ids in dealt.items()
    )
    result["baccarat_rounds_dealt"] = sum(len(ids) for ids in dealt.values())
    result["ledger"] = ledger


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server = start_server(args)
    try:
        wait_http(args.url, 60)
        result, players = run(args, server)
        add_ledger(result, players, ledger_env_for(args, server))
        if server is not None and result["errors"]:
            result["server_log_tail"] = server.log_tail()[-2000:]
    finally:
        if server is not None:
            server.stop()
    print_result(result)
    return 0


JSON_HEAD = (
    "players",
    "rounds",
    "rounds_per_s",
    "p50_ms",
    "p99_ms",
    "errors",
    "ledger_ok",
    "stack_cpu_ms_per_round",
)


def print_result(r: dict) -> None:
    print(
        f"{r['players']} players, {r['serve']} server: {r['rounds']} rounds in "
        f"{r['window_s']} s = {r['rounds_per_s']} rounds/s; bet->result "
        f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms; errors {r['errors']}; "
        f"reveals lost {r.get('reveals_lost')}; ledger_ok {r.get('ledger_ok')}; "
        f"stack CPU {r['stack_cpu_ms_per_round']} ms/round; sign-up p50 {r['signup_p50_ms']} ms; "
        f"load average {r['loadavg']}; machine busy {r['machine_busy_pct']}%",
        flush=True,
    )
    head = {k: r.get(k) for k in JSON_HEAD}
    rest = {k: v for k, v in r.items() if k not in JSON_HEAD}
    print(json.dumps({**head, **rest}, ensure_ascii=False), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def locust_commands(args: argparse.Namespace, run_dir: Path, run_id: str) -> list[list[str]]:
    """The master (or the only process) first, then the workers."""
    base = [str(PY), "-m", "locust", "-f", str(LOCUSTFILE), "--skip-log-setup"]
    custom = [
        f"--think={args.think}",
        f"--pace={args.pace}",
        f"--games={args.games}",
        f"--round-timeout={args.timeout}",
        f"--baccarat-table={args.baccarat_table}",
        f"--war-table={args.war_table}",
        f"--run-id={run_id}",
        f"--run-dir={run_dir}",
    ]
    user_class = "FastPlayer" if args.fast else "PacedPlayer"
    safety = 300 + args.players / args.spawn_rate + args.seconds + 4 * args.timeout
    master = [
        *base,
        "--headless",
        "--host",
        args.url,
        "-u",
        str(args.players),
        "-r",
        str(args.spawn_rate),
        "--run-time",
        f"{int(safety)}s",
        "--stop-timeout",
        str(int(4 * args.timeout + 10)),
        "--json-file",
        str(run_dir / "locust"),
        "--only-summary",
        *custom,
        user_class,
    ]
    if not args.workers:
        return [master]
    port = free_port()
    master[len(base) : len(base)] = [
        "--master",
        "--master-bind-host=127.0.0.1",
        f"--master-bind-port={port}",
        f"--expect-workers={args.workers}",
    ]
    worker = [
        *base,
        "--worker",
        "--master-host=127.0.0.1",
        f"--master-port={port}",
        *custom,
        user_class,
    ]
    return [master] + [worker] * args.workers


def read_json_files(run_dir: Path, pattern: str) -> list[dict]:
    out = []
    for path in sorted(run_dir.glob(pattern)):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return out


def seated(run_dir: Path) -> tuple[int, int]:
    """(seated, failed to sit down) over every Locust process."""
    seated = failed = 0
    for path in run_dir.glob("seated-*"):
        try:
            one, other = (int(x) for x in path.read_text().split())
        except (OSError, ValueError):
            continue
        seated, failed = seated + one, failed + other
    return seated, failed


def run(
    args: argparse.Namespace,
    server: SingleServer | ClusterServer | None,
    *,
    on_play: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> tuple[dict, list[dict]]:
    """Run Locust's players: sign up, wait for all, play ``args.seconds``,
    measure. ``on_play`` runs as the play starts and ``on_stop`` when the
    time is up (bench/flood.py and bench/chaos.py act there)."""
    run_id = secrets.token_hex(3)
    run_dir = Path(tempfile.mkdtemp(prefix="casino-locust-"))
    commands = locust_commands(args, run_dir, run_id)
    processes = len(commands) - 1 if args.workers else 1
    log = open(run_dir / "locust.log", "w")  # noqa: SIM115 - closed below
    procs = [
        subprocess.Popen(
            cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        for cmd in commands
    ]
    try:
        setup_started = time.time()
        print(f"signing up {args.players} players at {args.url} ...", file=sys.stderr, flush=True)
        budget = 120 + 2.0 * args.players / args.spawn_rate
        while sum(seated(run_dir)) < args.players and time.time() - setup_started < budget:
            if procs[0].poll() is not None:
                break
            time.sleep(0.2)
        setup_s = time.time() - setup_started
        ready = seated(run_dir)[0]
        pids = server.pids if server is not None else []
        stack = server.stack_pids if server is not None else []
        sampler = Sampler()
        cpu0, stack0, machine0 = cpu_seconds(pids), cpu_seconds(stack), machine_ticks()
        client0 = cpu_seconds([p.pid for p in procs])
        load0 = loadavg()
        play_at = time.time()
        until = play_at + args.seconds
        (run_dir / "go.tmp").write_text(json.dumps({"play_at": play_at, "until": until}))
        (run_dir / "go.tmp").rename(run_dir / "go")
        print(
            f"{ready} players seated in {setup_s:.0f} s; playing for {args.seconds:g} s",
            file=sys.stderr,
            flush=True,
        )
        sampler.start()
        if on_play is not None:
            on_play()
        time.sleep(max(0.0, until - time.time()))
        if on_stop is not None:
            on_stop()
        cpu1, stack1, machine1 = cpu_seconds(pids), cpu_seconds(stack), machine_ticks()
        client1 = cpu_seconds([p.pid for p in procs])
        load1 = loadavg()
        sampler.stop.set()
        give_up = time.time() + 4 * args.timeout + 30
        while len(list(run_dir.glob("players-*.json"))) < min(processes, args.players):
            if time.time() > give_up or procs[0].poll() is not None:
                break
            time.sleep(0.2)
        files = read_json_files(run_dir, "players-*.json")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        log.close()
    stats = read_json_files(run_dir, "locust*.json")
    locust_log = (run_dir / "locust.log").read_text(errors="replace")
    shutil.rmtree(run_dir, ignore_errors=True)

    players = [p for f in files for p in f["players"]]
    rounds = [r for f in files for r in f["rounds"] if r[0] >= play_at]
    errors = [e for f in files for e in f["errors"]]
    kinds = Counter(e[1] for e in errors)
    samples: list[str] = []
    per_kind: Counter[str] = Counter()
    for _, kind, detail in errors:
        per_kind[kind] += 1
        if per_kind[kind] <= 3 and len(samples) < 40:
            samples.append(f"{kind}: {detail}"[:300])
    if len(players) < args.players:
        kinds["players missing"] += args.players - len(players)
        samples.append(f"players missing: {len(players)} of {args.players} reported")
    counts: Counter[str] = Counter()
    requests_by_kind: dict[str, list[float]] = {}
    for f in files:
        counts.update(f["counts"])
        for kind, values in f["requests"].items():
            requests_by_kind.setdefault(kind, []).extend(values)
    signups = [s for f in files for s in f["signups"]]
    every = [r[2] for r in rounds]
    by_game = {g: [r[2] for r in rounds if r[1] == g] for g in ("baccarat", "war")}
    in_time = sum(1 for r in rounds if r[0] <= until)
    last = max((r[0] for r in rounds), default=until)
    window = max(args.seconds, last - play_at)
    busy, ticks = machine1[0] - machine0[0], machine1[1] - machine0[1]

    def game(values: list[float]) -> dict:
        return {
            "rounds": len(values),
            "p50_ms": ms(percentile(values, 50)),
            "p90_ms": ms(percentile(values, 90)),
            "p99_ms": ms(percentile(values, 99)),
            "max_ms": ms(max(values) if values else None),
        }

    result = {
        "players": args.players,
        "rounds": len(rounds),
        "rounds_per_s": round(len(rounds) / window, 1) if window else 0,
        "p50_ms": ms(percentile(every, 50)),
        "p99_ms": ms(percentile(every, 99)),
        "errors": sum(kinds.values()),
        "stack_cpu_ms_per_round": round(1000 * (stack1 - stack0) / in_time, 2)
        if stack and in_time
        else None,
        "serve": args.serve,
        "player_class": "FastPlayer" if args.fast else "PacedPlayer",
        "locust_workers": args.workers,
        "http_workers": args.http_workers if args.serve == "cluster" else None,
        "ws_workers": args.ws_workers if args.serve == "cluster" else None,
        "reveal_delay_s": 0 if args.serve != "none" else None,
        "seconds": args.seconds,
        "window_s": round(window, 1),
        "players_ready": ready,
        "setup_s": round(setup_s, 1),
        "signup_p50_ms": ms(percentile([s[1] for s in signups], 50)),
        "signup_p99_ms": ms(percentile([s[1] for s in signups], 99)),
        "baccarat": game(by_game["baccarat"]),
        "war": game(by_game["war"]),
        "requests": {
            kind: {
                "n": len(values),
                "p50_ms": ms(percentile(values, 50)),
                "p99_ms": ms(percentile(values, 99)),
            }
            for kind, values in sorted(requests_by_kind.items())
        },
        "error_kinds": dict(kinds),
        "error_samples": samples,
        "notes": dict(counts),
        "loadavg": {"start": load0, "max": max(sampler.samples, default=load0), "end": load1},
        # Percent of one core over the window: gunicorn and daphne, then the
        # whole serving stack (with PostgreSQL, Redis and nginx), then Locust.
        "server_cpu_pct": round(100 * (cpu1 - cpu0) / args.seconds, 1) if pids else None,
        "stack_cpu_pct": round(100 * (stack1 - stack0) / args.seconds, 1) if stack else None,
        "client_cpu_pct": round(100 * (client1 - client0) / args.seconds, 1),
        "machine_busy_pct": round(100 * busy / ticks, 1) if ticks else None,
        "cores": os.cpu_count(),
        "run_id": run_id,
        "locust_stats": locust_summary(stats),
    }
    if not files:
        result["locust_log_tail"] = locust_log[-2000:]
    return result, players


def locust_summary(stats: list[dict]) -> dict:
    """Locust's own count of requests and failures per name (its JSON file)."""
    out: dict[str, dict] = {}
    for doc in stats:
        entries = doc if isinstance(doc, list) else doc.get("stats", [])
        for entry in entries:
            if not isinstance(entry, dict) or "name" not in entry:
                continue
            key = f"{entry.get('method', '')} {entry['name']}".strip()
            out[key] = {
                "requests": entry.get("num_requests"),
                "failures": entry.get("num_failures"),
            }
    return out


if __name__ == "__main__":
    sys.exit(main())
