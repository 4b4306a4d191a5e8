"""How long the operators' floor export takes for 100,000 rounds and how much
memory it holds; the last line printed is one JSON object.

Run from the repository root: ``.venv/bin/python bench/floor_export.py``. It
builds a throwaway SQLite file database (deleted afterwards), bulk-creates
100,000 rounds of both games for 200 players over ten days, then downloads
``/admin/games/table/dashboard/export.csv`` through Django's test client as a
superuser, reading the streamed body chunk by chunk as a browser would.

* ``seconds_100k``: the whole download of the 100,000 rounds (target < 10 s).
* ``peak_mib_10k`` / ``peak_mib_100k``: the most Python memory (tracemalloc)
  the download held at once, over one day (about 10,000 rounds) and over all ten
  days' 100,000. A streamed export keeps them about equal; a body built whole
  would grow tenfold.
* ``bytes_100k``, ``rows_100k``: what was downloaded.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import make_rounds, set_up_django, spread_rounds

set_up_django("casino-bench-floor-")

from django.contrib.auth import get_user_model  # noqa: E402 - after Django's set-up
from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

ROUNDS = 100_000
PLAYERS = 200
DAYS = 10


def download(client, params: dict[str, str]) -> tuple[int, int]:
    """Read the streamed export chunk by chunk; (bytes, lines) received."""
    response = client.get("/admin/games/table/dashboard/export.csv", params)
    assert response.status_code == 200, response.status_code
    assert response.streaming
    size = lines = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
    return size, lines


def main() -> None:
    User = get_user_model()
    t0 = time.perf_counter()
    now = timezone.now()
    with transaction.atomic():
        players = User.objects.bulk_create(
            [User(username=f"player{i:03d}") for i in range(PLAYERS)]
        )
        make_rounds(players, ROUNDS)
    spread_rounds(DAYS * 86_400 // ROUNDS)  # evenly over the ten days
    print(f"built {ROUNDS} rounds in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    operator = User.objects.create_superuser("operator", "op@example.com", None)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(operator)
    today = timezone.localdate(now)
    everything = {
        "date_from": (today - dt.timedelta(days=DAYS)).isoformat(),
        "date_to": today.isoformat(),
    }
    one_day = {"date_from": (today - dt.timedelta(days=3)).isoformat()}
    one_day["date_to"] = one_day["date_from"]

    download(client, one_day)  # warm the template loader and the page cache
    t0 = time.perf_counter()
    size, lines = download(client, everything)
    seconds = time.perf_counter() - t0
    assert lines == ROUNDS + 1, lines

    peaks = []
    for params in (one_day, everything):
        tracemalloc.start()
        _size, day_lines = download(client, params)
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
        print(f"{day_lines - 1} rounds: peak {peaks[-1]:.2f} MiB", file=sys.stderr)
    print(
        json.dumps(
            {
                "seconds_100k": round(seconds, 2),
                "rows_100k": lines - 1,
                "bytes_100k": size,
                "peak_mib_10k": round(peaks[0], 2),
                "peak_mib_100k": round(peaks[1], 2),
                "target_seconds": 10,
            }
        )
    )


if __name__ == "__main__":
    main()
