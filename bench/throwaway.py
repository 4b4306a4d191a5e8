"""A throwaway site for the benches that run the casino in their own
process (bench/history.py, bench/floor_export.py, bench/round.py): Django on
a migrated SQLite file that is deleted afterwards, rounds made in bulk from
real coups, and medians timed in turn."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

# The pure core needs no Django; the models and the site wait for
# throwaway_site() to point Django at the throwaway database.
from games.baccarat.rules import play_coup
from games.cards import server_seed_hash
from games.verify import derive_shoe

REPEAT = 41


def interleaved_medians(fns: list[Callable[[], object]], repeat: int = REPEAT) -> list[float]:
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


def make_rounds(players: list, count: int, *, war_every: int = 4) -> None:
    """``count`` settled rounds dealt from real shoes (a few coups reused),
    the players taking turns, every ``war_every``-th one at War (0: none)."""
    # App loading: throwaway_site() sets Django up first.
    from games.models import Round, Table  # noqa: PLC0415
    from games.services.baccarat import coup_record  # noqa: PLC0415

    baccarat = Table.objects.get(slug="baccarat-classic")
    war = Table.objects.get(slug="casino-war")
    seed = "ab" * 32
    coups = [play_coup(derive_shoe(seed, "bench", n, 8)) for n in range(32)]
    seq: dict[tuple[int, int], int] = {}
    batch: list[Round] = []
    for i in range(count):
        player = players[i % len(players)]
        table = war if war_every and i % war_every == war_every - 1 else baccarat
        key = (player.pk, table.pk)
        seq[key] = seq.get(key, 0) + 1
        coup = coups[i % len(coups)]
        if table is war:
            result = "win" if i % 2 else "lose"
            dealt = {
                "cards": [str(c) for c in coup.cards_in_deal_order[:2]],
                "detail": {"decision": None, "result": result},
                "winner": result,
            }
            bets, returns = {"ante": 1_000}, {"ante": 2_000 if i % 2 else 0}
        else:
            dealt = coup_record(coup, decks=8)
            bets = {"banker": 1_000}
            returns = {"banker": 1_950 if coup.winner == "banker" else 0}
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
                **dealt,
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
    afterwards, with the test client's "testserver" host let in."""
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
