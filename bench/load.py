"""Load test: P players sign up and play Baccarat and Casino War for T
seconds over HTTP and websockets, driven by Locust. The last line printed is
one JSON object (its keys: bench/README.md).

What Locust does is left to Locust (bench/locustfile.py, over the client in
bench/client.py): the users and their ramp-up, the play's window and the
graceful stop, master and workers, the percentiles and the reports. This
script adds what Locust lacks: the servers (bench/stack.py), the CPU of each
part of the stack over the window and the ledger check (bench/metrics.py).
bench/abuse.py, bench/flood.py and bench/chaos.py run their players with it
(``run``), acting as the play starts and stops.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/load.py")

import argparse  # noqa: E402 - after the check above
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import queue  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

from bench.metrics import CpuMeter, check_ledger, cpu_table  # noqa: E402
from bench.stack import ROOT, Cluster, MakeRun, free_port, wait_http  # noqa: E402

LOCUSTFILE = ROOT / "bench" / "locustfile.py"
EVENT = "casino-load "  # the locustfile's lines on the master's standard output
TRANSPORTS = ("socket", "http")
PYTHON_SERVERS = ("make run", "gunicorn", "uvicorn", "live dealer")


class LoadFailed(SystemExit):
    """A piece of the run could not start or did not report: its reason."""


def build_parser(description: str = __doc__.split("\n\n")[0]) -> argparse.ArgumentParser:
    """The options of a Locust bench (bench/live.py adds its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="the play ends once each game has this many rounds (--seconds at most)",
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--serve",
        choices=["make-run", "single", "cluster", "none"],  # single: make-run's older name
        default="none",
    )
    parser.add_argument(
        "--transport",
        default="socket",
        help="socket, http, or both in turn (http,socket) on the same server",
    )
    parser.add_argument(
        "--workers", type=int, default=0, help="Locust workers (0: one Locust process)"
    )
    parser.add_argument(
        "--http-workers", type=int, default=2, help="gunicorn workers for --serve cluster"
    )
    parser.add_argument(
        "--ws-workers", type=int, default=1, help="uvicorn websocket workers for --serve cluster"
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
    parser.add_argument(
        "--late-players",
        type=int,
        default=0,
        help="players who sign up (at --spawn-rate) while the others play",
    )
    parser.add_argument("--baccarat-table", default="baccarat-social")
    parser.add_argument("--war-table", default="casino-war")
    parser.add_argument(
        "--database-url", default="", help="--serve none: the server's DATABASE_URL"
    )
    parser.add_argument("--sqlite-path", default="", help="--serve none: the server's SQLite file")
    parser.add_argument(
        "--wait-server", type=float, default=60.0, help="seconds for the server to answer"
    )
    parser.add_argument("--report-dir", default="", help="keep Locust's CSV/HTML/JSON reports here")
    return parser


def parse_args(
    argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None
) -> argparse.Namespace:
    parser = parser or build_parser()
    args = parser.parse_args(argv)
    parts = urlsplit(args.url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        parser.error("--url must be http://127.0.0.1:PORT (traffic stays on this machine)")
    if args.players < 1 or args.seconds <= 0 or args.late_players < 0 or args.rounds < 0:
        parser.error("--players and --seconds must be positive")
    args.transports = [t.strip() for t in args.transport.split(",") if t.strip()]
    if (
        not args.transports
        or set(args.transports) - set(TRANSPORTS)
        or len(set(args.transports)) < len(args.transports)
    ):
        parser.error(f"--transport: {', '.join(TRANSPORTS)}, or both separated by a comma")
    args.url = f"http://{parts.hostname}:{parts.port or 80}"
    args.serve = "make-run" if args.serve == "single" else args.serve
    return args


def start_server(args: argparse.Namespace) -> MakeRun | Cluster | None:
    parts = urlsplit(args.url)
    if args.serve == "make-run":
        return MakeRun(parts.hostname or "127.0.0.1", parts.port or 80, args.wait_server)
    if args.serve == "cluster":
        return Cluster(parts.port or 80, args.http_workers, args.ws_workers)
    return None


def ledger_env_for(
    args: argparse.Namespace, server: MakeRun | Cluster | None
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
        wait_http(args.url, args.wait_server)
        results, players = run_phases(args, server)
        ledger: dict = {"run_id": next(iter(results.values()))["run_id"]}
        add_ledger(ledger, players, ledger_env_for(args, server))
        for result in results.values():
            result.update({k: v for k, v in ledger.items() if k != "run_id"})
            if server is not None and result["errors"]:
                result["server_log_tail"] = server.log_tail()[-2000:]
            print_result(result)
    finally:
        if server is not None:
            server.stop()
    if len(results) > 1:
        print(cpu_table(results), flush=True)
        print(json.dumps({"transports": results}, ensure_ascii=False), flush=True)
    failed = [reason for r in results.values() for reason in not_started(r, args)]
    for reason in failed:
        print(f"bench/load.py: {reason}", file=sys.stderr, flush=True)
    return 1 if failed else 0


def not_started(result: dict, args: argparse.Namespace) -> list[str]:
    """Why a run's figures do not stand for the players asked for."""
    reasons = []
    if result["players_ready"] < args.players:
        reasons.append(
            f"{result['transport']}: players seated {result['players_ready']} of {args.players}"
            f" ({'; '.join(result['error_samples'][:3])})"
        )
    if result["players_reported"] < result["players_started"]:
        reasons.append(
            f"{result['transport']}: players missing: {result['players_reported']} of "
            f"{result['players_started']} reported"
        )
    if result["rounds"] == 0:
        reasons.append(
            f"{result['transport']}: no round completed ({'; '.join(result['error_samples'][:3])})"
        )
    return reasons


JSON_HEAD = (
    "players",
    "transport",
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
        f"{r['players']} players over {r['transport']}, {r['serve']} server: {r['rounds']} "
        f"rounds in {r['window_s']} s = {r['rounds_per_s']} rounds/s; bet->result "
        f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms; errors {r['errors']}; "
        f"reveals lost {r.get('reveals_lost')}; ledger_ok {r.get('ledger_ok')}; "
        f"stack CPU {r['stack_cpu_ms_per_round']} ms/round; sign-up p50 {r['signup_p50_ms']} ms; "
        f"load average {r['loadavg']}; machine busy {r['machine_busy_pct']}%",
        flush=True,
    )
    if r.get("cpu_parts"):
        print(cpu_table({r["transport"]: r}), flush=True)
    head = {k: r.get(k) for k in JSON_HEAD}
    rest = {k: v for k, v in r.items() if k not in JSON_HEAD}
    print(json.dumps({**head, **rest}, ensure_ascii=False), flush=True)


def locust_commands(
    args: argparse.Namespace, reports: Path, run_id: str, transport: str
) -> list[list[str]]:
    """The master (or the only process) first, then the workers."""
    base = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--skip-log-setup"]
    seat_seconds = 120 + 2.0 * args.players / args.spawn_rate
    custom = [
        f"--think={args.think}",
        f"--pace={args.pace}",
        f"--games={args.games}",
        f"--transport={transport}",
        f"--round-timeout={args.timeout}",
        f"--baccarat-table={args.baccarat_table}",
        f"--war-table={args.war_table}",
        f"--run-id={run_id}",
        f"--play-seconds={args.seconds}",
        f"--play-rounds={args.rounds}",
        f"--seat-seconds={seat_seconds}",
        f"--late-players={args.late_players}",
        *getattr(args, "locust_options", []),
    ]
    user_class = getattr(args, "user_class", "") or ("FastPlayer" if args.fast else "PacedPlayer")
    # Locust's own run time as a safety net: the play's window ends it first.
    phases = len(args.transports)
    safety = 300 + seat_seconds + phases * (args.seconds + 4 * args.timeout + 30)
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
        str(reports / "locust"),
        "--csv",
        str(reports / "locust"),
        "--html",
        str(reports / "locust.html"),
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
        "--expect-workers-max-wait=60",
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


class Master:
    """The Locust master's (or only process's) events, read from its
    standard output as they come."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.events: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.other: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(EVENT):
                kind, _, data = line[len(EVENT) :].partition(" ")
                self.events.put((kind, json.loads(data)))
            else:
                self.other = [*self.other[-40:], line.rstrip()]
        self.events.put(("exited", {}))

    def wait(self, kind: str, seconds: float) -> dict | None:
        """The event ``kind``'s data, or None when Locust exits or time is up."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                got, data = self.events.get(timeout=left)
            except queue.Empty:
                return None
            if got == kind:
                return data
            if got == "exited":
                self.events.put((got, data))  # for the next wait as well
                return None
        return None


def run(
    args: argparse.Namespace,
    server: MakeRun | Cluster | None,
    *,
    on_play: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> tuple[dict, list[dict]]:
    """Run Locust's players over the first of ``args.transports``: sign up,
    wait for all, play ``args.seconds`` (or ``args.rounds``), measure.
    ``on_play`` runs as the play starts and ``on_stop`` when the time is up
    (with ``args.rounds``: once the play stopped); bench/flood.py,
    bench/chaos.py and bench/abuse.py act there."""
    one = argparse.Namespace(**{**vars(args), "transports": args.transports[:1]})
    results, players = run_phases(one, server, on_play=on_play, on_stop=on_stop)
    return results[one.transports[0]], players


def run_phases(
    args: argparse.Namespace,
    server: MakeRun | Cluster | None,
    *,
    on_play: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> tuple[dict[str, dict], list[dict]]:
    """One Locust run: the players sign up once, then play ``args.seconds``
    over each of ``args.transports`` in turn (finishing their rounds between
    two), the stack's CPU measured per phase. Raises LoadFailed when Locust
    gives no result."""
    run_id = secrets.token_hex(3)
    reports = Path(args.report_dir or tempfile.mkdtemp(prefix="casino-locust-"))
    if args.report_dir:
        reports = reports / f"{'-'.join(args.transports)}-{run_id}"
    reports.mkdir(parents=True, exist_ok=True)
    commands = locust_commands(args, reports, run_id, ",".join(args.transports))
    log = open(reports / "locust.log", "w")  # noqa: SIM115 - closed below
    procs = [
        subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=subprocess.PIPE if n == 0 else log,
            stderr=log,
            text=True,
            start_new_session=True,
        )
        for n, cmd in enumerate(commands)
    ]
    master = Master(procs[0])
    parts = server.parts if server is not None else {}
    meters: dict[str, CpuMeter] = {}
    try:
        print(f"signing up {args.players} players at {args.url} ...", file=sys.stderr, flush=True)
        setup_started = time.time()
        first = master.wait("go", 240 + 2.0 * args.players / args.spawn_rate)
        if first is None:
            raise LoadFailed(f"Locust did not start the play: {tail(master, reports)}")
        setup_s = time.time() - setup_started
        print(
            f"{first['seated']} players seated in {setup_s:.0f} s ({first['failed']} could not)",
            file=sys.stderr,
            flush=True,
        )
        go: dict | None = first
        for phase, transport in enumerate(args.transports):
            if phase:
                go = master.wait("go", 4 * args.timeout + 120)
            if go is None:
                raise LoadFailed(f"Locust did not start {transport}: {tail(master, reports)}")
            meters[transport] = meter = CpuMeter(parts, [p.pid for p in procs])
            meter.start()
            until = f"{args.rounds} rounds of each game, " if args.rounds else ""
            print(
                f"playing over {transport} for {until}{args.seconds:g} s at most",
                file=sys.stderr,
                flush=True,
            )
            if phase == 0 and on_play is not None:
                on_play()
            last = phase == len(args.transports) - 1
            if not args.rounds:
                time.sleep(max(0.0, go["until"] - time.time()))
                if last and on_stop is not None:
                    on_stop()
            left = max(0.0, go["until"] - time.time())
            stopped = master.wait("stopped", left + 4 * args.timeout + 90)
            if args.rounds and last and on_stop is not None:
                on_stop()  # with --rounds: once the play stopped
            meter.stop()
            if stopped is None:
                raise LoadFailed(f"Locust did not end {transport}: {tail(master, reports)}")
        got = master.wait("result", 60)
        if got is None:
            raise LoadFailed(f"Locust gave no result: {tail(master, reports)}")
    finally:
        # Once the master has ended (or failed to), the workers are told to
        # stop at once: a Locust worker told to stop sleeps out
        # --stop-timeout before it reads the master's quit.
        with contextlib.suppress(subprocess.TimeoutExpired):
            procs[0].wait(timeout=15)
        for proc in procs[1:]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        log.close()
    stats = read_json(reports / "locust.json")
    if not args.report_dir:
        shutil.rmtree(reports, ignore_errors=True)

    players = got["players"]
    # Every user Locust started (sat down or not) reports once it stops.
    started = got["seated"] + got["failed"]
    signups = got["signups"]
    results = {}
    for transport, phase in got["phases"].items():
        rounds = phase["rounds"]["n"]
        figures = meters[transport].figures(rounds)
        kinds = dict(phase["errors"])
        samples = list(phase["error_samples"])
        if len(players) < started:
            kinds["players missing"] = started - len(players)
            samples.append(f"players missing: {len(players)} of {started} reported")
        results[transport] = {
            "players": args.players,
            "transport": transport,
            "rounds": rounds,
            "rounds_per_s": round(rounds / figures["window_s"], 1),
            "p50_ms": phase["rounds"]["p50_ms"],
            "p99_ms": phase["rounds"]["p99_ms"],
            "errors": sum(kinds.values()),
            "stack_cpu_ms_per_round": figures["stack_cpu_ms_per_round"],
            "cpu_parts": figures["cpu_parts"],
            "serve": args.serve,
            "player_class": "FastPlayer" if args.fast else "PacedPlayer",
            "locust_workers": args.workers,
            "http_workers": args.http_workers if args.serve == "cluster" else None,
            "ws_workers": args.ws_workers if args.serve == "cluster" else None,
            "reveal_delay_s": 0 if args.serve != "none" else None,
            "seconds": args.seconds,
            "rounds_asked": args.rounds,
            "window_s": figures["window_s"],
            "window": phase["window"],
            "players_ready": first["seated"],
            "players_started": started,
            "players_reported": len(players),
            "setup_s": round(setup_s, 1),
            "signup_p50_ms": signups.get("sign-up", {}).get("p50_ms"),
            "signup_p99_ms": signups.get("sign-up", {}).get("p99_ms"),
            "late_players": args.late_players,
            "signup_while_playing": signups.get("sign-up while playing"),
            "baccarat": phase["games"]["baccarat"],
            "war": phase["games"]["war"],
            "requests": phase["requests"],
            "error_kinds": kinds,
            "error_samples": samples,
            "notes": got["counts"],
            "loadavg": figures["loadavg"],
            # Percent of one core over the window: the Python servers, the
            # serving stack, then Locust.
            "server_cpu_pct": round(
                sum(v["pct_core"] for k, v in figures["cpu_parts"].items() if k in PYTHON_SERVERS),
                1,
            )
            if figures["cpu_parts"]
            else None,
            "stack_cpu_pct": figures["stack_cpu_pct"],
            "client_cpu_pct": figures["client_cpu_pct"],
            "machine_busy_pct": figures["machine_busy_pct"],
            "cores": os.cpu_count(),
            "run_id": run_id,
            "locust_stats": locust_summary(stats),
        }
        if args.report_dir:
            results[transport]["reports"] = str(reports)
    return results, players


def tail(master: Master, reports: Path) -> str:
    """The end of Locust's output, for the reason a run failed."""
    logged = ""
    with open(reports / "locust.log", errors="replace") as f:
        logged = f.read()[-1500:]
    return ("\n".join(master.other[-10:]) + "\n" + logged).strip() or "(no output)"


def read_json(path: Path) -> list | dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return []


def locust_summary(stats: list | dict) -> dict:
    """Locust's own count of requests and failures per name (its JSON file)."""
    out: dict[str, dict] = {}
    entries = stats if isinstance(stats, list) else stats.get("stats", [])
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
