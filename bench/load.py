"""Load test: P players sign up and play Baccarat and Casino War for T seconds
over HTTP and websockets. The last line printed is one JSON object.

Run from the repository root, for example::

    .venv/bin/python bench/load.py --serve single --players 200 --seconds 30
    .venv/bin/python bench/load.py --serve cluster --players 200 --seconds 30
    .venv/bin/python bench/load.py --serve none --url http://127.0.0.1:8000 \\
        --sqlite-path db/casino.sqlite3

``--serve single`` starts one daphne on a fresh SQLite file (``make run``),
``--serve cluster`` runs ``make cluster`` (``--workers`` gunicorn HTTP
workers and ``--ws-workers`` daphne websocket workers on PostgreSQL and
Redis behind nginx) and ``make cluster-stop`` afterwards, ``--serve none``
uses a server that is already running. The servers it starts run with
CASINO_REVEAL_DELAY=0 and CASINO_REVEAL_FAST_DELAY=0, so the latency measures
the server and not the deliberate card-by-card pacing of the reveal.

What one player does (threads, ``requests`` and ``websocket-client``, the
way a browser would, each from a loopback address of its own, 127.0.0.2
onwards, as the site throttles credential posts per address): sign up
through the real form (GET for the CSRF cookie, POST), open the Baccarat
and the War table pages and their websockets (session cookie, Origin of
the site), then until the time is up, alternately:

* Baccarat: POST BET with the slip whole (as the page's script keeps it in
  the browser: chips per area and a fresh slip key) and wait for the
  reveal's last fragment (the
  ``#bac-result`` element with a ``data-round``) on the websocket. Latency:
  sending BET to receiving that fragment.
* War: POST DEAL with the war slip key; on a tie POST the decision (WAR or
  SURRENDER) at once. The result comes back in the HTTP response. Latency:
  sending DEAL to the response carrying the settled round (both requests for
  a tie).

After each round a player first waits out the pacing the site shows at its
default speed (``--pace``, default 0.6 s per reveal step: every Baccarat
frame but the result, and 0.35 s per War card after the first), as the
table does not take a BET while a reveal is running; then thinks for
``--think`` seconds (default 6, uniformly 0.5x-1.5x of it) while placing the
next chips. That is one round every 3-13 s per player, about 450 an hour.
``--pace 0 --think 3`` is a player on fast play who keeps pressing REBET,
one round every 3-4 s (the fast reveal is hidden in the think time). Each
player starts at a random moment within one think time, so the traffic is
steady from the first second. With ``--pace 0 --think 0`` the players form a
closed loop that saturates the server and the latency is mostly queueing.

JSON fields: ``players``, ``rounds`` (completed in the window, both games),
``rounds_per_s``, ``p50_ms`` / ``p99_ms`` (every round, bet to result),
``errors`` (HTTP statuses other than 2xx/3xx, "something went wrong"
answers, unexpected refusals, dropped sockets, timeouts, missing fragments)
and ``ledger_ok``: ``manage.py audit_ledger`` exits 0 against the server's
database, and sum(wallet balances) + sum(total_bet - total_return over the
rounds that are not void) == sum(grant + topup + adjustment ledger rows),
and every round's own ledger rows move exactly its total_return - total_bet
(0 for a void round). An open War round (a tie waiting for a decision) is
booked with its stakes in total_bet and the tie bet it already paid in
total_return, so the identity holds for it too. ``reveals_lost`` counts the
Baccarat rounds the database holds for this run's players that never reached
the player's socket (a late reveal counts as arrived; players wait for late
ones before they leave). Details per game, per request, the load average and
CPU use come along in the same object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import random
import re
import resource
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import requests
import websocket
from requests.adapters import HTTPAdapter

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / ".venv" / "bin" / "python"
if not PY.exists():
    PY = Path(sys.executable)

BAC_SLIP_FORM = re.compile(r'name="slip_key"[^>]*data-slip-key')
BAC_RESULT = re.compile(r'id="bac-result"[^>]*data-round="(\d+)"')
BAC_SLIP_ERROR = re.compile(r'data-testid="slip-error">([^<]*)<')
WAR_SLIP_KEY = re.compile(r'name="slip_key" id="war-slip" value="([0-9a-f]+)"')
WAR_ROUND = re.compile(r'id="war-round"[^>]*data-status="(\w+)"[^>]*data-round-id="(\d+)"')
WAR_MESSAGE = re.compile(r'id="war-message"[^>]*>([^<]*)<')
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
WENT_WRONG = "Something went wrong"
WAR_CARD_STEP = 0.35  # games.views.war.CARD_STEP: seconds between two dealt cards


# ------------------------------------------------------------------ results


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


@dataclass
class Stats:
    """What every player thread records (one lock; appends are cheap)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"baccarat": [], "war": []})
    requests: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)  # facts that are not errors
    ties: int = 0
    signup_s: list[float] = field(default_factory=list)
    last_round_at: float = 0.0

    def request(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.requests.setdefault(kind, []).append(seconds)

    def round(self, game: str, seconds: float) -> None:
        with self.lock:
            self.latencies[game].append(seconds)
            self.last_round_at = time.perf_counter()

    def error(self, kind: str, detail: str = "") -> None:
        with self.lock:
            self.errors[kind] += 1
            # A few of each kind, so that a rare kind is not drowned out.
            if detail and self.errors[kind] <= 3 and len(self.error_samples) < 40:
                self.error_samples.append(f"{kind}: {detail}"[:300])

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] += n

    def refusal(self, message: str) -> None:
        with self.lock:
            self.refusals[message.strip()[:120]] += 1


class PlayerError(Exception):
    """One step of a player failed; the kind goes into the error counts."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


# ------------------------------------------------------------------ one socket


class Socket:
    """A websocket with a reader thread that stamps every frame on arrival,
    so a frame's time does not depend on when the player thread reads it."""

    def __init__(self, url: str, *, origin: str, cookie: str, timeout: float) -> None:
        self.frames: queue.Queue[tuple[float, str]] = queue.Queue()
        self.closing = False
        self.dropped = ""
        self.ws = websocket.create_connection(
            url,
            origin=origin,
            cookie=cookie,
            header=["Accept-Language: en"],
            timeout=timeout,
            enable_multithread=True,
        )
        self.ws.settimeout(None)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                opcode, data = self.ws.recv_data()
            except Exception as exc:  # closed by us, by the server or by the network
                if not self.closing:
                    self.dropped = f"{type(exc).__name__}: {exc}"
                return
            now = time.perf_counter()
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                if not self.closing:
                    code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
                    self.dropped = f"closed by the server (code {code})"
                return
            if opcode == websocket.ABNF.OPCODE_TEXT:
                self.frames.put((now, data.decode("utf-8", "replace")))

    def drain(self) -> list[str]:
        """The frames that arrived and were not read yet."""
        out = []
        while True:
            try:
                out.append(self.frames.get_nowait()[1])
            except queue.Empty:
                return out

    def close(self) -> None:
        self.closing = True
        try:
            self.ws.send_close()
        except Exception:
            pass
        self.thread.join(timeout=3)
        try:
            self.ws.shutdown()
        except Exception:
            pass


# ------------------------------------------------------------------ one player


class SourceAddressAdapter(HTTPAdapter):
    """Connections from one loopback address (anything in 127.0.0.0/8 is
    this machine), so each player is a client address of its own, as real
    players are: the site throttles credential posts per address."""

    def __init__(self, address: str, **kwargs) -> None:
        self.address = address
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs) -> None:
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def client_address(n: int) -> str:
    """The loopback address of client number n (127.0.0.2 onwards)."""
    return f"127.0.{n // 250}.{2 + n % 250}"


def http_session(address: str | None) -> requests.Session:
    session = requests.Session()
    if address:
        adapter = SourceAddressAdapter(address)
        session.mount("http://", adapter)
    return session


class Player:
    def __init__(self, n: int, args: argparse.Namespace, stats: Stats, run_id: str) -> None:
        self.n = n
        self.args = args
        self.stats = stats
        self.base = args.url.rstrip("/")
        self.username = f"load-{run_id}-{n}"
        self.rng = random.Random(f"{run_id}-{n}")
        # Every player its own client address, as a player's own connection
        # would be (--addresses N: players share N addresses).
        self.address = client_address(n % args.addresses if args.addresses else n)
        self.http = http_session(self.address)
        self.http.headers.update({"Accept-Language": "en", "User-Agent": "casino-bench-load"})
        self.bac_key = ""
        self.war_key = ""
        self.bac_ws: Socket | None = None
        self.war_ws: Socket | None = None
        self.rounds = 0
        self.paced = 0.0  # seconds of the last round's pacing still to watch (--pace)
        # A failed step leaves the session's slip or a War tie behind: the
        # next round of that game starts by putting things straight.
        self.bac_dirty = False
        self.war_dirty = False
        # BETs whose reveal was given up on (a timeout) and not seen since; the
        # round ids every reveal on this player's socket showed.
        self.pending_reveals = 0
        self.seen_rounds: set[int] = set()

    # --- HTTP ---------------------------------------------------------------

    def _csrf(self) -> str:
        return self.http.cookies.get("csrftoken", "")

    def get(self, path: str, kind: str) -> requests.Response:
        return self._send("GET", path, kind)

    def post(self, path: str, kind: str, data: dict[str, str], *, htmx: bool = True):
        headers = {"X-CSRFToken": self._csrf(), "Origin": self.base, "Referer": self.base + path}
        if htmx:
            headers["HX-Request"] = "true"
        return self._send("POST", path, kind, data=data, headers=headers)

    def _send(self, method: str, path: str, kind: str, **kw) -> requests.Response:
        t0 = time.perf_counter()
        try:
            response = self.http.request(method, self.base + path, timeout=self.args.timeout, **kw)
        except requests.Timeout as exc:
            raise PlayerError(f"timeout {kind}", str(exc)) from None
        except requests.RequestException as exc:
            raise PlayerError(f"connection {kind}", str(exc)) from None
        self.stats.request(kind, time.perf_counter() - t0)
        if response.status_code >= 400:
            raise PlayerError(
                f"http {response.status_code} {kind}", response.text[:200].replace("\n", " ")
            )
        return response

    # --- setup --------------------------------------------------------------

    def sign_up(self) -> None:
        t0 = time.perf_counter()
        page = self.get("/accounts/signup/", "signup_page")
        token = CSRF_INPUT.search(page.text)
        if token is None:
            raise PlayerError("signup", "no CSRF token in the sign-up form")
        password = "Lp-" + secrets.token_urlsafe(12)
        response = self.post(
            "/accounts/signup/",
            "signup",
            {
                "csrfmiddlewaretoken": token.group(1),
                "username": self.username,
                "password1": password,
                "password2": password,
            },
            htmx=False,
        )
        if "sessionid" not in self.http.cookies:
            raise PlayerError("signup", f"not logged in after sign-up ({response.url})")
        self.stats.signup_s.append(time.perf_counter() - t0)

    def sit_down(self) -> None:
        """Open both table pages (slip keys) and both websockets."""
        bac = self.get(f"/baccarat/{self.args.baccarat_table}/", "baccarat_page")
        if BAC_SLIP_FORM.search(bac.text) is None:
            raise PlayerError("baccarat page", "no bet slip on the page")
        # The slip lives in the browser, which names it with a fresh key.
        self.bac_key = secrets.token_hex(16)
        war = self.get(f"/war/{self.args.war_table}/", "war_page")
        found = WAR_SLIP_KEY.search(war.text)
        if found is None:
            raise PlayerError("war page", "no slip key on the page")
        self.war_key = found.group(1)
        try:
            self.bac_ws = self._socket(f"/ws/baccarat/{self.args.baccarat_table}/")
            self.war_ws = self._socket(f"/ws/war/{self.args.war_table}/")
        except Exception as exc:
            raise PlayerError("websocket connect", f"{type(exc).__name__}: {exc}") from None

    def _socket(self, path: str) -> Socket:
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        return Socket(
            "ws" + self.base[len("http") :] + path,
            origin=self.base,
            cookie=cookie,
            timeout=self.args.timeout,
        )

    # --- rounds -------------------------------------------------------------

    def baccarat_round(self) -> None:
        slug = self.args.baccarat_table
        assert self.bac_ws is not None
        if self.bac_dirty:
            self.bac_key = secrets.token_hex(16)
            # Like the page, show the reveal still on its way before the next
            # BET (and do not take it for the next round's).
            self._wait_for_reveals(self.args.timeout)
            self.bac_dirty = False
        # Build the slip: 10 chips on PLAYER or BANKER, sometimes 1 on TIE.
        wanted = [(self.rng.choice(["player", "banker"]), "10")]
        if self.rng.random() < 0.2:
            wanted.append(("tie", "1"))
        stale = self.bac_ws.drain()
        if stale:
            self._late_reveals(stale)
            self.stats.error("stray frames", f"{len(stale)} frame(s) before BET: {stale[0][:80]}")
        t0 = time.perf_counter()
        try:
            response = self.post(
                f"/baccarat/{slug}/bet/",
                "baccarat_bet",
                {"slip_key": self.bac_key, **dict(wanted)},
            )
        except PlayerError:
            self.pending_reveals += 1  # the server may still deal this round
            raise
        error = BAC_SLIP_ERROR.search(response.text)
        if error:
            kind = "went wrong" if WENT_WRONG in error.group(1) else "refused bet"
            self.stats.refusal(error.group(1))
            raise PlayerError(kind, error.group(1))
        self.bac_key = secrets.token_hex(16)  # the slip is spent; the next gets a new key
        answered = time.perf_counter()
        deadline = t0 + self.args.timeout
        frames = 0
        first = 0.0
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                if self.bac_ws.dropped:
                    raise PlayerError("socket dropped", self.bac_ws.dropped)
                self.pending_reveals += 1
                raise PlayerError("timeout reveal", f"no result after {frames} frame(s)")
            try:
                arrived, text = self.bac_ws.frames.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.bac_ws.dropped:
                    raise PlayerError("socket dropped", self.bac_ws.dropped) from None
                continue
            frames += 1
            first = first or arrived
            shown = BAC_RESULT.search(text)
            if shown:
                self.seen_rounds.add(int(shown.group(1)))
                break
        if frames < 3:  # deal, at least the four cards (or a skip), result
            self.stats.error("short reveal", f"{frames} frame(s)")
        # The site paces every step but the result by one card's delay.
        self.paced = (frames - 1) * self.args.pace
        self.stats.round("baccarat", arrived - t0)
        # Where the time went: the BET answer, then the wait for the reveal's
        # first frame (event through the channel layer, the round read and
        # every step rendered), then the frames themselves.
        self.stats.request("reveal_first_after_answer", max(0.0, first - answered))
        self.stats.request("reveal_first_to_result", arrived - first)

    def war_round(self) -> None:
        slug = self.args.war_table
        assert self.war_ws is not None
        if self.war_ws.dropped:
            # The table's socket closes when a tie's decision time runs out
            # (code 4000; the page then goes to the lobby). A player comes
            # back to the table: a new socket and a reload.
            dropped = self.war_ws.dropped
            self.war_ws.close()
            self.war_ws = None
            try:
                self.war_ws = self._socket(f"/ws/war/{slug}/")
            except Exception as exc:
                raise PlayerError("websocket connect", f"{type(exc).__name__}: {exc}") from None
            self.war_dirty = True
            kind = "war decision timed out" if "code 4000" in dropped else "socket dropped"
            self.stats.error(kind, f"war socket: {dropped}")
        if self.war_dirty:
            # Reload the table: a fresh slip key, and a tie left waiting comes back.
            page = self.get(f"/war/{slug}/", "war_page")
            found = WAR_SLIP_KEY.search(page.text)
            if found is None:
                raise PlayerError("war page", "no slip key on the page")
            self.war_key = found.group(1)
            waiting = WAR_ROUND.search(page.text)
            if waiting and waiting.group(1) == "open":
                self.post(
                    f"/war/{slug}/decide/",
                    "war_decide",
                    {"round_id": waiting.group(2), "decision": "surrender"},
                )
            self.war_dirty = False
        tie_bet = "1" if self.rng.random() < 0.3 else "0"
        t0 = time.perf_counter()
        response = self.post(
            f"/war/{slug}/deal/",
            "war_deal",
            {"slip_key": self.war_key, "ante": "10", "tie_bet": tie_bet},
        )
        status, round_id = self._war_state(response)
        found = WAR_SLIP_KEY.search(response.text)
        if found is None:
            raise PlayerError("war deal", "no fresh slip key in the DEAL answer")
        self.war_key = found.group(1)
        cards = 2
        if status == "open":
            with self.stats.lock:
                self.stats.ties += 1
            decision = self.rng.choice(["war", "surrender"])
            if decision == "war":
                cards = 7  # three burnt and one more card each
            response = self.post(
                f"/war/{slug}/decide/", "war_decide", {"round_id": round_id, "decision": decision}
            )
            status, _ = self._war_state(response)
        if status != "settled":
            raise PlayerError("war state", f"round {round_id} is {status!r} after the decision")
        self.stats.round("war", time.perf_counter() - t0)
        # The table deals its cards one after another (CSS, WAR_CARD_STEP apart).
        self.paced = (cards - 1) * WAR_CARD_STEP if self.args.pace else 0.0

    def _war_state(self, response: requests.Response) -> tuple[str, str]:
        found = WAR_ROUND.search(response.text)
        if found is None:
            message = WAR_MESSAGE.search(response.text)
            text = message.group(1).strip() if message else response.text[:200]
            self.stats.refusal(text)
            raise PlayerError("went wrong" if WENT_WRONG in text else "refused war", text)
        return found.group(1), found.group(2)

    # --- the thread ---------------------------------------------------------

    def run(
        self,
        signup_gate: threading.Semaphore,
        ready: Callable[[bool], None],
        start: threading.Event,
    ) -> None:
        """Sign up and sit down (``ready`` says how it went), wait for
        ``start``, then play until the time is up."""
        ok = False
        try:
            with signup_gate:
                self.sign_up()
            self.sit_down()
            ok = True
        except PlayerError as exc:
            self.stats.error(f"setup {exc.kind}", exc.detail)
        except Exception as exc:
            self.stats.error("setup crash", f"{type(exc).__name__}: {exc}")
        finally:
            ready(ok)
        if not ok:
            self.close()
            return
        start.wait()
        deadline = self.args.start_at + self.args.seconds
        game = self.n % 2  # half the players start at each table
        # People do not all press BET in the same instant: each player starts
        # somewhere in one think time, so the window sees steady traffic and
        # not a burst of every player's first round at once.
        time.sleep(self.rng.uniform(0, self.args.think))
        try:
            while time.perf_counter() < deadline:
                try:
                    if game == 0:
                        self.baccarat_round()
                    else:
                        self.war_round()
                    self.rounds += 1
                except PlayerError as exc:
                    self.stats.error(exc.kind, exc.detail)
                    if game == 0:
                        self.bac_dirty = True
                    else:
                        self.war_dirty = True
                    if exc.kind == "socket dropped":
                        break
                game = 1 - game
                # With --pace: watch the reveal the zero delay skipped, then
                # place the next chips.
                pause = self.paced + self.args.think * self.rng.uniform(0.5, 1.5)
                self.paced = 0.0
                time.sleep(max(0.0, min(pause, deadline - time.perf_counter())))
        except Exception as exc:
            self.stats.error("player crash", f"{type(exc).__name__}: {exc}")
        finally:
            self.close()

    def _late_reveals(self, frames: list[str]) -> None:
        """A reveal that came after its timeout is late, not lost: count it."""
        late = 0
        for text in frames:
            shown = BAC_RESULT.search(text)
            if shown:
                self.seen_rounds.add(int(shown.group(1)))
                late += 1
        if late:
            self.stats.count("late reveals", late)
            self.pending_reveals = max(0, self.pending_reveals - late)

    def _wait_for_reveals(self, seconds: float) -> None:
        """Read frames until every pending reveal came, for at most ``seconds``."""
        sock = self.bac_ws
        assert sock is not None
        self._late_reveals(sock.drain())
        end = time.perf_counter() + seconds
        while self.pending_reveals and time.perf_counter() < end and not sock.dropped:
            try:
                self._late_reveals([sock.frames.get(timeout=0.5)[1]])
            except queue.Empty:
                pass

    def close(self) -> None:
        if self.bac_ws is not None and self.pending_reveals:
            # Wait a while for reveals still on their way; the run compares
            # the rounds dealt with the ones shown, so what never came is lost.
            self._wait_for_reveals(2 * self.args.timeout)
        if self.bac_ws is not None:
            self._late_reveals(self.bac_ws.drain())
        for sock in (self.bac_ws, self.war_ws):
            if sock is not None:
                sock.close()
        self.http.close()


# ------------------------------------------------------------------ servers


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def wait_http(url: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if requests.get(url + "/accounts/login/", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server at {url} did not answer within {seconds:.0f} s")


def server_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "CASINO_REVEAL_DELAY": "0",
            "CASINO_REVEAL_FAST_DELAY": "0",
            "DJANGO_LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    env.update(extra)
    return env


class SingleServer:
    """One daphne on a fresh SQLite file, production settings (DEBUG off)."""

    def __init__(self, host: str, port: int) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="casino-load-"))
        self.db = self.dir / "load.sqlite3"
        self.env = server_env(
            {
                "CASINO_SQLITE_PATH": str(self.db),
                "DJANGO_DEBUG": "0",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
                "DJANGO_SECURE_SSL_REDIRECT": "0",
                "DJANGO_SECURE_COOKIES": "0",
                "DJANGO_HSTS_SECONDS": "0",
            }
        )
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        if port_open(host, port):
            raise SystemExit(f"something already listens on {host}:{port}; pick another --url")
        for command in (
            ["migrate", "--no-input", "-v", "0"],
            ["setup_casino"],
            ["collectstatic", "--no-input", "-v", "0"],
        ):
            subprocess.run([str(PY), "manage.py", *command], cwd=ROOT, env=self.env, check=True)
        self.log = open(self.dir / "daphne.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [str(PY), "-m", "daphne", "-b", host, "-p", str(port), "casino.asgi:application"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.pids = [self.proc.pid]
        self.stack_pids = self.pids

    def ledger_env(self) -> dict[str, str]:
        return self.env

    def log_tail(self) -> str:
        self.log.flush()
        return (self.dir / "daphne.log").read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class ClusterServer:
    """``make cluster`` with the reveal pacing off, ``make cluster-stop`` after."""

    PIDFILES = ("gunicorn.pid", "login.pid", "ws*.pid")

    def __init__(self, port: int, workers: int, ws_workers: int = 1) -> None:
        cluster = ROOT / ".cluster"
        for pidfile in self.pidfiles(cluster):
            try:
                os.kill(int(pidfile.read_text().strip()), 0)
            except (OSError, ValueError):
                continue
            raise SystemExit(
                f"a cluster is already running ({pidfile}): run `make cluster-stop` "
                "first, or use --serve none against it"
            )
        self.env = server_env(
            {"PORT": str(port), "HTTP_WORKERS": str(workers), "WS_WORKERS": str(ws_workers)}
        )
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        if port_open("127.0.0.1", port):
            raise SystemExit(f"something already listens on 127.0.0.1:{port}; pick another --url")
        self.started = True
        subprocess.run(
            [
                "make",
                "--no-print-directory",
                "cluster",
                f"PORT={port}",
                f"HTTP_WORKERS={workers}",
                f"WS_WORKERS={ws_workers}",
            ],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        # gunicorn's master (its workers are its children) and the daphne workers.
        self.pids = [int(p.read_text().strip()) for p in self.pidfiles(cluster) if p.exists()]
        # The rest of the stack: PostgreSQL's postmaster (its backends are its
        # children), Redis and nginx's master (its workers are children).
        data = Path(f"/tmp/casino-cluster-{os.environ.get('CLUSTER_PG_PORT', '55433')}")
        self.stack_pids = list(self.pids)
        for pidfile in (data / "pg" / "postmaster.pid", data / "redis.pid", cluster / "nginx.pid"):
            try:
                self.stack_pids.append(int(pidfile.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
        self.db_env: dict[str, str] = {}
        for line in (cluster / "env").read_text().splitlines():
            line = line.removeprefix("export ").strip()
            if "=" in line:
                key, value = line.split("=", 1)
                self.db_env[key] = value

    @classmethod
    def pidfiles(cls, cluster: Path) -> list[Path]:
        return [p for pattern in cls.PIDFILES for p in sorted(cluster.glob(pattern))]

    def ledger_env(self) -> dict[str, str]:
        return {**os.environ, **self.db_env}

    def log_tail(self) -> str:
        out = []
        logs = ["gunicorn.log", *(p.name for p in sorted((ROOT / ".cluster").glob("ws*.log")))]
        for log in (ROOT / ".cluster" / name for name in logs):
            if not log.exists():
                continue
            out.append(f"--- {log.name}\n" + log.read_text(errors="replace")[-1500:])
        return "\n".join(out)

    def stop(self) -> None:
        subprocess.run(["make", "--no-print-directory", "cluster-stop"], cwd=ROOT, check=False)


# ------------------------------------------------------------------ the ledger

LEDGER_CHECK = """
import json
from django.db.models import Q, Sum, Value
from django.db.models.functions import Coalesce
from games.models import LedgerEntry, Round, Wallet
balances = Wallet.objects.aggregate(s=Sum("balance"))["s"] or 0
live = Round.objects.exclude(status=Round.Status.VOID).aggregate(
    b=Sum("total_bet"), r=Sum("total_return"))
house_net = (live["b"] or 0) - (live["r"] or 0)
grants = LedgerEntry.objects.filter(kind__in=["grant", "topup", "adjustment"]).aggregate(
    s=Sum("amount"))["s"] or 0
moved = Round.objects.annotate(m=Coalesce(Sum("ledger_entries__amount"), Value(0)))
bad_live = sum(1 for r in moved.exclude(status=Round.Status.VOID).values("m", "total_bet",
    "total_return").iterator() if r["m"] != r["total_return"] - r["total_bet"])
bad_void = moved.filter(status=Round.Status.VOID).exclude(m=0).count()
import os
prefix = os.environ.get("LOAD_USER_PREFIX")
dealt = {}
if prefix:
    for name, pk in Round.objects.filter(game="baccarat", player__username__startswith=prefix
            ).values_list("player__username", "pk").iterator():
        dealt.setdefault(name, []).append(pk)
print(json.dumps({"dealt": dealt, "balances": balances, "house_net": house_net, "grants": grants,
    "rounds": Round.objects.count(), "open_rounds": Round.objects.filter(status="open").count(),
    "void_rounds": Round.objects.filter(status="void").count(),
    "round_mismatches": bad_live + bad_void, "wallets": Wallet.objects.count()}))
"""


def check_ledger(env: dict[str, str], user_prefix: str = "") -> dict:
    audit = subprocess.run(
        [str(PY), "manage.py", "audit_ledger"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    sums = subprocess.run(
        [str(PY), "manage.py", "shell", "-c", LEDGER_CHECK],
        cwd=ROOT,
        env={**env, "LOAD_USER_PREFIX": user_prefix},
        capture_output=True,
        text=True,
    )
    result: dict = {
        "audit_rc": audit.returncode,
        "audit": (audit.stdout.strip() or audit.stderr.strip())[-300:],
    }
    try:
        result.update(json.loads(sums.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        result["error"] = sums.stderr[-500:]
        result["ok"] = False
        return result
    result["identity_ok"] = result["balances"] + result["house_net"] == result["grants"]
    result["ok"] = (
        audit.returncode == 0 and result["identity_ok"] and result["round_mismatches"] == 0
    )
    return result


# ------------------------------------------------------------------ machine


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pids: list[int]) -> float:
    """User+system CPU seconds of these processes, of their children that
    have exited (the kernel adds those to the parent) and of their live
    children (PostgreSQL backends, nginx workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    roots = set(pids)
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields is None:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid in roots:
            total += sum(int(x) for x in fields[11:15]) / tick
        elif ppid in roots:
            total += sum(int(x) for x in fields[11:13]) / tick
    return total


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


class Sampler(threading.Thread):
    """The 1-minute load average, once a second, while the window runs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append(loadavg())
            self.stop.wait(1.0)


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--serve", choices=["single", "cluster", "none"], default="none")
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn HTTP workers for --serve cluster"
    )
    parser.add_argument(
        "--ws-workers", type=int, default=1, help="daphne websocket workers for --serve cluster"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=6.0,
        help="mean seconds a player takes to place the next chips after a round's "
        "pacing (0: as fast as the server answers)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.6,
        help="seconds per card of the reveal's pacing that each player waits out after a "
        "round, as the table does (0.6: the site's default speed; 0: not waited, as a "
        "player on fast play with --think standing in for the short reveal)",
    )
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds per request/result")
    parser.add_argument("--signup-concurrency", type=int, default=8)
    parser.add_argument(
        "--addresses",
        type=int,
        default=0,
        help="loopback client addresses the players share (0: one each, as real players)",
    )
    parser.add_argument("--baccarat-table", default="baccarat-social")
    parser.add_argument("--war-table", default="casino-war")
    parser.add_argument(
        "--database-url", default="", help="--serve none: the server's DATABASE_URL"
    )
    parser.add_argument("--sqlite-path", default="", help="--serve none: the server's SQLite file")
    args = parser.parse_args(argv)
    parts = urlsplit(args.url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        parser.error("--url must be http://127.0.0.1:PORT (traffic stays on this machine)")
    if args.players < 1 or args.seconds <= 0:
        parser.error("--players and --seconds must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    parts = urlsplit(args.url)
    port = parts.port or 80
    args.url = f"http://{parts.hostname}:{port}"
    threading.stack_size(512 * 1024)

    server: SingleServer | ClusterServer | None = None
    if args.serve == "single":
        server = SingleServer(parts.hostname or "127.0.0.1", port)
    elif args.serve == "cluster":
        server = ClusterServer(port, args.workers, args.ws_workers)
    try:
        wait_http(args.url, 60)
        result, players = run(args, server)
        if server is not None:
            ledger_env = server.ledger_env()
        elif args.database_url:
            ledger_env = {**os.environ, "DATABASE_URL": args.database_url}
        elif args.sqlite_path:
            ledger_env = {**os.environ, "CASINO_SQLITE_PATH": str(Path(args.sqlite_path).resolve())}
            ledger_env.pop("DATABASE_URL", None)
        else:
            ledger_env = None
        if ledger_env is not None:
            ledger = check_ledger(ledger_env, f"load-{result['run_id']}-")
            result["ledger_ok"] = ledger.pop("ok")
            # Every Baccarat round dealt to a player must have reached that
            # player's socket (late is fine): the rest are lost pushes.
            dealt = ledger.pop("dealt", {})
            result["reveals_lost"] = sum(
                len(set(dealt.get(p.username, [])) - p.seen_rounds) for p in players
            )
            result["baccarat_rounds_dealt"] = sum(len(ids) for ids in dealt.values())
            result["ledger"] = ledger
        else:
            result["ledger_ok"] = None
            result["reveals_lost"] = None
            result["ledger"] = "no --database-url or --sqlite-path given"
        if server is not None and result["errors"]:
            result["server_log_tail"] = server.log_tail()[-2000:]
    finally:
        if server is not None:
            server.stop()

    r = result
    print(
        f"{r['players']} players, {r['serve']} server: {r['rounds']} rounds in "
        f"{r['window_s']} s = {r['rounds_per_s']} rounds/s; bet->result "
        f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms (baccarat p99 "
        f"{r['baccarat']['p99_ms']} ms, war p99 {r['war']['p99_ms']} ms); "
        f"errors {r['errors']}; reveals lost {r['reveals_lost']}; ledger_ok {r['ledger_ok']}; "
        f"load average max {r['loadavg']['max']}; machine CPU busy {r['machine_busy_pct']}%",
        flush=True,
    )
    head = {k: result[k] for k in JSON_HEAD}
    rest = {k: v for k, v in result.items() if k not in JSON_HEAD}
    print(json.dumps({**head, **rest}, ensure_ascii=False), flush=True)
    return 0


JSON_HEAD = ("players", "rounds", "rounds_per_s", "p50_ms", "p99_ms", "errors", "ledger_ok")


def run(
    args: argparse.Namespace,
    server: SingleServer | ClusterServer | None,
    *,
    on_play: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> tuple[dict, list[Player]]:
    """Sign the players up, let them play ``args.seconds``, and measure.
    ``on_play`` runs as the play starts and ``on_stop`` when the time is up
    (bench/flood.py starts and stops its flood there)."""
    stats = Stats()
    run_id = secrets.token_hex(3)
    players = [Player(n, args, stats, run_id) for n in range(args.players)]
    gate = threading.Semaphore(args.signup_concurrency)
    start = threading.Event()
    lock = threading.Lock()
    counts = {"ready": 0, "failed": 0}
    all_in = threading.Event()

    def ready(ok: bool) -> None:
        with lock:
            counts["ready" if ok else "failed"] += 1
            if counts["ready"] + counts["failed"] == args.players:
                all_in.set()

    setup_started = time.perf_counter()
    print(f"signing up {args.players} players at {args.url} ...", file=sys.stderr, flush=True)
    threads = [
        threading.Thread(target=p.run, args=(gate, ready, start), daemon=True) for p in players
    ]
    for t in threads:
        t.start()
    setup_budget = 120 + 2.0 * args.players / max(1, args.signup_concurrency)
    if not all_in.wait(setup_budget):
        stats.error("setup timeout", f"{counts} after {setup_budget:.0f} s")
    setup_s = time.perf_counter() - setup_started

    pids = server.pids if server is not None else []
    stack = server.stack_pids if server is not None else []
    sampler = Sampler()
    cpu0, client0, machine0 = cpu_seconds(pids), _client_cpu(), machine_ticks()
    stack0 = cpu_seconds(stack)
    load0 = loadavg()
    print(
        f"{counts['ready']} players seated in {setup_s:.0f} s; playing for {args.seconds:g} s",
        file=sys.stderr,
        flush=True,
    )
    args.start_at = time.perf_counter()
    sampler.start()
    if on_play is not None:
        on_play()
    start.set()
    # CPU and load are read over the asked seconds, while every player plays.
    time.sleep(args.seconds)
    if on_stop is not None:
        on_stop()
    cpu1, client1, machine1 = cpu_seconds(pids), _client_cpu(), machine_ticks()
    stack1 = cpu_seconds(stack)
    load1 = loadavg()
    with stats.lock:
        rounds_in_time = len(stats.latencies["baccarat"]) + len(stats.latencies["war"])
    sampler.stop.set()
    for t in threads:
        t.join(
            timeout=max(
                0.0, args.start_at + args.seconds + 4 * args.timeout + 10 - time.perf_counter()
            )
        )
    # The window: from the start to the last completed round (players finish
    # the round they are in when the time is up), at least the asked seconds.
    window = max(args.seconds, stats.last_round_at - args.start_at)
    busy = machine1[0] - machine0[0]
    ticks = machine1[1] - machine0[1]
    stuck = sum(t.is_alive() for t in threads)
    if stuck:
        stats.error("player stuck", f"{stuck} player thread(s) did not finish")

    bac, war = stats.latencies["baccarat"], stats.latencies["war"]
    every = bac + war
    rounds = len(every)
    return {
        "players": args.players,
        "rounds": rounds,
        "rounds_per_s": round(rounds / window, 1) if window else 0,
        "p50_ms": ms(percentile(every, 50)),
        "p99_ms": ms(percentile(every, 99)),
        "errors": sum(stats.errors.values()),
        "serve": args.serve,
        "workers": args.workers
        if args.serve == "cluster"
        else (1 if args.serve == "single" else None),
        "reveal_delay_s": 0 if args.serve != "none" else None,
        "think_s": args.think,
        "pace_s": args.pace,
        "seconds": args.seconds,
        "window_s": round(window, 1),
        "players_ready": counts["ready"],
        "setup_s": round(setup_s, 1),
        "signup_p50_ms": ms(percentile(stats.signup_s, 50)),
        "baccarat": {
            "rounds": len(bac),
            "p50_ms": ms(percentile(bac, 50)),
            "p90_ms": ms(percentile(bac, 90)),
            "p99_ms": ms(percentile(bac, 99)),
            "max_ms": ms(max(bac) if bac else None),
        },
        "war": {
            "rounds": len(war),
            "ties": stats.ties,
            "p50_ms": ms(percentile(war, 50)),
            "p90_ms": ms(percentile(war, 90)),
            "p99_ms": ms(percentile(war, 99)),
            "max_ms": ms(max(war) if war else None),
        },
        "requests": {
            kind: {
                "n": len(values),
                "p50_ms": ms(percentile(values, 50)),
                "p99_ms": ms(percentile(values, 99)),
            }
            for kind, values in sorted(stats.requests.items())
        },
        "error_kinds": dict(stats.errors),
        "error_samples": stats.error_samples,
        "refusals": dict(stats.refusals),
        "notes": dict(stats.counts),
        "loadavg": {
            "start": load0,
            "max": max(sampler.samples, default=load0),
            "end": load1,
        },
        # Percent of one core: the daphne processes, then the whole serving
        # stack (with PostgreSQL, Redis and nginx), and per completed round.
        "server_cpu_pct": round(100 * (cpu1 - cpu0) / args.seconds, 1) if pids else None,
        "stack_cpu_pct": round(100 * (stack1 - stack0) / args.seconds, 1) if stack else None,
        "stack_cpu_ms_per_round": round(1000 * (stack1 - stack0) / rounds_in_time, 1)
        if stack and rounds_in_time
        else None,
        "client_cpu_pct": round(100 * (client1 - client0) / args.seconds, 1),
        # Of all cores together (100% = every core busy), whoever used them.
        "machine_busy_pct": round(100 * busy / ticks, 1) if ticks else None,
        "cores": os.cpu_count(),
        "run_id": run_id,
    }, players


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
