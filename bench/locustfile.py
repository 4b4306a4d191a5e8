"""Locust players of the casino: sign up, sit at both tables, play.

Run by ``bench/load.py`` (which starts the site, reads the results and checks
the ledger), or by hand against a running site::

    .venv/bin/locust -f bench/locustfile.py --headless -u 50 -r 5 -t 60s \\
        --host http://127.0.0.1:8000 PacedPlayer

``PacedPlayer`` plays at the site's default speed: after each round it
waits out the reveal's pacing (``--pace`` seconds a step, 0.6) and thinks
``--think`` seconds (6, uniformly 0.5x-1.5x) while placing the next chips,
one round every 3-13 s. ``FastPlayer`` is a player on fast play who keeps
pressing REBET: no pacing, 3 s of thought. Each player alternates Baccarat
and War (``--games`` narrows it) through ``bench/client.py``: the real
sign-up form, the slip sent whole with BET, the reveal over the websocket,
each player from a loopback address of its own (127.<worker>.x.y: the site
throttles credential posts per address). Rounds are reported to Locust as
requests of type ROUND (``baccarat``, ``war``), sign-ups as SIGNUP.

With ``--run-dir`` (bench/load.py) every player, once seated, waits for the
file ``go`` there, plays until the time it names, and each Locust process
writes what its players saw (rounds with their times, errors, the round ids
every reveal showed) to ``players-<pid>.json`` once they have all left.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
import time
from pathlib import Path

import gevent
import gevent.event
from locust import User, events, task
from locust.exception import StopUser
from locust.runners import WorkerRunner

# Locust puts this file's folder on the path; the client lives in the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.client import Player, PlayerError, Report, client_address


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--think", type=float, default=-1.0, help="mean seconds between rounds")
    parser.add_argument("--pace", type=float, default=-1.0, help="seconds per reveal step")
    parser.add_argument("--games", default="baccarat,war", help="games each player plays")
    parser.add_argument("--round-timeout", type=float, default=15.0)
    parser.add_argument("--baccarat-table", default="baccarat-social")
    parser.add_argument("--war-table", default="casino-war")
    parser.add_argument("--run-id", default="", help="usernames load-<run-id>-...")
    parser.add_argument("--run-dir", default="", help="bench/load.py's folder for this run")


class LocustReport(Report):
    """Keeps what bench/load.py reads and fires Locust's request events."""

    def __init__(self, environment) -> None:
        super().__init__()
        self.fire = environment.events.request.fire

    def request(self, kind: str, seconds: float, error: Exception | None = None) -> None:
        super().request(kind, seconds, error)
        self.fire(
            request_type="HTTP" if kind != "reveal_first_after_answer" else "WS",
            name=kind,
            response_time=seconds * 1000,
            response_length=0,
            exception=error,
            context={},
        )

    def round(self, game: str, seconds: float) -> None:
        super().round(game, seconds)
        self.fire(
            request_type="ROUND",
            name=game,
            response_time=seconds * 1000,
            response_length=0,
            exception=None,
            context={},
        )

    def error(self, kind: str, detail: str = "") -> None:
        super().error(kind, detail)
        self.fire(
            request_type="ERROR",
            name=kind,
            response_time=0,
            response_length=0,
            exception=PlayerError(kind, detail[:120]),
            context={},
        )

    def signup(self, seconds: float) -> None:
        super().signup(seconds)
        self.fire(
            request_type="SIGNUP",
            name="sign-up",
            response_time=seconds * 1000,
            response_length=0,
            exception=None,
            context={},
        )


class Process:
    """This Locust process's share of a run: its players' numbers, the ``go``
    file and, once every player left, the players file."""

    def __init__(self, environment) -> None:
        options = environment.parsed_options
        runner = environment.runner
        self.group = runner.worker_index if isinstance(runner, WorkerRunner) else 0
        self.run_id = options.run_id or secrets.token_hex(3)
        self.dir = Path(options.run_dir) if options.run_dir else None
        self.count = 0
        self.players: list[LocustPlayerBase] = []
        self.left = 0
        self.play_at = 0.0
        self.until = float("inf")
        self.timeout = options.round_timeout
        self.started = gevent.event.Event()
        if self.dir is None:
            self.started.set()
        else:
            gevent.spawn(self._run)

    def _run(self) -> None:
        """Wait for ``go``; after the play, for every player to leave (each
        finishes its round and waits for late reveals); then write."""
        assert self.dir is not None
        go = self.dir / "go"
        while not go.exists():
            gevent.sleep(0.2)
        times = json.loads(go.read_text())
        self.play_at, self.until = times["play_at"], times["until"]
        self.started.set()
        gevent.sleep(max(0.0, self.until - time.time()))
        give_up = time.time() + 4 * self.timeout + 10
        while self.left < len(self.players) and time.time() < give_up:
            gevent.sleep(0.2)
        self.write()

    def seat(self, player: LocustPlayerBase) -> int:
        self.count += 1
        self.players.append(player)
        return self.count - 1

    def seated(self) -> None:
        """Tell bench/load.py how many players sat down and how many could not."""
        if self.dir is not None:
            seated = sum(1 for p in self.players if p.seated)
            failed = sum(1 for p in self.players if p.failed)
            (self.dir / f"seated-{os.getpid()}").write_text(f"{seated} {failed}")

    def leave(self) -> None:
        self.left += 1

    def write(self) -> None:
        assert self.dir is not None
        out = {
            "players": [
                {
                    "username": p.player.username if p.player else "",
                    "seated": p.seated,
                    "seen_rounds": sorted(p.player.seen_rounds) if p.player else [],
                    "last_round_at": max((r[0] for r in p.report.rounds), default=0.0),
                    "error_times": [e[0] for e in p.report.errors],
                }
                for p in self.players
            ],
        }
        merged = Report()
        for p in self.players:
            merged.rounds += p.report.rounds
            merged.errors += p.report.errors
            merged.signups += p.report.signups
            merged.counts.update(p.report.counts)
            for kind, values in p.report.requests.items():
                merged.requests.setdefault(kind, []).extend(values)
        out.update(
            rounds=merged.rounds,
            errors=merged.errors,
            signups=merged.signups,
            counts=dict(merged.counts),
            requests=merged.requests,
        )
        path = self.dir / f"players-{os.getpid()}.json"
        path.with_suffix(".tmp").write_text(json.dumps(out))
        path.with_suffix(".tmp").rename(path)


_process: Process | None = None


def process(environment) -> Process:
    global _process
    if _process is None:
        _process = Process(environment)
    return _process


class LocustPlayerBase(User):
    """One player (see the module docstring); subclasses set the pacing."""

    abstract = True
    pace = 0.6
    think = 6.0

    def on_start(self) -> None:
        options = self.environment.parsed_options
        self.proc = process(self.environment)
        self.seated = self.failed = False
        self.player: Player | None = None
        self.report = LocustReport(self.environment)
        n = self.proc.seat(self)
        if options.think >= 0:
            self.think = options.think
        if options.pace >= 0:
            self.pace = options.pace
        self.games = [g for g in options.games.split(",") if g in ("baccarat", "war")]
        self.rng = random.Random(f"{self.proc.run_id}-{self.proc.group}-{n}")
        self.player = Player(
            self.host,
            f"load-{self.proc.run_id}-{self.proc.group}-{n}",
            address=client_address(n, self.proc.group),
            report=self.report,
            rng=self.rng,
            timeout=options.round_timeout,
            pace=self.pace,
            baccarat_table=options.baccarat_table,
            war_table=options.war_table,
        )
        try:
            self.player.sign_up()
            self.player.sit_down()
        except PlayerError as exc:
            self.report.error(f"setup {exc.kind}", exc.detail)
            self.failed = True
            self.proc.seated()
            self._leave()
            raise StopUser from None
        self.seated = True
        self.proc.seated()
        self.proc.started.wait()
        self.turn = n % len(self.games)  # half the players start at each table
        # People do not all press BET at once: each starts within one think time.
        gevent.sleep(self.rng.uniform(0, self.think))

    def wait_time(self) -> float:
        assert self.player is not None
        pause = self.player.paced + self.think * self.rng.uniform(0.5, 1.5)
        self.player.paced = 0.0
        return max(0.0, min(pause, self.proc.until - time.time()))

    @task
    def play(self) -> None:
        assert self.player is not None
        if time.time() >= self.proc.until:
            self._leave()
            raise StopUser
        self.player.play(self.games[self.turn])
        self.turn = (self.turn + 1) % len(self.games)

    def on_stop(self) -> None:
        self._leave()

    def _leave(self) -> None:
        if getattr(self, "left", False):
            return
        self.left = True
        if self.player is not None:
            self.player.close()
        self.proc.leave()


class PacedPlayer(LocustPlayerBase):
    """Watches each reveal at the default speed, then thinks about 6 s."""

    pace = 0.6
    think = 6.0


class FastPlayer(LocustPlayerBase):
    """Fast play and REBET: no pacing to wait out, about 3 s between rounds."""

    pace = 0.0
    think = 3.0
