"""Faults under load: the cluster loses Redis, PostgreSQL and workers while
players play, and no round is lost or paid twice.

Run from the repository root::

    .venv/bin/python bench/chaos.py --players 300 --seconds 120 --url http://127.0.0.1:18710

It starts a cluster (``make cluster``: gunicorn and uvicorn under
supervisord, PostgreSQL, Redis, nginx), runs bench/load.py's Locust players
and, while they play, at set shares of ``--seconds``:

* 15%: restarts Redis (shutdown without saving, started again: the channel
  layer's groups and the cache are gone, as after a real restart);
* 35%: kill -9 one uvicorn websocket worker (supervisord starts it again;
  its players' sockets drop and the page's ws extension reconnects them);
* 50%: kill -9 one gunicorn HTTP worker (gunicorn's master replaces it);
* 70%: restarts PostgreSQL (fast shutdown: open transactions roll back).

The last line is one JSON object (its keys: bench/README.md): a Baccarat
round whose result never reached its player's socket, even after a
reconnect, is a reveal missed; an error after which the same player never
completed another round is unrecovered.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/chaos.py")

from bench import load  # noqa: E402 - after the check above
from bench.metrics import processes  # noqa: E402
from bench.stack import ROOT, Cluster, wait_http  # noqa: E402

FAULTS = (
    (0.15, "restart redis"),
    (0.35, "kill -9 websocket worker"),
    (0.50, "kill -9 http worker"),
    (0.70, "restart postgresql"),
)


def pg_bin() -> Path:
    return sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]


class Faults(threading.Thread):
    """Runs the faults at their times; records what it did and when."""

    def __init__(self, server: Cluster, seconds: float) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.seconds = seconds
        self.done: list[dict] = []
        self.started = 0.0

    def run(self) -> None:
        self.started = time.time()
        for share, name in FAULTS:
            time.sleep(max(0.0, self.started + share * self.seconds - time.time()))
            t0 = time.time()
            try:
                detail = self.fault(name)
            except Exception as exc:  # recorded: a fault that could not be made
                detail = f"failed: {type(exc).__name__}: {exc}"
            self.done.append(
                {
                    "fault": name,
                    "at_s": round(t0 - self.started, 1),
                    "took_s": round(time.time() - t0, 1),
                    "detail": detail,
                }
            )
            print(f"chaos: {name} at {t0 - self.started:.0f} s: {detail}", file=sys.stderr)

    def fault(self, name: str) -> str:
        cluster = self.server
        if name == "restart redis":
            port = cluster.redis_port
            subprocess.run(["redis-cli", "-p", port, "shutdown", "nosave"], check=False)
            for _ in range(50):
                if subprocess.run(
                    ["redis-cli", "-p", port, "ping"], capture_output=True
                ).returncode:
                    break
                time.sleep(0.1)
            start = [str(ROOT / "ops/services.sh"), "start", str(cluster.data)]
            subprocess.run([*start, cluster.pg_port, port], check=True, capture_output=True)
            return f"redis on :{port} shut down and started again"
        if name == "kill -9 websocket worker":
            (pid,) = cluster.supervised("ws0")
            subprocess.run(["kill", "-9", str(pid)], check=True)
            return f"uvicorn ws0 pid {pid}"
        if name == "kill -9 http worker":
            (master,) = cluster.supervised("gunicorn")
            worker = processes()[1][master][0]
            subprocess.run(["kill", "-9", str(worker)], check=True)
            return f"gunicorn worker pid {worker} (master {master})"
        if name == "restart postgresql":
            # -l: the new postmaster writes to its log, not to our pipe.
            ctl = [str(pg_bin() / "pg_ctl"), "-D", str(cluster.data / "pg"), "-m", "fast", "-w"]
            ctl += ["-l", str(cluster.data / "pg.log")]
            subprocess.run(
                ["runuser", "-u", "postgres", "--", *ctl, "restart"],
                check=True,
                capture_output=True,
            )
            return "pg_ctl restart -m fast"
        raise ValueError(name)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    defaults = {"--players": "300", "--seconds": "120", "--url": "http://127.0.0.1:18710"}
    defaults |= {"--ws-workers": "2", "--timeout": "20", "--spawn-rate": "5"}
    for key, value in defaults.items():
        if key not in argv:
            argv += [key, value]
    args = load.parse_args([*argv, "--serve", "cluster"])
    server = load.start_server(args)
    assert isinstance(server, Cluster)
    faults = Faults(server, args.seconds)
    try:
        wait_http(args.url, 60)
        result, players = load.run(args, server, on_play=faults.start)
        faults.join(timeout=60)
        load.add_ledger(result, players, server.ledger_env())
        restarts = server.supervisorctl("status")
    finally:
        server.stop()
    unrecovered = sum(
        sum(1 for t in p.get("error_times", []) if t > p.get("last_round_at", 0.0)) for p in players
    )
    unrecovered += result["error_kinds"].get("players missing", 0)
    out = {
        "rounds": result["rounds"],
        "reveals_missed": result["reveals_lost"],
        "errors_unrecovered": unrecovered,
        "ledger_ok": result["ledger_ok"],
        "players": result["players"],
        "players_ready": result["players_ready"],
        "errors": result["errors"],
        "error_kinds": result["error_kinds"],
        "error_samples": result["error_samples"][:12],
        "faults": faults.done,
        "notes": result["notes"],
        "p50_ms": result["p50_ms"],
        "p99_ms": result["p99_ms"],
        "baccarat_rounds_dealt": result.get("baccarat_rounds_dealt"),
        "loadavg": result["loadavg"],
        "machine_busy_pct": result["machine_busy_pct"],
        "supervisor_status": restarts.strip().splitlines(),
        "ledger": result["ledger"],
    }
    print(
        f"chaos: {out['rounds']} rounds, reveals missed {out['reveals_missed']}, "
        f"errors unrecovered {out['errors_unrecovered']} (of {out['errors']}), "
        f"ledger_ok {out['ledger_ok']}",
        flush=True,
    )
    print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
