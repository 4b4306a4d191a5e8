"""The restore drill: players play, a backup is taken under their load, they
play on, the database is destroyed, it is restored, and the books are
checked. The last line printed is one JSON object.

    .venv/bin/python bench/drill.py --database sqlite
    .venv/bin/python bench/drill.py --database postgres --pg-port 30432

It runs on a throwaway database of its own: a SQLite file, or a PostgreSQL
server it starts (initdb, loopback, ``--pg-port``) with continuous WAL
archiving into a pgBackRest repository (ops/pitr.sh's settings), and stops.

1. ``--players`` players (threads, each its own connection, seeded bets,
   ``--think`` seconds between two bets) play Baccarat through the service
   layer until ``--rounds`` rounds are committed.
2. ``manage.py backup`` (what ``make backup`` runs) takes the snapshot while
   they play: ``backup_s`` (the copy, from the backup's manifest) and
   ``backup_command_s`` (the whole command, Python's start-up included). On
   PostgreSQL pgBackRest's full backup follows, also under load:
   ``pitr_backup_s``.
3. They play ``--rounds`` more (on PostgreSQL, until the WAL archive holds
   those rounds too: at most about ``--archive-timeout`` later); then, while
   they still play, the database is destroyed (SQLite: the file and its WAL
   deleted; PostgreSQL: the server killed, its data directory deleted, a new
   empty server made).
4. ``manage.py restore`` (``make restore``) brings the snapshot back:
   ``restore_s`` (``restore_command_s`` with start-up and the command's
   own ledger check). ``audit_ledger`` must pass (``ledger_ok``), every round
   committed before the backup started must be there with the same stakes
   and returns (``rounds_lost``, ``rounds_changed``: both 0), and nothing
   committed after the snapshot (``rounds_after_snapshot``).
5. PostgreSQL: the server is destroyed again and pgBackRest restores its
   backup and replays the archived WAL to the end: ``pitr_restore_s``,
   ``pitr_ledger_ok``, ``pitr_rounds_lost`` (rounds committed before the
   backup that are missing: 0) and ``pitr_seconds_lost``, the seconds between
   the last round committed before the loss and the last one recovered (the
   WAL not yet archived when the disk went: at most about
   ``--archive-timeout``). On SQLite, which has no WAL archive,
   ``pitr_seconds_lost`` is everything played since the snapshot.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = sys.executable
CHIP = 100


class Postgres:
    """A PostgreSQL server of the drill's own (ops/pitr.sh), archiving its WAL
    into a pgBackRest repository."""

    def __init__(self, folder: Path, port: int, archive_timeout: int) -> None:
        self.port = port
        self.env = {
            **os.environ,
            "PITR_DIR": str(folder),
            "PITR_PG_PORT": str(port),
            "PITR_ARCHIVE_TIMEOUT": str(archive_timeout),
        }

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/casino"

    def await_archived(self, seconds: float) -> None:
        """Once every WAL written so far is in the repository."""
        import psycopg  # noqa: PLC0415 - PostgreSQL only

        with psycopg.connect(self.url, autocommit=True) as conn:
            (segment,) = conn.execute("SELECT pg_walfile_name(pg_current_wal_lsn())").fetchone()
            deadline = time.monotonic() + seconds
            while True:
                (archived,) = conn.execute(
                    "SELECT last_archived_wal FROM pg_stat_archiver"
                ).fetchone()
                # Same timeline: the names sort as the segments follow.
                if archived and archived[:8] == segment[:8] and archived >= segment:
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"WAL {segment} not archived in {seconds} s ({archived})")
                time.sleep(0.2)

    def pitr(self, *args: str) -> None:
        done = subprocess.run(
            [str(ROOT / "ops" / "pitr.sh"), *args],
            env=self.env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"ops/pitr.sh {args[0]} failed: {done.stderr[-2000:]}")


# ------------------------------------------------------------------ players


class Players:
    """Players betting through the service layer, each on a thread and a
    database connection of its own; every committed round is noted with the
    time its BET returned."""

    def __init__(self, users: list, seed: int, think: float) -> None:
        self.users, self.seed, self.think = users, seed, think
        self.stop = threading.Event()
        self.committed: dict[int, tuple[float, int, int]] = {}  # id -> (time, bet, return)
        self.errors: list[str] = []
        self.lock = threading.Condition()
        self.threads = [
            threading.Thread(target=self._play, args=(user, i), daemon=True)
            for i, user in enumerate(users)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def await_rounds(self, n: int, seconds: float = 300) -> set[int]:
        """Once ``n`` rounds are committed: the ids of every round committed
        so far. Raises if the players stop first or take over ``seconds``."""
        with self.lock:
            done = self.lock.wait_for(
                lambda: len(self.committed) >= n or not any(t.is_alive() for t in self.threads),
                timeout=seconds,
            )
            if not done or len(self.committed) < n:
                raise RuntimeError(
                    f"the players committed {len(self.committed)} of {n} rounds: {self.errors[:3]}"
                )
            return set(self.committed)

    def _play(self, user, index: int) -> None:
        from django.db import connection  # noqa: PLC0415 - after django.setup()

        from games.errors import GameError  # noqa: PLC0415
        from games.models import Table  # noqa: PLC0415
        from games.services import baccarat  # noqa: PLC0415

        rng = random.Random(self.seed * 1000 + index)
        table = Table.objects.get(slug="baccarat-classic")
        n = 0
        try:
            while not self.stop.is_set():
                n += 1
                area = rng.choice(["player", "banker", "banker", "tie"])
                chips = 10 if area == "tie" else rng.choice([1, 5, 10])  # TIE's minimum is 10
                try:
                    rnd = baccarat.place_bet(
                        user=user, table=table, bets={area: chips * CHIP},
                        slip_key=f"drill-{index}-{n}",
                    )  # fmt: skip
                except GameError as exc:  # out of chips: a refusal, nothing moved
                    if exc.code != "balance":
                        self.errors.append(f"{exc.code}: {exc}")
                    continue
                with self.lock:
                    self.committed[rnd.pk] = (time.time(), rnd.total_bet, rnd.total_return)
                    self.lock.notify_all()
                if self.think:
                    self.stop.wait(self.think * rng.uniform(0.5, 1.5))
        except Exception as exc:  # reported in the JSON
            self.errors.append(repr(exc))
        finally:
            connection.close()
            with self.lock:
                self.lock.notify_all()  # a waiter learns the player stopped


# ------------------------------------------------------------------ the drill


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def restored_rounds(env: dict[str, str]) -> dict[int, tuple[int, int]]:
    code = (
        "import json; from games.models import Round; "
        "print(json.dumps([[r.pk, r.total_bet, r.total_return] "
        "for r in Round.objects.only('total_bet', 'total_return')]))"
    )
    done = manage(env, "shell", "-c", code)
    if done.returncode:
        raise RuntimeError(f"reading the restored rounds failed: {done.stderr[-2000:]}")
    return {pk: (bet, ret) for pk, bet, ret in json.loads(done.stdout.strip().splitlines()[-1])}


def check_books(env: dict[str, str], players: Players, before_backup: set[int]) -> dict:
    audit = manage(env, "audit_ledger")
    rounds = restored_rounds(env)
    committed = players.committed
    lost = before_backup - set(rounds)
    changed = [pk for pk, value in rounds.items() if pk in committed and committed[pk][1:] != value]
    last_restored = max((committed[pk][0] for pk in rounds if pk in committed), default=None)
    last_committed = max(t for t, _, _ in committed.values())
    return {
        "ledger_ok": audit.returncode == 0,
        "audit": (audit.stdout + audit.stderr).strip().splitlines()[-1:],
        "rounds_restored": len(rounds),
        "rounds_lost": len(lost),
        "rounds_changed": len(changed),
        "rounds_unknown": len(set(rounds) - set(committed)),
        "seconds_lost": round(last_committed - last_restored, 3) if last_restored else None,
        "rounds_missing_after_backup": len(set(committed) - set(rounds) - before_backup),
    }


def timed(env: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = manage(env, *args)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr[-2000:]}")
    return seconds, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument(
        "--rounds", type=int, default=400, help="rounds played before and after the backup"
    )
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds a player waits between bets"
    )
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--pg-port", type=int, default=30432)
    parser.add_argument("--archive-timeout", type=int, default=5, help="seconds (PostgreSQL)")
    parser.add_argument("--keep", action="store_true", help="keep the drill's folder")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="casino-drill-"))
    folder.chmod(0o755)  # PostgreSQL's own user works in it too
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DJANGO_LOG_LEVEL="WARNING",
        CASINO_BACKUP_DIR=str(folder / "backups"),
        CASINO_TESTING="0",
        CASINO_STARTING_CHIPS="100000",
        # The drill's log beside its database, never the project's db/.
        CASINO_LOG_KEY_FILE=str(folder / "log_key"),
        CASINO_LOG_PUBLISHED_FILE=str(folder / "log_published"),
        CASINO_LOG_WITNESSES_FILE=str(folder / "log_witnesses"),
        # The Makefile's bytecode cache, outside the tree.
        PYTHONPYCACHEPREFIX=os.environ.get("PYTHONPYCACHEPREFIX", str(ROOT / ".pycache")),
    )
    pg: Postgres | None = None
    if args.database == "sqlite":
        env["CASINO_SQLITE_PATH"] = str(folder / "casino.sqlite3")
    else:
        pg = Postgres(folder / "pg-server", args.pg_port, args.archive_timeout)
        pg.pitr("init")  # initdb, archiving on, start, the stanza, the casino database
        env["DATABASE_URL"] = pg.url
    # The drill's own database only, never one named in the caller's environment.
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(env)
    result: dict = {"database": args.database, "players": args.players}
    try:
        import django  # noqa: PLC0415

        django.setup()
        from django.contrib.auth import get_user_model  # noqa: PLC0415
        from django.core.management import call_command  # noqa: PLC0415
        from django.db import connections  # noqa: PLC0415

        from games.services.wallet import open_account  # noqa: PLC0415

        call_command("migrate", verbosity=0, interactive=False)
        call_command("setup_casino", stdout=open(os.devnull, "w"))  # noqa: SIM115
        users = []
        for i in range(args.players):
            user = get_user_model().objects.create_user(f"drill{i}", password=None)
            open_account(user=user)
            users.append(user)

        players = Players(users, args.seed, args.think)
        players.start()
        before_backup = players.await_rounds(args.rounds)
        result["backup_command_s"], done = timed(env, "backup")
        backup_path = done.stdout.strip().splitlines()[-1]
        manifest = json.loads(Path(backup_path + ".json").read_text())
        result["backup_s"] = manifest["seconds"]  # the copy itself; the command adds start-up
        if pg is not None:
            started = time.perf_counter()
            pg.pitr("backup")
            result["pitr_backup_s"] = round(time.perf_counter() - started, 3)
        with players.lock:
            after_backups = len(players.committed)
        players.await_rounds(after_backups + args.rounds)
        if pg is not None:
            # The disk is lost only once the archive holds those rounds'
            # WAL (PostgreSQL switches segments every --archive-timeout
            # seconds): the players play on meanwhile, and what they commit
            # after it is what a lost disk loses.
            pg.await_archived(seconds=10 * args.archive_timeout + 30)
        players.finish()
        connections.close_all()
        committed_before_loss = len(players.committed)
        result.update(
            rounds_played=committed_before_loss,
            rounds_before_backup=len(before_backup),
            rounds_in_backup=manifest["rounds"],
            player_errors=players.errors[:5],
        )

        # The loss.
        if pg is None:
            for suffix in ("", "-wal", "-shm"):
                Path(env["CASINO_SQLITE_PATH"] + suffix).unlink(missing_ok=True)
        else:
            pg.pitr("destroy")
            pg.pitr("fresh")  # a new, empty server on the same port (no archiving yet)

        result["restore_command_s"], done = timed(env, "restore", "--yes", backup_path)
        # The restore itself, as the command reports it (start-up and the
        # ledger check aside).
        result["restore_s"] = float(done.stdout.rsplit("restored in ", 1)[1].split()[0])
        books = check_books(env, players, before_backup)
        result.update(
            ledger_ok=books["ledger_ok"],
            rounds_lost=books["rounds_lost"],
            rounds_changed=books["rounds_changed"],
            # The snapshot holds what its manifest counted, nothing more.
            restored_as_manifest=books["rounds_restored"] == manifest["rounds"],
            snapshot_seconds_lost=books["seconds_lost"],
            audit=books["audit"],
        )
        if pg is None:
            result["pitr_seconds_lost"] = books["seconds_lost"]  # no WAL archive on SQLite
        else:
            pg.pitr("destroy")
            started = time.perf_counter()
            pg.pitr("restore")  # the last backup, then every archived WAL segment
            result["pitr_restore_s"] = round(time.perf_counter() - started, 3)
            pitr = check_books(env, players, before_backup)
            result.update(
                pitr_ledger_ok=pitr["ledger_ok"],
                pitr_rounds_lost=pitr["rounds_lost"],
                pitr_rounds_changed=pitr["rounds_changed"],
                pitr_rounds_recovered=pitr["rounds_restored"],
                pitr_seconds_lost=pitr["seconds_lost"],
                archive_timeout_s=args.archive_timeout,
            )
        result["backup_command_s"] = round(result["backup_command_s"], 3)
        result["restore_command_s"] = round(result["restore_command_s"], 3)
    finally:
        if pg is not None:
            pg.pitr("stop")
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
