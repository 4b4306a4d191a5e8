"""Live table bench: N players at one live table (games/services/live.py)
for S seconds, driven by Locust. The last line printed is one JSON object
(its keys: bench/README.md).

The players are bench/load.py's Locust run with another user class
(``LiveTablePlayer`` in bench/locustfile.py, over ``LivePlayer`` in
bench/client.py): each signs up, opens the live table's page and its
socket; most bet on every coup over the socket at a random moment of its
betting window, ``--watchers`` of them only watch. Each socket times every
deal, from the server's deal time on the state (``data-dealt-at``) to the
frame's arrival; a bettor also times BET to its answer. This script adds
the coups dealt in the window (from the database), the stack's CPU per bet
and per coup (bench/metrics.py, the live dealer among the parts) and the
ledger check.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/live.py")

import argparse  # noqa: E402 - after the check above
import json  # noqa: E402
import subprocess  # noqa: E402

from bench import load  # noqa: E402
from bench.client import add_live_options  # noqa: E402
from bench.metrics import check_ledger, cpu_table  # noqa: E402
from bench.stack import ROOT  # noqa: E402

COUPS_DEALT = """
import json, os, datetime as dt
from games.models import Coup
start, end = (dt.datetime.fromtimestamp(float(os.environ[k]), dt.UTC)
              for k in ("LIVE_FROM", "LIVE_UNTIL"))
coups = Coup.objects.filter(table__slug=os.environ["LIVE_TABLE"], dealt_at__gte=start,
                            dealt_at__lte=end)
print(json.dumps({s: coups.filter(status=s).count() for s in ("dealt", "void")}))
"""

JSON_HEAD = (
    "players",
    "coups",
    "bets",
    "reveal_p99_ms",
    "bet_p99_ms",
    "errors",
    "ledger_ok",
    "stack_cpu_ms_per_bet",
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = load.build_parser(__doc__.split("\n\n")[0])
    add_live_options(parser)
    parser.set_defaults(players=100, seconds=90.0, baccarat_table="baccarat-live")
    args = load.parse_args(argv, parser)
    if not 0 <= args.watchers < 1 or not 0 < args.bet_spread <= 1:
        parser.error("--watchers must be in [0, 1), --bet-spread in (0, 1]")
    if args.transports != ["socket"] or args.rounds or args.late_players:
        parser.error("a live table is played over its socket, for --seconds, by --players")
    args.user_class = "LiveTablePlayer"
    args.locust_options = [f"--watchers={args.watchers}", f"--bet-spread={args.bet_spread}"]
    return args


def coups_dealt(env: dict[str, str] | None, table: str, start: float, end: float) -> dict:
    """The coups of ``table`` dealt (or void) between two wall-clock times."""
    if env is None:
        return {}
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", COUPS_DEALT],
        cwd=ROOT,
        env={**env, "LIVE_TABLE": table, "LIVE_FROM": str(start), "LIVE_UNTIL": str(end)},
        capture_output=True,
        text=True,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": done.stderr[-500:]}


def p(requests: dict, name: str, key: str) -> float | None:
    return requests.get(name, {}).get(key)


def figures(args: argparse.Namespace, run: dict, ledger: dict | None, coups: dict) -> dict:
    """The bench's JSON from load.run's result, the ledger and the coups."""
    requests = run["requests"]
    bets = requests.get("live_bet", {}).get("n", 0) - run["error_kinds"].get("refused bet", 0)
    parts = run["cpu_parts"]
    stack_s = sum(part["cpu_s"] for part in parts.values())
    dealt = coups.get("dealt")
    notes = run["notes"]
    for part in parts.values():
        part.pop("ms_per_round", None)
        part["ms_per_bet"] = round(1000 * part["cpu_s"] / bets, 2) if bets else None
        part["ms_per_coup"] = round(1000 * part["cpu_s"] / dealt, 1) if dealt else None
    watchers = sum(
        int((n + 1) * args.watchers) > int(n * args.watchers) for n in range(args.players)
    )
    out = {
        "players": args.players,
        "coups": dealt,
        "bets": bets,
        "reveal_p99_ms": p(requests, "live_reveal", "p99_ms"),
        "bet_p99_ms": p(requests, "live_bet", "p99_ms"),
        "errors": run["errors"],
        "ledger_ok": ledger["ok"] if ledger else None,
        "stack_cpu_ms_per_bet": round(1000 * stack_s / bets, 2) if bets and parts else None,
        "stack_cpu_ms_per_coup": round(1000 * stack_s / dealt, 1) if dealt and parts else None,
        "reveal_p50_ms": p(requests, "live_reveal", "p50_ms"),
        "reveal_max_ms": p(requests, "live_reveal", "max_ms"),
        "reveals": requests.get("live_reveal", {}).get("n", 0),
        # Of the reveal, the server's own part: the deal's transaction (its
        # bets settled) and the state's rendering, before any socket gets it.
        "deal_to_state_p50_ms": p(requests, "live_deal_to_state", "p50_ms"),
        "deal_to_state_p99_ms": p(requests, "live_deal_to_state", "p99_ms"),
        "bet_p50_ms": p(requests, "live_bet", "p50_ms"),
        "bettors": args.players - watchers,
        "watchers": watchers,
        "void_coups": coups.get("void"),
        # What the fan-out carries: the table's state, the same to every socket.
        "states_per_socket_per_coup": round(
            notes.get("live states", 0) / run["players_ready"] / dealt, 1
        )
        if dealt and run["players_ready"]
        else None,
        "state_kib": round(notes.get("live state bytes", 0) / notes["live states"] / 1024, 1)
        if notes.get("live states")
        else None,
        "cpu_parts": parts,
        "loadavg": run["loadavg"],
        "machine_busy_pct": run["machine_busy_pct"],
        "stack_cpu_pct": run["stack_cpu_pct"],
        "client_cpu_pct": run["client_cpu_pct"],
        "server_cpu_pct": run["server_cpu_pct"],
        "cores": run["cores"],
        "window_s": run["window_s"],
        "seconds": args.seconds,
        "serve": args.serve,
        "ws_workers": run["ws_workers"],
        "locust_workers": args.workers,
        "players_ready": run["players_ready"],
        "setup_s": run["setup_s"],
        "signup_p99_ms": run["signup_p99_ms"],
        "error_kinds": run["error_kinds"],
        "error_samples": run["error_samples"][:10],
        "notes": run["notes"],
        "requests": requests,
        "run_id": run["run_id"],
    }
    if ledger:
        out["ledger"] = {k: v for k, v in ledger.items() if k not in ("ok", "dealt")}
        out["ledger"]["bets_stored"] = sum(len(ids) for ids in ledger.get("dealt", {}).values())
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server = load.start_server(args)
    try:
        load.wait_http(args.url, args.wait_server)
        run, _players = load.run(args, server)
        env = load.ledger_env_for(args, server)
        ledger = check_ledger(env, f"load-{run['run_id']}-") if env is not None else None
        window = run["window"]
        coups = coups_dealt(env, args.baccarat_table, window["play_at"], window["until"])
        result = figures(args, run, ledger, coups)
        if server is not None and result["errors"]:
            result["server_log_tail"] = server.log_tail()[-2000:]
    finally:
        if server is not None:
            server.stop()
    print(
        f"{result['players']} players ({result['bettors']} betting) at {args.baccarat_table}: "
        f"{result['coups']} coups, {result['bets']} bets in {result['window_s']} s; deal to "
        f"socket p99 {result['reveal_p99_ms']} ms, BET p99 {result['bet_p99_ms']} ms; errors "
        f"{result['errors']}; ledger_ok {result['ledger_ok']}; stack CPU "
        f"{result['stack_cpu_ms_per_bet']} ms/bet; load average {result['loadavg']}",
        flush=True,
    )
    if result["cpu_parts"]:
        parts = {k: {**v, "ms_per_round": v["ms_per_bet"]} for k, v in result["cpu_parts"].items()}
        column = {
            "cpu_parts": parts,
            "stack_cpu_ms_per_round": result["stack_cpu_ms_per_bet"],
            "stack_cpu_pct": result["stack_cpu_pct"],
        }
        print(cpu_table({"live": column}).replace("ms/round", "  ms/bet"), flush=True)
    head = {k: result.get(k) for k in JSON_HEAD}
    rest = {k: v for k, v in result.items() if k not in JSON_HEAD}
    print(json.dumps({**head, **rest}, ensure_ascii=False), flush=True)
    failed = load.not_started({**run, "rounds": result["bets"]}, args)
    for reason in failed:
        print(f"bench/live.py: {reason}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
