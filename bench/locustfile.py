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
then they play S seconds, or with ``--play-rounds N`` until every game has
N rounds (S seconds at most); Locust's own stop (``--stop-timeout``) lets
each finish its round. The master (or the only process) counts the seated players
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
from typing import Any

import gevent
import gevent.event
from locust import User, events, task
from locust.runners import MasterRunner, WorkerRunner
from locust.stats import StatsEntry

# Locust puts this file's folder on the path; the client lives in the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.client import (
    TRANSPORTS,
    LivePlayer,
    Player,
    PlayerError,
    Report,
    add_live_options,
    client_address,
)

EVENT = "casino-load"


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--think", type=float, default=-1.0, help="mean seconds between rounds")
    parser.add_argument("--pace", type=float, default=-1.0, help="seconds per reveal step")
    parser.add_argument("--games", default="baccarat,war", help="games each player plays")
    parser.add_argument(
        "--transport",
        default="socket",
        help="socket, http, or phases one after the other: http,socket",
    )
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
        "--play-rounds",
        type=int,
        default=0,
        help="a window ends once each game has this many rounds (0: at its time)",
    )
    parser.add_argument(
        "--seat-seconds", type=float, default=300.0, help="at most this long to seat everyone"
    )
    parser.add_argument(
        "--late-players", type=int, default=0, help="players signing up once the play began"
    )
    add_live_options(parser)


class LocustReport(Report):
    """Fires Locust's request events (a failure for each error); keeps the
    rest of what a player saw."""

    def __init__(self, environment, process: Process) -> None:
        super().__init__()
        self.fire = environment.events.request.fire
        self.process = process
        self.transport = ""  # the phase's, once the player plays

    def _fire(self, kind: str, name: str, seconds: float, error: Exception | None) -> None:
        self.fire(
            request_type=kind,
            name=f"{name} [{self.transport}]" if self.transport else name,
            response_time=seconds * 1000,
            response_length=0,
            exception=error,
            context={},
        )

    def request(self, kind: str, seconds: float, error: Exception | None = None) -> None:
        socket = kind == "reveal_first_after_answer" or kind.startswith("live_")
        self._fire("WS" if socket else "HTTP", kind, seconds, error)

    def round(self, game: str, seconds: float) -> None:
        super().round(game, seconds)
        self._fire("ROUND", game, seconds, None)

    def error(self, kind: str, detail: str = "") -> None:
        super().error(kind, detail)
        self._fire("ERROR", kind, 0, PlayerError(kind, detail[:120]))

    def signup(self, seconds: float) -> None:
        late = self.process.phase_go[0].is_set()
        self._fire("SIGNUP", "sign-up while playing" if late else "sign-up", seconds, None)


class Process:
    """This Locust process's part of a run with a window: the phases (one a
    transport) and their ``go`` events, its players; on the master (or the
    only process) the conductor."""

    def __init__(self, environment) -> None:
        self.environment = environment
        options = environment.parsed_options
        runner = environment.runner
        self.worker = isinstance(runner, WorkerRunner)
        self.group = runner.worker_index if self.worker else 0
        self.run_id = options.run_id or f"{random.randrange(16**6):06x}"
        self.seconds = options.play_seconds
        self.transports = [t.strip() for t in options.transport.split(",") if t.strip()]
        if not self.transports or set(self.transports) - set(TRANSPORTS):
            raise SystemExit(f"--transport {options.transport!r}: {', '.join(TRANSPORTS)}")
        self.count = 0
        self.windows: list[dict] = [{} for _ in self.transports]
        self.phase_go = [gevent.event.Event() for _ in self.transports]
        self.finished = gevent.event.Event()  # never set: the last phase's idle players
        if not self.seconds:  # no window: one phase, played until Locust stops
            self.transports = self.transports[:1]
            self.windows = [{"phase": 0, "transport": self.transports[0], "until": float("inf")}]
            self.phase_go[0].set()
        # The conductor's counts (master or the only process).
        self.seated = self.failed = 0
        self.idle = [0 for _ in self.transports]
        self.reports: list[dict] = []
        if isinstance(runner, MasterRunner):
            runner.register_message("seated", lambda msg, **_: self.on_seated(msg.data))
            runner.register_message("idle", lambda msg, **_: self.on_idle(msg.data))
            runner.register_message("player", lambda msg, **_: self.reports.append(msg.data))
        elif self.worker:
            runner.register_message("go", lambda msg, **_: self.on_go(msg.data))
            runner.register_message("end", lambda msg, **_: self.on_end(msg.data))

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
        elif kind == "idle":
            self.on_idle(data)
        else:
            self.reports.append(data)

    def on_go(self, data: dict) -> None:
        self.windows[data["phase"]] = data
        self.phase_go[data["phase"]].set()

    def on_end(self, data: dict) -> None:
        """The window ends early: its rounds were played."""
        self.windows[data["phase"]]["until"] = data["until"]

    # --- the conductor ----------------------------------------------------------

    def on_seated(self, data: dict) -> None:
        if data["ok"]:
            self.seated += 1
        else:
            self.failed += 1

    def on_idle(self, data: dict) -> None:
        self.idle[data["phase"]] += 1

    def conduct(self) -> None:
        """Seat everyone, play each phase's window (the players finish their
        rounds between phases), stop Locust's users, report, quit."""
        options = self.environment.parsed_options
        runner = self.environment.runner
        players = options.num_users
        give_up = time.time() + options.seat_seconds
        while self.seated + self.failed < players and time.time() < give_up:
            gevent.sleep(0.1)
        last = len(self.transports) - 1
        for phase, transport in enumerate(self.transports):
            play_at = time.time()
            window = {
                "phase": phase,
                "transport": transport,
                "play_at": play_at,
                "until": play_at + self.seconds,
            }
            self.emit("go", {**window, "seated": self.seated, "failed": self.failed})
            if isinstance(runner, MasterRunner):
                runner.send_message("go", window)
            self.on_go(window)
            if phase == 0 and options.late_players:
                # Locust's own ramp-up, mid-run: more users at the spawn rate.
                runner.start(players + options.late_players, options.spawn_rate)
            self.play_window(phase, transport)
            if phase == last:
                runner.stop()  # each user finishes its round (--stop-timeout)
            else:
                # Every seated player finishes its round before the next phase.
                wait = time.time() + 4 * options.round_timeout + 30
                while self.idle[phase] < self.seated and time.time() < wait:
                    gevent.sleep(0.1)
            self.emit("stopped", {"phase": phase, "at": time.time()})
        started = self.seated + self.failed
        wait = time.time() + 30
        while len(self.reports) < started and time.time() < wait:
            gevent.sleep(0.2)
        if isinstance(runner, MasterRunner):
            gevent.sleep(4)  # the workers' last statistics (sent every 3 s)
        self.emit("result", self.result())
        runner.quit()

    def play_window(self, phase: int, transport: str) -> None:
        """Until the window's time is up, or (``--play-rounds``) until every
        game has its rounds: then the window ends for every player."""
        options = self.environment.parsed_options
        until = self.windows[phase]["until"]
        if not options.play_rounds:
            gevent.sleep(max(0.0, until - time.time()))
            return
        games = [g for g in options.games.split(",") if g in ("baccarat", "war")]
        entries = self.environment.stats.entries

        def played() -> bool:
            return all(
                (entry := entries.get((f"{game} [{transport}]", "ROUND"))) is not None
                and entry.num_requests >= options.play_rounds
                for game in games
            )

        while time.time() < until and not played():
            gevent.sleep(0.1)
        end = {"phase": phase, "until": min(until, time.time())}
        if isinstance(self.environment.runner, MasterRunner):
            self.environment.runner.send_message("end", end)
        self.on_end(end)

    def emit(self, kind: str, data: dict) -> None:
        print(f"{EVENT} {kind} {json.dumps(data)}", flush=True)

    def result(self) -> dict:
        """Locust's statistics of the run, per transport, and what only the
        players know."""
        stats = self.environment.stats

        def owner(full: str) -> tuple[str, str]:
            """(transport, name) of a statistics name; what came before the
            play (sign-up, the pages, their errors) goes with the first."""
            for transport in self.transports:
                if full.endswith(f" [{transport}]"):
                    return transport, full[: -len(transport) - 3]
            return self.transports[0], full

        phases = {}
        for phase, transport in enumerate(self.transports):
            rounds = StatsEntry(stats, "rounds", "ROUND")
            games = {}
            for game in ("baccarat", "war"):
                entry = stats.entries.get((f"{game} [{transport}]", "ROUND"))
                entry = entry or StatsEntry(stats, game, "ROUND")
                rounds.extend(entry)
                games[game] = summary(entry)
            errors: dict[str, int] = {}
            samples = []
            for error in stats.errors.values():
                whose, name = owner(error.name)
                if error.method != "ERROR" or whose != transport:
                    continue
                errors[name] = errors.get(name, 0) + error.occurrences
                if len(samples) < 40:
                    samples.append(f"{name} x{error.occurrences}: {error.error}"[:300])
            requests = {}
            for (full, kind), entry in sorted(stats.entries.items()):
                whose, name = owner(full)
                if kind in ("HTTP", "WS") and whose == transport:
                    requests[name] = summary(entry)
            phases[transport] = {
                "window": self.windows[phase],
                "rounds": summary(rounds),
                "games": games,
                "requests": requests,
                "errors": errors,
                "error_samples": samples,
            }
        counts: dict[str, int] = {}
        for report in self.reports:
            for what, n in report.pop("counts").items():
                counts[what] = counts.get(what, 0) + n
        return {
            "seated": self.seated,
            "failed": self.failed,
            "phases": phases,
            "signups": {
                name: summary(entry)
                for (name, kind), entry in stats.entries.items()
                if kind == "SIGNUP"
            },
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
        self.phase = 0
        self.player: Player | None = None
        self.report = LocustReport(self.environment, self.proc)
        n = self.proc.next_number()
        if options.think >= 0:
            self.think = options.think
        if options.pace >= 0:
            self.pace = options.pace
        self.games = [g for g in options.games.split(",") if g in ("baccarat", "war")]
        self.rng = random.Random(f"{self.proc.run_id}-{self.proc.group}-{n}")
        self.player = self.make_player(n, options)
        try:
            self.player.sign_up()
            self.player.sit_down()
        except PlayerError as exc:
            self.report.error(f"setup {exc.kind}", exc.detail)
            self.proc.tell("seated", {"ok": False})
            # Stays, idle (wait_time), until Locust stops it: a user that
            # stopped itself would be started again to keep the count.
            return
        self.seated = True
        self.proc.tell("seated", {"ok": True})
        self.proc.phase_go[0].wait()
        self.join_phase()
        self.turn = n % len(self.games)  # half the players start at each table
        # People do not all press BET at once: each starts within one think time.
        gevent.sleep(self.rng.uniform(0, self.think))

    def seat_args(self, n: int, options) -> dict[str, Any]:
        """What every kind of player is made with: who, from where, its report."""
        return {
            "base": self.host,
            "username": f"load-{self.proc.run_id}-{self.proc.group}-{n}",
            "address": client_address(n, self.proc.group),
            "report": self.report,
            "rng": self.rng,
            "timeout": options.round_timeout,
            "baccarat_table": options.baccarat_table,
        }

    def make_player(self, n: int, options) -> Player:
        return Player(
            **self.seat_args(n, options),
            pace=self.pace,
            war_table=options.war_table,
            transport=self.proc.transports[0],
        )

    def join_phase(self) -> None:
        """Play the latest phase that began, over its transport."""
        while (
            self.phase + 1 < len(self.proc.windows) and self.proc.phase_go[self.phase + 1].is_set()
        ):
            self.phase += 1
        assert self.player is not None
        self.player.transport = self.report.transport = self.proc.windows[self.phase]["transport"]

    def wait_time(self) -> float:
        # Locust calls this while the user waits (a stop ends the wait at
        # once): between two phases the player waits here for the next.
        assert self.player is not None
        if not self.seated:
            self.proc.finished.wait()
        if time.time() >= self.proc.windows[self.phase]["until"]:
            self.proc.tell("idle", {"phase": self.phase})
            if self.phase + 1 == len(self.proc.windows):
                self.proc.finished.wait()  # the run is over: until Locust stops it
            self.proc.phase_go[self.phase + 1].wait()
            self.join_phase()
            self.player.paced = 0.0
            return self.rng.uniform(0, self.think)
        pause = self.player.paced + self.think * self.rng.uniform(0.5, 1.5)
        self.player.paced = 0.0
        return pause

    @task
    def play(self) -> None:
        assert self.player is not None
        if not self.seated or time.time() >= self.proc.windows[self.phase]["until"]:
            return  # the phase is over: wait_time waits for the next
        self.play_turn()

    def play_turn(self) -> None:
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


class LiveTablePlayer(LocustPlayerBase):
    """A player at one live table (bench/live.py): most bet on every coup
    over the socket, ``--watchers`` of them only watch (bench/client.py,
    ``LivePlayer``); each play is one coup, the table's clock the pace."""

    pace = 0.0
    think = 0.0

    def make_player(self, n: int, options) -> Player:
        # Spread exactly: player n watches when the watchers' share passes a
        # whole number between n and n + 1.
        share = options.watchers
        watcher = int((n + 1) * share) > int(n * share)
        return LivePlayer(
            **self.seat_args(n, options),
            pace=0.0,
            watcher=watcher,
            bet_spread=options.bet_spread,
        )

    def play_turn(self) -> None:
        assert isinstance(self.player, LivePlayer)
        self.player.play_coup(self.proc.windows[self.phase]["until"])
