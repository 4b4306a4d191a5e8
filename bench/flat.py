"""A round costs the same on a player's first day and their thousandth: BET,
the table page, the history's totals and the play-safe page for a player
with 100 rounds this month and one with 1,000,000, both with a daily, a
weekly and a monthly loss limit set. The last line printed is one JSON
object; every ``*_ratio`` (big over small, interleaved medians) should be at
most 1.2.

Run from the repository root: ``.venv/bin/python bench/flat.py [rounds]``
(the big player's rounds, 1,000,000 by default). On a throwaway site
(bench/throwaway.py) each player plays one real round through the
pipeline; the rest are copies of it made in one INSERT ... SELECT, spread
over this month, and the kept totals are rebuilt from them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import time
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import copy_rounds, interleaved_medians, keep_totals, set_up_django

# One player bets back to back here: no limit on a player's pace at the table.
set_up_django("casino-bench-flat-", CASINO_TABLE_ACTIONS_PER_SECOND="0")

from django.contrib.auth import get_user_model  # noqa: E402 - after Django's set-up
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.models import Profile, Round, Table  # noqa: E402
from games.services import play_safe  # noqa: E402
from games.services.wallet import open_account  # noqa: E402

SMALL = 100
BIG = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
SLUG = "baccarat-classic"
HTMX = {"HTTP_HX_REQUEST": "true"}
LIMIT = 10**12  # high: every bet passes, every period is still read


def shown_version() -> str:
    """The table's version its page shows, which BET sends back."""
    return str(Table.objects.values_list("current_version__number", flat=True).get(slug=SLUG))


def player(name: str, rounds: int, month_start: dt.datetime) -> Client:
    user = get_user_model().objects.create_user(name, password="bench-Secret-123")
    open_account(user=user)
    Profile.objects.filter(user=user).update(time_zone="UTC")
    for period in ("day", "week", "month"):
        play_safe.set_loss_limit(user=user, period=period, amount=LIMIT)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    # The session started with the month: its net covers every round.
    Profile.objects.filter(user=user).update(session_started_at=month_start)
    slip = {"slip_key": "first", "player": "1", "table_version": shown_version()}
    response = client.post(f"/baccarat/{SLUG}/bet/", slip, **HTMX)
    assert response.status_code == 200, response.content[:300]
    hours = int((timezone.now() - month_start).total_seconds() // 3600)
    copy_rounds(user.pk, rounds - 1, hours=hours)
    return client


def main() -> None:
    now = timezone.now()
    month_start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    t0 = time.perf_counter()
    clients = [player("small", SMALL, month_start), player("big", BIG, month_start)]
    keep_totals()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    made = Round.objects.filter(player__username="big").count()
    assert made == BIG, made
    print(f"built {SMALL} + {BIG} rounds in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    keys = count()
    version = shown_version()

    def bet(client: Client) -> None:
        slip = {"slip_key": f"b{next(keys)}", "player": "1", "table_version": version}
        assert client.post(f"/baccarat/{SLUG}/bet/", slip, **HTMX).status_code == 200

    def table(client: Client) -> None:
        assert client.get(f"/baccarat/{SLUG}/").status_code == 200

    def summary(client: Client) -> None:
        assert client.get("/history/summary/", **HTMX).status_code == 200

    def safe(client: Client) -> None:
        assert client.get("/play-safe/").status_code == 200

    names = {"bet": bet, "table": table, "summary": summary, "play_safe": safe}
    fns = [lambda f=f, c=c: f(c) for f in names.values() for c in clients]
    medians = interleaved_medians(fns, 61)
    result: dict[str, object] = {}
    for i, name in enumerate(names):
        small, big = medians[2 * i], medians[2 * i + 1]
        result[f"{name}_ms_{SMALL}"] = round(small, 2)
        result[f"{name}_ms_{BIG}"] = round(big, 2)
        result[f"{name}_ratio"] = round(big / small, 3)
    result["load"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
