"""Flood benchmark: playing players while strangers flood the login form.

Run from the repository root, for example::

    .venv/bin/python bench/flood.py --serve cluster
    .venv/bin/python bench/flood.py --serve single --flood-addresses 6

Two rounds of bench/load.py's players on one server (``--serve`` as there):
first ``--players`` players (default 50) play ``--seconds`` (default 30)
undisturbed; then as many new players play as long while ``--flooders``
clients (default 6, each its own process) post the login form with random
usernames and passwords, each with the CSRF token of the page, as a script
would, at up to ``--flood-rate`` posts a second each (default 5: six times
the flood of issue 15 together; 0: as fast as answered, which on one small
machine mostly measures the flooders' own CPU). Every such post would cost the server a password
hash; the site throttles them per client address (nginx and
casino/throttle.py) and axes locks an address that fails over many
usernames. The flooders come from ``--flood-addresses`` loopback addresses
(default 1: one stranger's machine), the players each from their own.

Passes (``ok``) when the players' p99 with the flood is under
``--max-p99-ms`` (250) and under twice the p99 without it, no player
request failed, and the flooders got 429s. The last line printed is one
JSON object.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import secrets
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/flood.py")

from bench import client, load  # noqa: E402 - after the check above

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
FLOOD_GROUP = 200  # the flooders' addresses: 127.200.0.x (bench.client.client_address)


def flood(url: str, address: str, rate: float, timeout: float, stop, results) -> None:
    """One flooding client (its own process, so its work does not hold the
    players' interpreter): posts the login form with random credentials at
    up to ``rate`` posts a second until ``stop`` is set, then puts its
    counts on ``results``."""
    http = client.http_session(address)
    statuses: Counter[str] = Counter()
    says_why = False
    token = ""
    gap = 1.0 / rate if rate > 0 else 0.0
    next_at = time.perf_counter()
    while not stop.is_set():
        if gap:
            next_at += gap
            time.sleep(max(0.0, next_at - time.perf_counter()))
        try:
            if not token:
                page = http.get(url + "/accounts/login/", timeout=timeout)
                found = CSRF_INPUT.search(page.text)
                token = found.group(1) if found else ""
            response = http.post(
                url + "/accounts/login/",
                data={
                    "csrfmiddlewaretoken": token,
                    "username": "flood-" + secrets.token_hex(5),
                    "password": secrets.token_urlsafe(12),
                },
                headers={"Origin": url, "Referer": url + "/accounts/login/"},
                timeout=timeout,
            )
        except Exception as exc:  # counted, and the flood goes on
            statuses[type(exc).__name__] += 1
            time.sleep(0.1)
            continue
        statuses[str(response.status_code)] += 1
        if response.status_code == 429:
            says_why |= "Too many" in response.text
        elif response.status_code == 403:
            token = ""  # a new CSRF token next time
    results.put((dict(statuses), says_why))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    own = {
        "--flooders": 6,
        "--flood-addresses": 1,
        "--flood-rate": 5.0,
        "--max-p99-ms": 250.0,
    }
    options = {}
    for name, default in own.items():
        if name in argv:
            i = argv.index(name)
            options[name] = type(default)(argv[i + 1])
            del argv[i : i + 2]
        else:
            options[name] = default
    if "--players" not in argv:
        argv += ["--players", "50"]
    args = load.parse_args(argv)
    server = load.start_server(args)
    stop = multiprocessing.Event()
    results: multiprocessing.Queue = multiprocessing.Queue()
    flooders = [
        multiprocessing.Process(
            target=flood,
            args=(
                args.url,
                client.client_address(n % options["--flood-addresses"], FLOOD_GROUP),
                options["--flood-rate"],
                args.timeout,
                stop,
                results,
            ),
            daemon=True,
        )
        for n in range(options["--flooders"])
    ]
    try:
        load.wait_http(args.url, 60)
        print("players without the flood ...", file=sys.stderr, flush=True)
        quiet, _ = load.run(args, server)
        print(
            f"players with {len(flooders)} flooders on "
            f"{options['--flood-addresses']} address(es) ...",
            file=sys.stderr,
            flush=True,
        )
        flooded, _ = load.run(
            args,
            server,
            on_play=lambda: [f.start() for f in flooders],
            on_stop=stop.set,
        )
        counts = [results.get(timeout=args.timeout + 10) for _ in flooders]
        for f in flooders:
            f.join(timeout=5)
    finally:
        stop.set()
        if server is not None:
            server.stop()

    statuses: Counter[str] = Counter()
    for counted, _says_why in counts:
        statuses.update(counted)
    posts = sum(statuses.values())
    p99_quiet, p99_flood = quiet["p99_ms"], flooded["p99_ms"]
    ok = (
        p99_quiet is not None
        and p99_flood is not None
        and p99_flood < options["--max-p99-ms"]
        and p99_flood < 2 * p99_quiet
        and quiet["errors"] == 0
        and flooded["errors"] == 0
        and statuses["429"] > 0
    )
    result = {
        "ok": ok,
        "players": args.players,
        "seconds": args.seconds,
        "serve": args.serve,
        "flooders": len(flooders),
        "flood_addresses": options["--flood-addresses"],
        "p50_ms_quiet": quiet["p50_ms"],
        "p99_ms_quiet": p99_quiet,
        "p50_ms_flood": flooded["p50_ms"],
        "p99_ms_flood": p99_flood,
        "errors_quiet": quiet["errors"],
        "errors_flood": flooded["errors"],
        "rounds_quiet": quiet["rounds"],
        "rounds_flood": flooded["rounds"],
        "flood_posts": posts,
        "flood_posts_per_s": round(posts / args.seconds, 1),
        "flood_statuses": dict(statuses),
        "flood_429_share": round(statuses["429"] / posts, 3) if posts else None,
        "flood_rate_per_client": options["--flood-rate"],
        "flood_429_says_why": any(says_why for _counted, says_why in counts),
        "machine_busy_pct_quiet": quiet["machine_busy_pct"],
        "machine_busy_pct_flood": flooded["machine_busy_pct"],
    }
    print(
        f"players' p99 {p99_quiet} ms alone, {p99_flood} ms with the flood; "
        f"{posts} flood posts, {statuses['429']} answered 429; ok {ok}",
        flush=True,
    )
    print(json.dumps(result), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
