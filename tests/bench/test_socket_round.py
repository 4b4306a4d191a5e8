"""bench/socket_round.py, the socket round's CPU in one process, still runs
and measures both games: it plays real rounds through the real ASGI
application on its own throwaway database and counts them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_socket_round_bench_prints_each_games_cpu_a_round():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "bench/socket_round.py", "--players", "2", "--rounds", "4"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # The bench checks itself that every round was stored (an assert on the
    # count): here, that it measured both games and names what it ran on.
    assert result["rounds"] == 8
    assert result["baccarat_cpu_ms"] > 0 and result["war_cpu_ms"] > 0
    assert result["database"] == "sqlite"
    assert result["channel_layer"] == "InMemoryChannelLayer"
