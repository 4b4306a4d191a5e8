"""The operator dashboard costs the same for a table with 10,000 rounds and
one with 1,000,000. The last line printed is one JSON object; every
``*_ratio`` (big over small, interleaved medians) should be at most 1.2.

Run from the repository root: ``.venv/bin/python bench/dashboard.py [rounds]``
(the big table's rounds, 1,000,000 by default). On a throwaway site
(bench/throwaway.py) Baccarat Classic gets the big table's rounds and
Baccarat Social 10,000, both spread evenly over the last 60 days and dealt
to the same six players in turn: copies of a few rounds dealt from real
shoes, made in one INSERT ... SELECT per table, and the kept totals rebuilt
from them. A signed-in superuser asks for the dashboard of one table
(``?table=``) over the last 24 hours and the last 30 days.

Then what keeping the table's hour adds to a round: Baccarat rounds played
through the service (no sockets), in turn with and without the hour's
upsert among the round's statements (``round_hour_ratio``; the hours are
left wrong by the rounds without, on a site thrown away).
"""

from __future__ import annotations

import json
import os
import sys
import time
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import interleaved_medians, keep_totals, make_rounds, set_up_django

# The dashboard asks staff for a second factor unless told not to; no log
# integrator thread writing beside the bulk inserts.
set_up_django("casino-bench-dashboard-", CASINO_STAFF_OTP="0", CASINO_LOG_INTEGRATE_SECONDS="0")

from django.contrib.auth import get_user_model  # noqa: E402 - after Django's set-up
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from games.models import Round, Table, TableHour  # noqa: E402
from games.services import baccarat, rollups  # noqa: E402
from games.services.wallet import open_account  # noqa: E402

SMALL = 10_000
BIG = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
PLAYERS = 6
DAYS = 60
KINDS = 32  # rounds dealt for real per table; the rest are copies of them


def fill(table: Table, players: list, count: int) -> None:
    """``count`` rounds at ``table``: ``KINDS`` made from real coups, the
    rest copies of them in one INSERT ... SELECT, player after player, the
    newest now and the oldest ``DAYS`` days ago."""
    with transaction.atomic():
        make_rounds(players, KINDS, war_every=0)  # at Baccarat Classic: moved to ``table``
    newest = Round.objects.order_by("-id").values("pk")[:KINDS]
    Round.objects.filter(pk__in=newest).update(table=table, version=table.current_version_id)
    first_player = min(p.pk for p in players)
    copied = [
        f.column
        for f in Round._meta.concrete_fields
        if f.column not in ("id", "player_id", "seq", "slip_key", "created_at")
    ]
    columns = ", ".join(copied)
    spacing = DAYS * 86_400 / count
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s), "  # noqa: S608 - names are ours
            f"k AS (SELECT *, ROW_NUMBER() OVER (ORDER BY id) - 1 AS kind FROM games_round "
            f"WHERE table_id = %s) "
            f"INSERT INTO games_round ({columns}, player_id, seq, slip_key, created_at) "
            f"SELECT {columns}, %s + n.i %% %s, 1000 + n.i, 'copy-' || k.table_id || '-' || n.i, "
            f"strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now', '-' || (n.i * %s) || ' seconds') "
            f"FROM n JOIN k ON k.kind = n.i %% %s",
            [count - KINDS, table.pk, first_player, PLAYERS, spacing, KINDS],
        )


def round_cost(user, table: Table, repeat: int) -> tuple[float, float]:
    """Median milliseconds of a Baccarat round with its table's hour kept,
    and without (the hour's upsert left out of the round's statements)."""
    keep = rollups.new_round_statements
    hours = TableHour._meta.db_table

    def without_hour(rnd, profile):
        return [(sql, values) for sql, values in keep(rnd, profile) if hours not in sql]

    keys = count()

    def play() -> None:
        baccarat.play(
            user=user,
            table=table,
            bets={"player": 100},
            slip_key=f"r{next(keys)}",
            notify_sockets=False,
        )

    def play_without() -> None:
        rollups.new_round_statements = without_hour
        try:
            play()
        finally:
            rollups.new_round_statements = keep

    with_ms, without_ms = interleaved_medians([play, play_without], repeat)
    return with_ms, without_ms


def main() -> None:
    t0 = time.perf_counter()
    players = []
    for n in range(PLAYERS):
        user = get_user_model().objects.create_user(f"player{n}")
        open_account(user=user)
        players.append(user)
    assert [p.pk for p in players] == list(range(players[0].pk, players[0].pk + PLAYERS))
    small = Table.objects.get(slug="baccarat-social")
    big = Table.objects.get(slug="baccarat-classic")
    fill(small, players, SMALL)
    fill(big, players, BIG)
    keep_totals()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    made = [Round.objects.filter(table=t).count() for t in (small, big)]
    assert made == [SMALL, BIG], made
    print(f"built {SMALL} + {BIG} rounds in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    operator = get_user_model().objects.create_superuser("operator", "op@example.com", None)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(operator)
    url = reverse("admin:games_dashboard")

    def dashboard(table: Table, period: str):
        def ask() -> None:
            response = client.get(url, {"period": period, "table": table.slug})
            assert response.status_code == 200, response.status_code

        return ask

    calls = [dashboard(t, p) for p in ("24h", "30d") for t in (small, big)]
    repeat = int(os.environ.get("BENCH_REPEAT", "21"))
    day_small, day_big, month_small, month_big = interleaved_medians(calls, repeat)
    result = {
        "rounds_small": SMALL,
        "rounds_big": BIG,
        "dashboard_24h_ms_small": round(day_small, 2),
        "dashboard_24h_ms_big": round(day_big, 2),
        "dashboard_24h_ratio": round(day_big / day_small, 3),
        "dashboard_30d_ms_small": round(month_small, 2),
        "dashboard_30d_ms_big": round(month_big, 2),
        "dashboard_30d_ratio": round(month_big / month_small, 3),
    }
    with_ms, without_ms = round_cost(players[0], big, 5 * repeat)
    result |= {
        "round_ms_with_hour": round(with_ms, 3),
        "round_ms_without_hour": round(without_ms, 3),
        "round_hour_ratio": round(with_ms / without_ms, 3),
        "loadavg": os.getloadavg()[0],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
