"""Flood benchmark: playing players while strangers flood the login form.

Run from the repository root, for example::

    .venv/bin/python bench/flood.py --serve cluster
    .venv/bin/python bench/flood.py --serve make-run --flood-addresses 6

bench/abuse.py's login flood with its own measure of success: first
``--players`` players (default 50) play ``--seconds`` (default 30)
undisturbed; then as many new players play as long while ``--flooders``
clients (default 6) post the login form with random usernames and
passwords, each with the CSRF token of the page, at up to ``--flood-rate``
posts a second each (default 5; 0: as fast as answered) from
``--flood-addresses`` loopback addresses (default 1: one stranger's
machine). Passes (``ok``, exit 0) when the players' p99 with the flood is
under ``--max-p99-ms`` (250) and under twice the p99 without it, no player
request failed, and the flooders got 429s. The last line printed is one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/flood.py")

from bench import abuse, load  # noqa: E402 - after the check above
from bench.stack import wait_http  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="Other options go to bench/load.py."
    )
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--flooders", type=int, default=6)
    parser.add_argument("--flood-addresses", type=int, default=1)
    parser.add_argument("--flood-rate", type=float, default=5.0, help="posts a second, each")
    parser.add_argument("--max-p99-ms", type=float, default=250.0)
    own, rest = parser.parse_known_args(argv)
    args = load.parse_args(["--players", str(own.players), *rest])
    for name, value in vars(own).items():
        setattr(args, name, value)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    flood = abuse.LoginFlood(
        args=args,
        first_address=args.players,  # after the players' own addresses
        name="login-flood",
        posts=None,
        addresses=args.flood_addresses,
        concurrency=args.flooders,
        rate=args.flood_rate,
    )
    server = load.start_server(args)
    try:
        wait_http(args.url, 60)
        run = abuse.run_attack(flood, args, server)
    finally:
        if server is not None:
            server.stop()
    statuses = run["refused"]
    posts = sum(statuses.values())
    p99_quiet, p99_flood = run["p99_ms_quiet"], run["p99_ms_attacked"]
    ok = (
        p99_quiet is not None
        and p99_flood is not None
        and p99_flood < args.max_p99_ms
        and p99_flood < 2 * p99_quiet
        and run["player_errors_quiet"] == 0
        and run["player_errors_attacked"] == 0
        and statuses.get("429", 0) > 0
    )
    result = {
        "ok": ok,
        "players": args.players,
        "seconds": args.seconds,
        "serve": args.serve,
        "flooders": args.flooders,
        "flood_addresses": args.flood_addresses,
        "p50_ms_quiet": run["p50_ms_quiet"],
        "p99_ms_quiet": p99_quiet,
        "p50_ms_flood": run["p50_ms_attacked"],
        "p99_ms_flood": p99_flood,
        "errors_quiet": run["player_errors_quiet"],
        "errors_flood": run["player_errors_attacked"],
        "rounds_quiet": run["rounds_quiet"],
        "rounds_flood": run["rounds_attacked"],
        "flood_posts": posts,
        "flood_posts_per_s": round(posts / args.seconds, 1),
        "flood_statuses": statuses,
        "flood_429_share": round(statuses.get("429", 0) / posts, 3) if posts else None,
        "flood_rate_per_client": args.flood_rate,
        "flood_429_says_why": run["answered_429_says_why"],
        "machine_busy_pct_quiet": run["machine_busy_pct_quiet"],
        "machine_busy_pct_flood": run["machine_busy_pct_attacked"],
        "ledger_ok": run["ledger_ok"],
    }
    print(
        f"players' p99 {p99_quiet} ms alone, {p99_flood} ms with the flood; "
        f"{posts} flood posts, {statuses.get('429', 0)} answered 429; ok {ok}",
        flush=True,
    )
    print(json.dumps(result), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
