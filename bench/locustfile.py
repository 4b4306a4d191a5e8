"""Locust players of the casino: sign up, sit at both tables, play.

Run by ``bench/load.py`` (which starts the site, measures its CPU and checks
the ledger), or by hand against a running site::

    .venv/bin/locust -f bench/locustfile.py --headless -u 50 -r 5 -t 60s \\
        --host http://127.0.0.1:8000 PacedPlayer

``PacedPlayer`` plays at the site's default speed: after each round it
waits out the reveal's pacing (``--pace`` seconds a step, 0.6) and thinks
``--think`` seconds (6, uniformly 0.5x-1.5x) while placing the next chips,
one round every 3-13 s. ``FastPlayer`` is a player on fast play who keeps
pressing REBET: no pacing, 3 s of thought. Each player alternates Baccarat
and War (``--games`` narrows it) through ``bench/client.py``: the real
sign-up form, the slip sent whole with BET over ``--transport`` (``socket``,
the table's websocket, or ``http``, the forms' posts), the reveal over the
websocket, each player from a loopback address of its own (127.<worker>.x.y:
the site throttles credential posts per address). Locust's statistics hold
rounds as requests of type ROUND (``baccarat``, ``war``; bet to result),
sign-ups as SIGNUP (``sign-up``, and ``sign-up while playing`` for the
players ``--late-players`` adds once the play began), each step as HTTP or
WS, and every error as a failure of type ERROR.

With ``--play-seconds S`` (bench/load.py) the run has a window: every player
waits, seated, until all are (Locust's users, ramped up at its spawn rate),
then they play S seconds; Locust's own stop (``--stop-timeout``) lets each
finish its round. The master (or the only process) counts the seated players
from Locust messages, sends ``go`` to its workers, and prints on its
standard output one line ``casino-load <event> <json>`` as the play begins
(``go``), once every player stopped (``stopped``), and the result
(``result``: Locust's percentiles of the rounds, the players' round ids for
the reveal check), then quits.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import gevent
import gevent.event
from locust import User, events, task
from locust.exception import StopUser
from locust.runners import MasterRunner, WorkerRunner
from locust.stats import StatsEntry

# Locust puts this file's folder on the path; the client lives in the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.client import TRANSPORTS, Player, PlayerError, Report, client_address

EVENT = "casino-load"


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--think", type=float, default=-1.0, help="mean seconds between rounds")
    parser.add_argument("--pace", type=float, default=-1.0, help="seconds per reveal step")
    parser.add_argument("--games", default="baccarat,war", help="games each player plays")
    parser.add_argument("--transport", choices=TRANSPORTS, default="socket")
    parser.add_argument("--round-timeout", type=float, default=15.0)
    parser.add_argument("--baccarat-table", default="baccarat-social")
    parser.add_argument("--war-table", default="casino-war")
    parser.add_argument("--run-id", default="", help="usernames load-<run-id>-...")
    parser.add_argument(
        "--play-seconds",
        type=float,
        default=0.0,
        help="seated players play this long (0: no window)",
    )
    parser.add_argument(
        "--seat-seconds", type=float, default=300.0, help="at most this long to seat everyone"
    )
    parser.add_argument(
        "--late-players", type=int, default=0, help="players signing up once the play began"
    )


class LocustReport(Report):
    """Fires Locust's request events (a failure for each error); keeps the
    rest of what a player saw."""

    def __init__(self, environment, process: Process) -> None:
        super().__init__()
        self.fire = environment.events.request.fire
        self.process = process

    def _fire(self, kind: str, name: str, seconds: float, error: Exception | None) -> None:
        self.fire(
            request_type=kind,
            name=name,
            response_time=seconds * 1000,
            response_length=0,
            exception=error,
            context={},
        )

    def request(self, kind: str, seconds: float, error: Exception | None = None) -> None:
        self._fire("WS" if kind == "reveal_first_after_answer" else "HTTP", kind, seconds, error)

    def round(self, game: str, seconds: float) -> None:
        super().round(game, seconds)
        self._fire("ROUND", game, seconds, None)

    def error(self, kind: str, detail: str = "") -> None:
        super().error(kind, detail)
        self._fire("ERROR", kind, 0, PlayerError(kind, detail[:120]))

    def signup(self, seconds: float) -> None:
        late = self.process.go.is_set()
        self._fire("SIGNUP", "sign-up while playing" if late else "sign-up", seconds, None)


class Process:
    """This Locust process's part of a run with a window: the ``go`` event,
    its players; on the master (or the only process) the conductor."""

    def __init__(self, environment) -> None:
        self.environment = environment
        options = environment.parsed_options
        runner = environment.runner
        self.worker = isinstance(runner, WorkerRunner)
        self.group = runner.worker_index if self.worker else 0
        self.run_id = options.run_id or f"{random.randrange(16**6):06x}"
        self.seconds = options.play_seconds
        self.count = 0
        self.go = gevent.event.Event()
        self.play_at = 0.0
        self.until = float("inf")
        if not self.seconds:
            self.go.set()
        # The conductor's counts (master or the only process).
        self.seated = self.failed = 0
        self.reports: list[dict] = []
        if isinstance(runner, MasterRunner):
            runner.register_message("seated", lambda msg, **_: self.on_seated(msg.data))
            runner.register_message("player", lambda msg, **_: self.reports.append(msg.data))
        elif self.worker:
            runner.register_message("go", lambda msg, **_: self.on_go(msg.data))

    # --- a player's side ------------------------------------------------------

    def next_number(self) -> int:
        self.count += 1
        return self.count - 1

    def tell(self, kind: str, data: dict) -> None:
        """To the conductor: over Locust's messages from a worker, directly here."""
        if self.worker:
            self.environment.runner.send_message(kind, data)
        elif kind == "seated":
            self.on_seated(data)
        else:
            self.reports.append(data)

    def on_go(self, data: dict) -> None:
        self.play_at, self.until = data["play_at"], data["until"]
        self.go.set()

    # --- the conductor ----------------------------------------------------------

    def on_seated(self, data: dict) -> None:
        if data["ok"]:
            self.seated += 1
        else:
            self.failed += 1

    def conduct(self) -> None:
        """Seat everyone, play the window, stop Locust's users, report, quit."""
        options = self.environment.parsed_options
        runner = self.environment.runner
        players = options.num_users
        give_up = time.time() + options.seat_seconds
        while self.seated + self.failed < players and time.time() < give_up:
            gevent.sleep(0.1)
        self.play_at = time.time()
        self.until = self.play_at + self.seconds
        window = {"play_at": self.play_at, "until": self.until}
        self.emit("go", {**window, "seated": self.seated, "failed": self.failed})
        if isinstance(runner, MasterRunner):
            runner.send_message("go", window)
        self.go.set()
        if options.late_players:
            # Locust's own ramp-up, mid-run: more users at the spawn rate.
            runner.start(players + options.late_players, options.spawn_rate)
        gevent.sleep(max(0.0, self.until - time.time()))
        runner.stop()  # each user finishes its round (--stop-timeout)
        stopped = time.time()
        self.emit("stopped", {"at": stopped})
        started = self.seated + self.failed
        wait = time.time() + 30
        while len(self.reports) < started and time.time() < wait:
            gevent.sleep(0.2)
        if isinstance(runner, MasterRunner):
            gevent.sleep(4)  # the workers' last statistics (sent every 3 s)
        self.emit("result", self.result(stopped))
        runner.quit()

    def emit(self, kind: str, data: dict) -> None:
        print(f"{EVENT} {kind} {json.dumps(data)}", flush=True)

    def result(self, stopped: float) -> dict:
        """Locust's statistics of the run, and what only the players know."""
        stats = self.environment.stats
        rounds = StatsEntry(stats, "rounds", "ROUND")
        games = {}
        for game in ("baccarat", "war"):
            entry = stats.entries.get((game, "ROUND")) or StatsEntry(stats, game, "ROUND")
            rounds.extend(entry)
            games[game] = summary(entry)
        errors: dict[str, int] = {}
        samples = []
        for error in stats.errors.values():
            if error.method != "ERROR":
                continue
            errors[error.name] = errors.get(error.name, 0) + error.occurrences
            if len(samples) < 40:
                samples.append(f"{error.name} x{error.occurrences}: {error.error}"[:300])
        counts: dict[str, int] = {}
        for report in self.reports:
            for what, n in report.pop("counts").items():
                counts[what] = counts.get(what, 0) + n
        return {
            "play_at": self.play_at,
            "until": self.until,
            "stopped": stopped,
            "seated": self.seated,
            "failed": self.failed,
            "rounds": summary(rounds),
            "games": games,
            "requests": {
                name: summary(entry)
                for (name, kind), entry in sorted(stats.entries.items())
                if kind in ("HTTP", "WS")
            },
            "signups": {
                name: summary(entry)
                for (name, kind), entry in stats.entries.items()
                if kind == "SIGNUP"
            },
            "errors": errors,
            "error_samples": samples,
            "counts": counts,
            "players": self.reports,
        }


def summary(entry: StatsEntry) -> dict:
    """Count and Locust's percentiles (ms) of one statistics entry."""
    n = entry.num_requests
    out: dict = {"n": n}
    for name, share in (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99)):
        out[name] = entry.get_response_time_percentile(share) if n else None
    out["max_ms"] = round(entry.max_response_time, 1) if n else None
    return out


_process: Process | None = None


def process(environment) -> Process:
    global _process
    if _process is None:
        _process = Process(environment)
    return _process


@events.init.add_listener
def _init(environment, **_) -> None:
    if environment.parsed_options is not None:
        process(environment)


@events.test_start.add_listener
def _start(environment, **_) -> None:
    proc = process(environment)
    if proc.seconds and not proc.worker and not getattr(proc, "conducting", False):
        proc.conducting = True
        gevent.spawn(proc.conduct)


class LocustPlayerBase(User):
    """One player (see the module docstring); subclasses set the pacing."""

    abstract = True
    pace = 0.6
    think = 6.0

    def on_start(self) -> None:
        options = self.environment.parsed_options
        self.proc = process(self.environment)
        self.left = False
        self.seated = False
        self.player: Player | None = None
        self.report = LocustReport(self.environment, self.proc)
        n = self.proc.next_number()
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
            transport=options.transport,
        )
        try:
            self.player.sign_up()
            self.player.sit_down()
        except PlayerError as exc:
            self.report.error(f"setup {exc.kind}", exc.detail)
            self.proc.tell("seated", {"ok": False})
            raise StopUser from None
        self.seated = True
        self.proc.tell("seated", {"ok": True})
        self.proc.go.wait()
        self.turn = n % len(self.games)  # half the players start at each table
        # People do not all press BET at once: each starts within one think time.
        gevent.sleep(self.rng.uniform(0, self.think))

    def wait_time(self) -> float:
        assert self.player is not None
        pause = self.player.paced + self.think * self.rng.uniform(0.5, 1.5)
        self.player.paced = 0.0
        return pause

    @task
    def play(self) -> None:
        assert self.player is not None
        self.player.play(self.games[self.turn])
        self.turn = (self.turn + 1) % len(self.games)

    def on_stop(self) -> None:
        if self.left:
            return
        self.left = True
        player = self.player
        if player is not None:
            player.close()  # waits for reveals still on their way
        report = self.report
        self.proc.tell(
            "player",
            {
                "username": player.username if player else "",
                "seated": self.seated,
                "seen_rounds": sorted(player.seen_rounds) if player else [],
                "last_round_at": max((r[0] for r in report.rounds), default=0.0),
                "error_times": [e[0] for e in report.errors],
                "counts": dict(report.counts),
            },
        )


class PacedPlayer(LocustPlayerBase):
    """Watches each reveal at the default speed, then thinks about 6 s."""

    pace = 0.6
    think = 6.0


class FastPlayer(LocustPlayerBase):
    """Fast play and REBET: no pacing to wait out, about 3 s between rounds."""

    pace = 0.0
    think = 3.0
