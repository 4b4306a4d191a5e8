"""How long the first history page takes for a player with 100 rounds and with
100,000; the last line printed is one JSON object.

Run from the repository root: ``.venv/bin/python bench/history.py``.  It builds
a throwaway SQLite file database (``CASINO_SQLITE_PATH``, deleted afterwards),
migrates it, bulk-creates the rounds (both games, spread over a year) and
renders ``/history/`` through Django's test client, logged in as each player.
The page pages by keyset and loads its totals in a separate request, so the
two medians should be about the same (``ratio`` target: at most 1.5).  The
totals request is timed too (``summary_ms_*``), for information.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The pure core needs no Django; the models and the site wait for main() to
# point Django at the throwaway database.
from games.baccarat.rules import play_coup
from games.cards import server_seed_hash
from games.verify import derive_shoe

SMALL, BIG = 100, 100_000
REPEAT = 41


def interleaved_medians(fns, repeat: int = REPEAT) -> list[float]:
    """Median milliseconds of each function, timed in turn on every repetition so
    that a busy machine slows them all alike."""
    for fn in fns:  # warm the caches and the template loader
        for _ in range(3):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times, strict=True):
            t0 = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t0) * 1000)
    return [statistics.median(t) for t in times]


def make_rounds(players: list, count: int) -> None:
    """``count`` settled rounds dealt from real shoes (a few coups reused),
    the players taking turns (bench/floor_export.py spreads them over many)."""
    from games.models import Round, Table  # noqa: PLC0415  app loading: main() sets Django up first

    baccarat = Table.objects.get(slug="baccarat-classic")
    war = Table.objects.get(slug="casino-war")
    seed = "ab" * 32
    coups = [play_coup(derive_shoe(seed, "bench", n, 8)) for n in range(32)]
    seq: dict[tuple[int, int], int] = {}
    batch: list[Round] = []
    for i in range(count):
        player = players[i % len(players)]
        table = war if i % 4 == 3 else baccarat
        key = (player.pk, table.pk)
        seq[key] = seq.get(key, 0) + 1
        coup = coups[i % len(coups)]
        if table is war:
            cards = [str(c) for c in coup.cards_in_deal_order[:2]]
            detail = {"decision": None, "result": "win" if i % 2 else "lose"}
            bets, returns = {"ante": 1_000}, {"ante": 2_000 if i % 2 else 0}
            winner = detail["result"]
        else:
            cards = [str(c) for c in coup.cards_in_deal_order]
            detail = {"player_total": coup.player_total, "banker_total": coup.banker_total}
            bets = {"banker": 1_000}
            returns = {"banker": 1_950 if coup.winner == "banker" else 0}
            winner = coup.winner
        total_return = sum(returns.values())
        batch.append(
            Round(
                player=player,
                table=table,
                version_id=table.current_version_id,
                game=table.game,
                seq=seq[key],
                slip_key=uuid.uuid4().hex,
                server_seed=seed,
                server_seed_hash=server_seed_hash(bytes.fromhex(seed)),
                client_seed="bench",
                nonce=i,
                bets=bets,
                returns=returns,
                total_bet=1_000,
                total_return=total_return,
                balance_before=10_000_000,
                balance_after=10_000_000 - 1_000 + total_return,
                outcome="win" if total_return > 1_000 else "lose",
                cards=cards,
                detail=detail,
                winner=winner,
            )
        )
        if len(batch) == 5_000:
            Round.objects.bulk_create(batch)
            batch = []
    if batch:
        Round.objects.bulk_create(batch)


@contextlib.contextmanager
def throwaway_site(prefix: str) -> Iterator[None]:
    """Django set up on a migrated throwaway SQLite file database, deleted
    afterwards, with the test client's "testserver" host let in
    (bench/floor_export.py uses it too)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    db_path = Path(tmp) / "bench.sqlite3"
    os.environ["CASINO_SQLITE_PATH"] = str(db_path)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")

    import django  # noqa: PLC0415  app loading: the settings' environment is set just above

    django.setup()
    # App loading: these need the apps set up on the throwaway database.
    from django.core.management import call_command  # noqa: PLC0415
    from django.db import connections  # noqa: PLC0415
    from django.test.utils import setup_test_environment  # noqa: PLC0415

    setup_test_environment()
    try:
        call_command("migrate", verbosity=0, interactive=False)
        yield
    finally:
        connections.close_all()
        for suffix in ("", "-wal", "-shm"):
            Path(str(db_path) + suffix).unlink(missing_ok=True)
        os.rmdir(tmp)


def spread_rounds(seconds_apart: int) -> None:
    """Stamp the stored rounds ``seconds_apart`` apart, the newest now, as
    real play would (auto_now_add stamped them all now), and ANALYZE."""
    from django.db import connection  # noqa: PLC0415  app loading: throwaway_site sets Django up

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_round SET created_at = datetime('now', '-' || "
            "(((SELECT MAX(id) FROM games_round) - id) * %s) || ' seconds')",
            [seconds_apart],
        )
        cursor.execute("ANALYZE")


def main() -> None:
    with throwaway_site("casino-bench-history-"):
        # App loading: these need the apps set up on the throwaway database.
        from django.contrib.auth import get_user_model  # noqa: PLC0415
        from django.db import transaction  # noqa: PLC0415
        from django.test import Client  # noqa: PLC0415

        from games.services.wallet import open_account  # noqa: PLC0415

        User = get_user_model()
        players = {}
        t0 = time.perf_counter()
        for name, count in (("small", SMALL), ("big", BIG)):
            user = User.objects.create(username=name)
            open_account(user=user)
            with transaction.atomic():
                make_rounds([user], count)
            players[name] = user
        spread_rounds(300)  # five minutes apart: over a year
        build_s = time.perf_counter() - t0
        print(f"built {SMALL} + {BIG} rounds in {build_s:.1f}s", file=sys.stderr)

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
        print(
            json.dumps(
                {
                    "page_ms_100": round(page_small, 2),
                    "page_ms_100k": round(page_big, 2),
                    "ratio": round(page_big / page_small, 3),
                    "summary_ms_100": round(summary_small, 2),
                    "summary_ms_100k": round(summary_big, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
