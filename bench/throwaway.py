"""A throwaway site for the benches that run the casino in their own
process (bench/history.py, bench/floor_export.py, bench/round.py,
bench/socket_round.py): Django on a migrated SQLite file that is deleted
afterwards, rounds made in bulk from real coups, and medians timed in turn."""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

# The pure core needs no Django; the models and the site wait for
# set_up_django() to point Django at the throwaway database.
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
    # App loading: set_up_django() comes first.
    from django.utils import timezone  # noqa: PLC0415

    from games.models import Round, Table  # noqa: PLC0415
    from games.services.baccarat import coup_record  # noqa: PLC0415

    baccarat = Table.objects.get(slug="baccarat-classic")
    war = Table.objects.get(slug="casino-war")
    seed = "ab" * 32
    coups = [play_coup(derive_shoe(seed, "bench", n, 8)) for n in range(32)]
    seq: dict[tuple[int, int], int] = {}
    batch: list[Round] = []
    now = timezone.now()
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
                settled_at=now,
                **dealt,
            )
        )
        if len(batch) == 5_000:
            Round.objects.bulk_create(batch)
            batch = []
    if batch:
        Round.objects.bulk_create(batch)


def set_up_django(prefix: str, *, keep_database_url: bool = False, **env: str) -> None:
    """Django on a migrated SQLite file in a folder of its own, deleted when
    the bench exits, with the test client's host let in and ``env`` on top;
    ``keep_database_url``: a ``DATABASE_URL`` and ``REDIS_URL`` in the
    environment are used when set. The commitment log's published
    checkpoint is kept in the folder too. Call it before importing what
    needs the apps."""
    folder = tempfile.mkdtemp(prefix=prefix)
    if not keep_database_url:
        for name in ("DATABASE_URL", "REDIS_URL"):
            os.environ.pop(name, None)
    if not os.environ.get("DATABASE_URL"):
        os.environ["CASINO_SQLITE_PATH"] = str(Path(folder) / "bench.sqlite3")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "DJANGO_ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
            # The throwaway log's checkpoint stays in the throwaway folder: the
            # default (db/log_published) is the development site's, and a
            # smaller tree published there would stop it serving its log.
            "CASINO_LOG_PUBLISHED_FILE": str(Path(folder) / "log_published"),
            **env,
        }
    )
    import django  # noqa: PLC0415 - the settings' environment is set just above
    from django.core.management import call_command  # noqa: PLC0415
    from django.db import connections  # noqa: PLC0415

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)

    @atexit.register
    def remove() -> None:
        connections.close_all()
        # A connection another thread held (sync_to_async's) may still be
        # writing its last pages while the first pass runs.
        for _ in range(5):
            shutil.rmtree(folder, ignore_errors=True)
            if not os.path.exists(folder):
                return
            time.sleep(0.2)


def spread_rounds(seconds_apart: int) -> None:
    """Stamp the stored rounds ``seconds_apart`` apart, the newest now, as
    real play would (bulk_create stamped them all now), rebuild the kept
    totals as the rounds now say, and ANALYZE."""
    from django.db import connection  # noqa: PLC0415 - app loading: set_up_django() first

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_round SET created_at = datetime('now', '-' || "
            "(((SELECT MAX(id) FROM games_round) - id) * %s) || ' seconds')",
            [seconds_apart],
        )
    keep_totals()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def keep_totals() -> None:
    """The kept totals (games/services/rollups.py) of rounds stored in bulk,
    beside the pipeline: every player's day rows and session net rebuilt."""
    from games.services.rollups import rebuild_all  # noqa: PLC0415 - set_up_django() first

    rebuild_all()


def copy_rounds(player_id: int, count: int, *, hours: int) -> None:
    """``count`` copies of the player's latest round in one INSERT ... SELECT
    (a million in seconds), numbered on from it and stamped an hour apart
    over the last ``hours`` hours, round after round. The kept totals are
    not moved: ``keep_totals`` rebuilds them."""
    from django.db import connection  # noqa: PLC0415 - app loading: set_up_django() first

    from games.models import Round  # noqa: PLC0415

    copied = [
        f.column
        for f in Round._meta.concrete_fields
        if f.column not in ("id", "seq", "slip_key", "created_at")
    ]
    columns = ", ".join(copied)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s) "  # noqa: S608 - names are ours
            f"INSERT INTO games_round ({columns}, seq, slip_key, created_at) "
            f"SELECT {columns}, r.seq + n.i, 'copy-' || r.id || '-' || n.i, "
            f"strftime('%%Y-%%m-%%d %%H:%%M:%%f', r.created_at, '-' || (n.i %% %s) || ' hours') "
            f"FROM n, (SELECT * FROM games_round WHERE player_id = %s ORDER BY id DESC LIMIT 1) r",
            [count, max(1, hours), player_id],
        )
