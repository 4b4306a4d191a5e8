"""How long the first history page takes for a player with 100 rounds and with
100,000; the last line printed is one JSON object.

Run from the repository root: ``.venv/bin/python bench/history.py``. On a
throwaway site (bench/throwaway.py) it bulk-creates the rounds (both games,
spread over a year) and renders ``/history/`` through Django's test client,
logged in as each player. The page pages by keyset and loads its totals in a
separate request, so the two medians should be about the same (``ratio``
target: at most 1.5). The totals request is timed too (``summary_ms_*``),
for information.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import interleaved_medians, make_rounds, set_up_django, spread_rounds

set_up_django("casino-bench-history-")

from django.contrib.auth import get_user_model  # noqa: E402 - after Django's set-up
from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402

from games.services.wallet import open_account  # noqa: E402

SMALL, BIG = 100, 100_000


def main() -> None:
    players = {}
    t0 = time.perf_counter()
    for name, count in (("small", SMALL), ("big", BIG)):
        user = get_user_model().objects.create(username=name)
        open_account(user=user)
        with transaction.atomic():
            make_rounds([user], count)
        players[name] = user
    spread_rounds(300)  # five minutes apart: over a year
    print(f"built {SMALL} + {BIG} rounds in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    pages, summaries = [], []
    for name in ("small", "big"):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(players[name])

        def page(client=client) -> None:
            response = client.get("/history/")
            assert response.status_code == 200, response.status_code
            assert response.content.count(b'data-testid="history-row"') == 25

        def summary(client=client) -> None:
            assert client.get("/history/summary/", HTTP_HX_REQUEST="true").status_code == 200

        pages.append(page)
        summaries.append(summary)
    page_small, page_big = interleaved_medians(pages)
    summary_small, summary_big = interleaved_medians(summaries, 11)
    result = {
        "page_ms_100": round(page_small, 2),
        "page_ms_100k": round(page_big, 2),
        "ratio": round(page_big / page_small, 3),
        "summary_ms_100": round(summary_small, 2),
        "summary_ms_100k": round(summary_big, 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
