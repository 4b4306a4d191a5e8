"""One player of the casino over HTTP and websockets, as a browser plays it.

The Locust users (bench/locustfile.py) and the cluster tests
(tests/engines/test_cluster.py) share this client, so it imports nothing of
Locust: Locust patches the standard library with gevent when imported, which
a pytest process must not get. What a player measures goes to a ``Report``
(Locust's request events in the locustfile, a plain collector in tests).

A player signs up through the real form from a loopback address of its own
(the site throttles credential posts per address and caps the websockets an
address holds), opens both table pages and both websockets from it (session
cookie, ``Origin`` of the site), and plays:

* Baccarat: BET with the slip whole, as the page's script sends it (chips
  per area and a fresh ``slip_key``), and wait for the reveal's last
  fragment (``#bac-result`` with a ``data-round``) on the socket. Latency:
  sending BET to receiving that fragment.
* War: DEAL (``ante``, ``tie_bet``, ``slip_key``); on a tie the decision at
  once. Latency: sending DEAL to the answer with the settled round.

``transport="socket"`` (the page with JavaScript on) sends BET, DEAL and the
decision as JSON frames on the table's socket, ``{"action": "bet", ...}``
with the fields the forms post, and reads the answers from frames: the
Baccarat BET's ``#bac-placed`` (or the slip's error), War's ``update``
fragment (or ``#war-message``'s refusal). ``transport="http"`` posts the
forms as htmx does without a socket and reads the same fragments from the
answers.

A socket that drops is opened again, as the page's htmx ws extension does,
and the reveal it was waiting for must still arrive (the consumer sends the
settled result of a round the socket did not finish showing).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import queue
import random
import re
import secrets
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
import websocket
from requests.adapters import HTTPAdapter

BAC_SLIP_FORM = re.compile(r'name="slip_key"[^>]*data-slip-key')
# The table's version the page (or a refusal after an operator's change) shows: BET sends it.
BAC_VERSION = re.compile(r'name="table_version" value="(\d+)"')
BAC_RESULT = re.compile(r'id="bac-result"[^>]*data-round="(\d+)"')
BAC_SLIP_ERROR = re.compile(r'data-testid="slip-error">([^<]*)<')
BAC_PLACED = re.compile(r'id="bac-placed"[^>]*data-round="(\d+)"')
BAC_AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")
TRANSPORTS = ("socket", "http")
WAR_SLIP_KEY = re.compile(r'name="slip_key" id="war-slip" value="([0-9a-f]+)"')
WAR_ROUND = re.compile(r'id="war-round"[^>]*data-status="(\w+)"[^>]*data-round-id="(\d+)"')
WAR_MESSAGE = re.compile(r'id="war-message"[^>]*>([^<]*)<')
WAR_MESSAGE_TEXT = re.compile(r'id="war-message"[^>]*>([^<]+)<')  # a refusal says why
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
FORM_ERRORS = re.compile(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', re.S)
WENT_WRONG = "Something went wrong"
WAR_CARD_STEP = 0.35  # games.views.war.CARD_STEP: seconds between two dealt cards


class PlayerError(Exception):
    """One step of a player failed; the kind goes into the error counts."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass
class Report:
    """What a player measured; the locustfile's subclass also fires Locust events."""

    requests: dict[str, list[float]] = field(default_factory=dict)
    rounds: list[tuple[float, str, float]] = field(default_factory=list)  # (end, game, s)
    errors: list[tuple[float, str, str]] = field(default_factory=list)  # (when, kind, detail)
    counts: Counter[str] = field(default_factory=Counter)
    signups: list[tuple[float, float]] = field(default_factory=list)  # (end, seconds)

    def request(self, kind: str, seconds: float, error: Exception | None = None) -> None:
        self.requests.setdefault(kind, []).append(seconds)

    def round(self, game: str, seconds: float) -> None:
        self.rounds.append((time.time(), game, seconds))

    def error(self, kind: str, detail: str = "") -> None:
        self.errors.append((time.time(), kind, detail[:300]))

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] += n

    def signup(self, seconds: float) -> None:
        self.signups.append((time.time(), seconds))


# ------------------------------------------------------------------ one socket


class Socket:
    """A websocket with a reader thread that stamps every frame on arrival,
    so a frame's time does not depend on when the player reads it."""

    def __init__(
        self, url: str, *, origin: str, cookie: str, timeout: float, address: str | None = None
    ) -> None:
        self.frames: queue.Queue[tuple[float, str]] = queue.Queue()
        self.closing = False
        self.dropped = ""
        connected = None
        if address:  # from the player's own address, as its pages come
            parts = urlsplit(url)
            connected = connect(address, parts.hostname or "127.0.0.1", parts.port or 80, timeout)
        try:
            self.ws = websocket.create_connection(
                url,
                origin=origin,
                cookie=cookie,
                header=["Accept-Language: en"],
                timeout=timeout,
                enable_multithread=True,
                socket=connected,
                # websocket-client checks a text frame's UTF-8 in pure
                # Python: 94% of a Locust process's CPU at a live table
                # (py-spy), which then stamped frames late. The server is
                # not what is tested here, and the parsers below would fail
                # on bad text anyway.
                skip_utf8_validation=True,
            )
        except Exception:
            if connected is not None:
                connected.close()
            raise
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

    def send(self, message: dict) -> None:
        """One JSON text frame, as htmx's ws-send sends a form."""
        try:
            self.ws.send(json.dumps(message))
        except Exception as exc:
            raise PlayerError("socket send", f"{type(exc).__name__}: {exc}") from None

    def answer(self, wanted: re.Pattern[str], refused: re.Pattern[str], deadline: float) -> str:
        """The first frame holding ``wanted`` or ``refused`` (frames of other
        kinds before it are skipped), by ``deadline`` (perf_counter)."""
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise PlayerError("timeout socket answer", f"no answer to {wanted.pattern[:30]}")
            if self.dropped and self.frames.empty():
                raise PlayerError("socket lost", self.dropped)
            try:
                _, text = self.frames.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if wanted.search(text) or refused.search(text):
                return text

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
        with contextlib.suppress(Exception):
            self.ws.send_close()
        self.thread.join(timeout=3)
        with contextlib.suppress(Exception):
            self.ws.shutdown()


# ------------------------------------------------------------------ addresses


class SourceAddressAdapter(HTTPAdapter):
    """Connections from one loopback address (anything in 127.0.0.0/8 is
    this machine), so each player is a client address of its own."""

    def __init__(self, address: str, **kwargs) -> None:
        self.address = address
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs) -> None:
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def client_address(n: int, group: int = 0) -> str:
    """The loopback address of client ``n`` of load generator ``group``
    (127.<group>.0.2 onwards; group 0 is 127.0.0.x, this machine's usual)."""
    return f"127.{group}.{n // 250}.{2 + n % 250}"


def connect(address: str, host: str, port: int, timeout: float, sndbuf: int = 0) -> socket.socket:
    """A TCP connection to the site from loopback ``address`` (a player's
    websocket, an attacker's raw requests); ``sndbuf``: a small send buffer,
    so what the server's kernel acknowledged is close to what was sent."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if sndbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        sock.bind((address, 0))
        sock.settimeout(timeout)
        sock.connect((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def http_session(address: str | None) -> requests.Session:
    session = requests.Session()
    if address:
        session.mount("http://", SourceAddressAdapter(address))
    return session


# ------------------------------------------------------------------ one player


class Player:
    def __init__(
        self,
        base: str,
        username: str,
        *,
        address: str | None,
        report: Report,
        rng: random.Random | None = None,
        timeout: float = 15.0,
        overdue: float = 5.0,
        pace: float = 0.6,
        baccarat_table: str = "baccarat-social",
        war_table: str = "casino-war",
        transport: str = "socket",
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport {transport!r}: one of {', '.join(TRANSPORTS)}")
        self.transport = transport
        self.base = base.rstrip("/")
        self.username = username
        self.report = report
        self.rng = rng or random.Random(username)
        self.timeout = timeout
        self.overdue = overdue  # seconds without a reveal frame before reconnecting
        self.pace = pace
        self.baccarat_table = baccarat_table
        self.war_table = war_table
        self.address = address
        self.http = http_session(address)
        self.http.headers.update({"Accept-Language": "en", "User-Agent": "casino-bench-load"})
        self.bac_key = ""
        self.bac_version = ""
        self.war_key = ""
        self.bac_ws: Socket | None = None
        self.war_ws: Socket | None = None
        self.paced = 0.0  # seconds of the last round's pacing still to watch
        # A failed step leaves the slip or a War tie behind: the next round of
        # that game starts by putting things straight.
        self.bac_dirty = False
        self.war_dirty = False
        # BETs whose reveal was given up on and not seen since; the round ids
        # every reveal on this player's socket showed.
        self.pending_reveals = 0
        self.seen_rounds: set[int] = set()

    # --- HTTP ---------------------------------------------------------------

    def get(self, path: str, kind: str) -> requests.Response:
        return self._send("GET", path, kind)

    def post(self, path: str, kind: str, data: dict[str, str], *, htmx: bool = True):
        headers = {
            "X-CSRFToken": self.http.cookies.get("csrftoken", ""),
            "Origin": self.base,
            "Referer": self.base + path,
        }
        if htmx:
            headers["HX-Request"] = "true"
        return self._send("POST", path, kind, data=data, headers=headers)

    def _send(self, method: str, path: str, kind: str, **kw) -> requests.Response:
        t0 = time.perf_counter()
        try:
            response = self.http.request(method, self.base + path, timeout=self.timeout, **kw)
        except requests.Timeout as exc:
            error = PlayerError(f"timeout {kind}", str(exc))
        except requests.RequestException as exc:
            error = PlayerError(f"connection {kind}", str(exc))
        else:
            if response.status_code < 400:
                self.report.request(kind, time.perf_counter() - t0)
                return response
            error = PlayerError(
                f"http {response.status_code} {kind}", response.text[:200].replace("\n", " ")
            )
        self.report.request(kind, time.perf_counter() - t0, error)
        raise error

    # --- setup --------------------------------------------------------------

    def sign_up(self, attempts: int = 3) -> None:
        """The sign-up form, tried again (as a person would, a few seconds
        later) when the site answers 429: it refused before creating
        anything. The time is the person's, from the first try."""
        t0 = time.perf_counter()
        for attempt in range(attempts):
            try:
                self._sign_up()
                break
            except PlayerError as exc:
                if exc.kind != "http 429 signup" or attempt + 1 == attempts:
                    raise
                self.report.count("sign-up tried again after 429")
                time.sleep(self.rng.uniform(2, 5))
        self.report.signup(time.perf_counter() - t0)

    def _sign_up(self) -> None:
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
            # The form again, saying why (Django's error lists), or a page that does not.
            said = " ".join(
                re.sub(r"<[^>]+>", " ", " ".join(FORM_ERRORS.findall(response.text))).split()
            )
            raise PlayerError(
                "signup",
                f"not logged in after sign-up ({response.status_code} {response.url}): "
                f"{said[:300] or 'no error on the form'}",
            )

    def sit_down(self) -> None:
        """Open both table pages (slip keys) and both websockets."""
        bac = self.get(f"/baccarat/{self.baccarat_table}/", "baccarat_page")
        version = BAC_VERSION.search(bac.text)
        if BAC_SLIP_FORM.search(bac.text) is None or version is None:
            raise PlayerError("baccarat page", "no bet slip on the page")
        self.bac_key = secrets.token_hex(16)  # the slip lives in the browser
        self.bac_version = version.group(1)
        war = self.get(f"/war/{self.war_table}/", "war_page")
        found = WAR_SLIP_KEY.search(war.text)
        if found is None:
            raise PlayerError("war page", "no slip key on the page")
        self.war_key = found.group(1)
        self.bac_ws = self.seat_socket(f"/ws/baccarat/{self.baccarat_table}/")
        self.war_ws = self.seat_socket(f"/ws/war/{self.war_table}/")

    def seat_socket(self, path: str) -> Socket:
        """A table's socket, opened as the player sits down: a failure is
        the player's error to report."""
        try:
            return self.socket(path)
        except Exception as exc:
            raise PlayerError("websocket connect", f"{type(exc).__name__}: {exc}") from None

    def socket(self, path: str) -> Socket:
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        return Socket(
            "ws" + self.base[len("http") :] + path,
            origin=self.base,
            cookie=cookie,
            timeout=self.timeout,
            address=self.address,
        )

    def reconnect_baccarat(self) -> None:
        """Open the Baccarat socket again after a drop, as the page's ws
        extension does (with back-off, until the server answers)."""
        dropped = self.bac_ws.dropped if self.bac_ws else ""
        if self.bac_ws is not None:
            leftover = self.bac_ws.drain()
            self.bac_ws.close()
            self.late_reveals(leftover)
        self.report.count("socket reconnects")
        self.bac_ws = self._reconnect(f"/ws/baccarat/{self.baccarat_table}/", dropped)

    def _reconnect(self, path: str, why: str) -> Socket:
        end = time.perf_counter() + 4 * self.timeout
        delay = 0.25
        while True:
            try:
                return self.socket(path)
            except Exception as exc:
                if time.perf_counter() > end:
                    raise PlayerError(
                        "socket lost", f"{why}; reconnecting: {type(exc).__name__}: {exc}"
                    ) from None
            time.sleep(delay)
            delay = min(2 * delay, 2.0)

    # --- rounds -------------------------------------------------------------

    def baccarat_round(self) -> None:
        if self.bac_ws is None or self.bac_ws.dropped:
            self.reconnect_baccarat()
        assert self.bac_ws is not None
        if self.bac_dirty:
            self.bac_key = secrets.token_hex(16)
            # Like the page, show the reveal still on its way before the next BET.
            self.wait_for_reveals(self.timeout)
            self.bac_dirty = False
        wanted = [(self.rng.choice(["player", "banker"]), "10")]
        if self.rng.random() < 0.2:
            wanted.append(("tie", "1"))
        stale = self.bac_ws.drain()
        resent = [
            t for t in stale if (m := BAC_RESULT.search(t)) and int(m.group(1)) in self.seen_rounds
        ]
        if stale and not self.late_reveals(stale) and len(resent) < len(stale):
            self.report.error("stray frames", f"{len(stale)} frame(s) before BET: {stale[0][:80]}")
        t0 = time.perf_counter()
        slip = {"slip_key": self.bac_key, "table_version": self.bac_version, **dict(wanted)}
        try:
            answer = self.bet_baccarat(slip, t0)
        except PlayerError:
            self.pending_reveals += 1  # the server may still deal this round
            raise
        if version := BAC_VERSION.search(answer):  # the table changed: its new terms
            self.bac_version = version.group(1)
        error = BAC_SLIP_ERROR.search(answer)
        if error:
            kind = "went wrong" if WENT_WRONG in error.group(1) else "refused bet"
            raise PlayerError(kind, error.group(1))
        self.bac_key = secrets.token_hex(16)  # the slip is spent
        answered = time.perf_counter()
        deadline = t0 + self.timeout
        overdue = answered + self.overdue
        frames = 0
        first = 0.0
        while True:
            now = time.perf_counter()
            if now > deadline:
                self.pending_reveals += 1
                raise PlayerError("timeout reveal", f"no result after {frames} frame(s)")
            if self.bac_ws.dropped or (not frames and now > overdue):
                # The page's socket reconnects by itself after a drop (and,
                # as a player reloads, when the reveal is overdue: its push
                # may have been lost); the consumer then sends the result of
                # the round no socket finished showing.
                if not self.bac_ws.dropped:
                    self.report.count("overdue reveal reconnects")
                    overdue = deadline
                self.reconnect_baccarat()
                frames = max(frames, 2)  # the steps it missed are not waited again
            try:
                arrived, text = self.bac_ws.frames.get(timeout=0.5)
            except queue.Empty:
                continue
            shown = BAC_RESULT.search(text)
            if shown and int(shown.group(1)) in self.seen_rounds:
                continue  # a round shown before, sent again on a reconnect
            frames += 1
            first = first or arrived
            if shown:
                self.seen_rounds.add(int(shown.group(1)))
                break
        if frames < 3:  # deal, at least the four cards (or a skip), result
            self.report.error("short reveal", f"{frames} frame(s)")
        self.paced = (frames - 1) * self.pace
        self.report.round("baccarat", arrived - t0)
        self.report.request("reveal_first_after_answer", max(0.0, first - answered))

    def bet_baccarat(self, slip: dict[str, str], t0: float) -> str:
        """Send BET over this player's transport; the answer's HTML."""
        if self.transport == "http":
            path = f"/baccarat/{self.baccarat_table}/bet/"
            return self.post(path, "baccarat_bet", slip).text
        empty = dict.fromkeys(BAC_AREAS, "")
        message = {"action": "bet", **empty, **slip, "squeeze_visit": ""}
        for attempt in (1, 2):
            assert self.bac_ws is not None
            try:
                self.bac_ws.send(message)
                answer = self.bac_ws.answer(BAC_PLACED, BAC_SLIP_ERROR, t0 + self.timeout)
                break
            except PlayerError as exc:
                if attempt == 2 or exc.kind not in ("socket send", "socket lost"):
                    self.report.request("baccarat_bet", time.perf_counter() - t0, exc)
                    raise
            # The socket dropped: as the page does, send the same slip again
            # on a new one (its key replays the round if it was placed).
            self.report.count("BET sent again on a new socket")
            self.reconnect_baccarat()
        self.report.request("baccarat_bet", time.perf_counter() - t0)
        return answer

    def war_action(self, action: str, data: dict[str, str]) -> str:
        """DEAL or a decision over this player's transport; the answer's HTML."""
        kind = f"war_{action}"
        if self.transport == "http":
            return self.post(f"/war/{self.war_table}/{action}/", kind, data).text
        t0 = time.perf_counter()
        for attempt in (1, 2):
            if self.war_ws is None or self.war_ws.dropped:
                raise PlayerError(
                    "socket lost", self.war_ws.dropped if self.war_ws else "no socket"
                )
            stale = self.war_ws.drain()  # pushes of earlier rounds: not this answer
            if stale:
                self.report.count("war frames before an action", len(stale))
            try:
                self.war_ws.send({"action": action, **data})
                answer = self.war_ws.answer(WAR_ROUND, WAR_MESSAGE_TEXT, t0 + self.timeout)
                break
            except PlayerError as exc:
                # DEAL's slip key replays a round already dealt; a decision
                # is not sent twice.
                again = action == "deal" and exc.kind in ("socket send", "socket lost")
                if attempt == 2 or not again:
                    self.report.request(kind, time.perf_counter() - t0, exc)
                    raise
            self.report.count("DEAL sent again on a new socket")
            self.war_ws.close()
            self.war_ws = self._reconnect(f"/ws/war/{self.war_table}/", "dropped at DEAL")
        self.report.request(kind, time.perf_counter() - t0)
        return answer

    def war_round(self) -> None:
        slug = self.war_table
        if self.war_ws is None or self.war_ws.dropped:
            # The socket closes when a tie's decision time runs out (code 4000;
            # the page then goes to the lobby) or when a worker goes: a player
            # comes back to the table with a new socket and a reload.
            dropped = self.war_ws.dropped if self.war_ws else ""
            if self.war_ws is not None:
                self.war_ws.close()
            self.war_ws = self._reconnect(f"/ws/war/{slug}/", dropped)
            self.war_dirty = True
            if "code 4000" in dropped:
                self.report.error("war decision timed out", dropped)
            else:
                self.report.count("socket reconnects")
        if self.war_dirty:
            page = self.get(f"/war/{slug}/", "war_page")
            found = WAR_SLIP_KEY.search(page.text)
            if found is None:
                raise PlayerError("war page", "no slip key on the page")
            self.war_key = found.group(1)
            waiting = WAR_ROUND.search(page.text)
            if waiting and waiting.group(1) == "open":
                # The reloaded table shows the tie's decision: take it.
                self.war_action("decide", {"round_id": waiting.group(2), "decision": "surrender"})
            self.war_dirty = False
        tie_bet = "1" if self.rng.random() < 0.3 else "0"
        t0 = time.perf_counter()
        answer = self.war_action(
            "deal", {"slip_key": self.war_key, "ante": "10", "tie_bet": tie_bet}
        )
        status, round_id = self._war_state(answer)
        found = WAR_SLIP_KEY.search(answer)
        if found is None:
            raise PlayerError("war deal", "no fresh slip key in the DEAL answer")
        self.war_key = found.group(1)
        cards = 2
        if status == "open":
            self.report.count("war ties")
            decision = self.rng.choice(["war", "surrender"])
            if decision == "war":
                cards = 7  # three burnt and one more card each
            answer = self.war_action("decide", {"round_id": round_id, "decision": decision})
            status, _ = self._war_state(answer)
        if status != "settled":
            raise PlayerError("war state", f"round {round_id} is {status!r} after the decision")
        self.report.round("war", time.perf_counter() - t0)
        self.paced = (cards - 1) * WAR_CARD_STEP if self.pace else 0.0

    def _war_state(self, answer: str) -> tuple[str, str]:
        found = WAR_ROUND.search(answer)
        if found is None:
            message = WAR_MESSAGE.search(answer)
            text = message.group(1).strip() if message else answer[:200]
            raise PlayerError("went wrong" if WENT_WRONG in text else "refused war", text)
        return found.group(1), found.group(2)

    def play(self, game: str) -> bool:
        """One round of ``game``; a failure is reported, not raised."""
        try:
            self.baccarat_round() if game == "baccarat" else self.war_round()
            return True
        except PlayerError as exc:
            self.report.error(exc.kind, exc.detail)
            if game == "baccarat":
                self.bac_dirty = True
            else:
                self.war_dirty = True
            return False

    # --- late reveals and leaving --------------------------------------------

    def late_reveals(self, frames: list[str]) -> int:
        """A reveal that came after its timeout is late, not lost: count it."""
        late = 0
        for text in frames:
            shown = BAC_RESULT.search(text)
            if shown and int(shown.group(1)) not in self.seen_rounds:
                self.seen_rounds.add(int(shown.group(1)))
                late += 1
        if late:
            self.report.count("late reveals", late)
            self.pending_reveals = max(0, self.pending_reveals - late)
        return late

    def wait_for_reveals(self, seconds: float) -> None:
        """Read frames until every pending reveal came, for at most ``seconds``."""
        sock = self.bac_ws
        if sock is None:
            return
        self.late_reveals(sock.drain())
        end = time.perf_counter() + seconds
        while self.pending_reveals and time.perf_counter() < end:
            if sock.dropped:
                try:
                    self.reconnect_baccarat()
                except PlayerError:
                    return
                sock = self.bac_ws
                assert sock is not None
            with contextlib.suppress(queue.Empty):
                self.late_reveals([sock.frames.get(timeout=0.5)[1]])

    def close(self) -> None:
        if self.bac_ws is not None and self.pending_reveals:
            # The run compares the rounds dealt with the ones shown.
            self.wait_for_reveals(2 * self.timeout)
        if self.bac_ws is not None:
            self.late_reveals(self.bac_ws.drain())
        for sock in (self.bac_ws, self.war_ws):
            if sock is not None:
                sock.close()
        self.bac_ws = self.war_ws = None
        self.http.close()


# ------------------------------------------------------------------ a live table

LIVE_STATE = re.compile(
    r'id="live-state"[^>]*data-status="(\w*)"[^>]*data-closes-at="(\d+)"[^>]*data-now="(\d+)"'
)
LIVE_COUP = re.compile(r'data-testid="live-coup" data-shoe="(\d+)" data-coup="(\d+)"')
LIVE_COUP_ID = re.compile(r'id="live-state"[^>]*data-coup-id="(\d*)"')  # while betting
LIVE_RESULT = re.compile(r'data-testid="live-result"[^>]*data-dealt-at="(\d+)"')
LIVE_SEAT = re.compile(r'id="live-last"')  # the seat's last coup: only the deal's message swaps it


def add_live_options(parser: argparse.ArgumentParser) -> None:
    """A live table's players' options (``LivePlayer``), for bench/live.py's
    parser and the Locust file's alike."""
    parser.add_argument(
        "--watchers", type=float, default=0.2, help="the share of players who only watch"
    )
    parser.add_argument(
        "--bet-spread",
        type=float,
        default=0.7,
        help="a bettor's BET goes at a random moment within this share of the window",
    )


class LivePlayer(Player):
    """One player at a live table (games/consumers/live.py): the table's page
    and its socket, on which the dealer's state arrives for every coup.

    A bettor stakes a slip on every coup, at a random moment of its betting
    window (``bet_spread`` of it at most), over the socket
    (``{"action": "bet", ...}``, the slip's fields, ``coup`` the id of the
    coup the state showed taking bets); on a shoe's first coup
    the slip also carries ``commit``, the SHA-256 of a secret the player
    reveals (``{"action": "reveal", "seed": ...}``) when the state shows
    the coup revealing. A watcher only watches. Both time each deal: from
    the server's deal time on the state (``data-dealt-at``) to the frame's
    arrival (``live_reveal``); a bettor also times BET to its answer
    (``live_bet``)."""

    def __init__(self, *args, watcher: bool = False, bet_spread: float = 0.7, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.watcher = watcher
        self.bet_spread = bet_spread
        self.live_ws: Socket | None = None
        self.deals: set[int] = set()  # data-dealt-at of the deals shown
        self.primed = False  # a socket's first state is the table as it was
        self.coup: tuple[int, int] | None = None  # (shoe, coup) taking bets
        self.coup_id = ""  # its id, which BET names
        self.bet_on: set[tuple[int, int]] = set()
        self.bet_at = 0.0  # perf_counter when the next BET goes (0: none due)
        self.bet_sent = 0.0  # perf_counter of the BET awaiting its answer
        self.bet_for: tuple[int, int] | None = None  # the coup it was meant for
        self.secrets: dict[tuple[int, int], str] = {}  # commit-reveal, per coup
        self.revealed: set[tuple[int, int]] = set()
        self.reveal_sent = False  # a seed sent, its answer not read yet

    @property
    def live_path(self) -> str:
        return f"/ws/live/{self.baccarat_table}/"

    def sit_down(self) -> None:
        page = self.get(f"/baccarat/{self.baccarat_table}/", "live_page")
        version = BAC_VERSION.search(page.text)
        if version is None:
            raise PlayerError("live page", "no table version on the page")
        self.bac_version = version.group(1)
        self.live_ws = self.seat_socket(self.live_path)

    def play_coup(self, until: float, timeout: float = 60.0) -> None:
        """Read the table until the next deal (a bettor: the deal of the coup
        it bet on), betting on the way, at most ``timeout`` seconds; no new
        BET once the wall clock passes ``until``. Failures are reported."""
        end = time.perf_counter() + timeout
        deals = len(self.deals)
        while time.perf_counter() < end:
            try:
                self._step(until)
            except PlayerError as exc:
                self.report.error(exc.kind, exc.detail)
                self.bet_sent = 0.0
                if exc.kind == "socket lost":
                    return
            if len(self.deals) > deals and not self.bet_sent and not self.bet_at:
                return
            if time.time() >= until and not self.bet_sent:
                return
        self.report.error("timeout live deal", f"no deal shown in {timeout:g} s")

    def _step(self, until: float) -> None:
        if self.live_ws is None or self.live_ws.dropped:
            dropped = self.live_ws.dropped if self.live_ws else "no socket"
            if self.live_ws is not None:
                self.live_ws.close()
            self.report.count("socket reconnects")
            self.live_ws = None
            self.live_ws = self._reconnect(self.live_path, dropped)
            self.primed = False
        now = time.perf_counter()
        if self.bet_at and now >= self.bet_at and not self.bet_sent:
            if time.time() < until:
                self.send_bet()
            self.bet_at = 0.0
        if self.bet_sent and now - self.bet_sent > self.timeout:
            self.bet_sent = 0.0
            raise PlayerError("timeout live bet", f"no answer to BET in {self.timeout:g} s")
        wait = 0.5 if not self.bet_at else max(0.0, min(0.5, self.bet_at - now))
        try:
            arrived, text = self.live_ws.frames.get(timeout=wait)
        except queue.Empty:
            return
        self.on_frame(arrived, text, until)

    def on_frame(self, arrived: float, text: str, until: float) -> None:
        wall = time.time() - (time.perf_counter() - arrived)
        state = LIVE_STATE.search(text)
        if state is None:
            if self.bet_sent and (BAC_PLACED.search(text) or BAC_SLIP_ERROR.search(text)):
                self.on_answer(arrived, text)
            elif LIVE_SEAT.search(text):
                self.report.count("live bets settled")
            elif self.reveal_sent:  # the seed's answer: a line under the slip
                self.reveal_sent = False
                if error := BAC_SLIP_ERROR.search(text):
                    self.report.error("refused reveal", error.group(1))
                else:
                    self.report.count("seeds taken")
            return
        self.report.count("live states")
        self.report.count("live state bytes", len(text.encode()))
        status, closes_at, server_now = state.group(1), int(state.group(2)), int(state.group(3))
        result = LIVE_RESULT.search(text)
        if result is not None and (dealt_at := int(result.group(1))) not in self.deals:
            self.deals.add(dealt_at)
            if self.primed:  # a state sent on connect is no deal this socket saw
                self.report.request("live_reveal", max(0.0, wall - dealt_at / 1000))
                self.report.request("live_deal_to_state", max(0, server_now - dealt_at) / 1000)
        self.primed = True
        found = LIVE_COUP.search(text)
        if found is None:
            return
        coup = (int(found.group(1)), int(found.group(2)))
        if status == "betting" and coup not in self.bet_on and not self.watcher:
            # The seconds left now, as the page's countdown shows them: a
            # frame read late (queued while the players were seated) shows
            # less time, or none, and a player does not bet on a closed clock.
            now = time.perf_counter()
            left = (closes_at - server_now) / 1000 - (now - arrived)
            if time.time() < until and left > 1.0:
                self.bet_on.add(coup)
                # People do not all press BET at once: somewhere in the window.
                self.bet_at = now + self.rng.uniform(0, self.bet_spread * (left - 0.5))
                self.coup = coup
                # BET names the coup on screen, as the page's slip does.
                meant = LIVE_COUP_ID.search(text)
                self.coup_id = meant.group(1) if meant else ""
        elif status == "revealing" and coup in self.secrets and coup not in self.revealed:
            self.revealed.add(coup)
            assert self.live_ws is not None
            self.live_ws.send({"action": "reveal", "seed": self.secrets[coup]})
            self.reveal_sent = True
            self.report.count("seeds revealed")

    def send_bet(self) -> None:
        assert self.live_ws is not None and self.coup is not None
        stakes = {self.rng.choice(["player", "banker"]): "10"}
        if self.rng.random() < 0.2:
            stakes["tie"] = "10"
        message = {
            "action": "bet",
            **dict.fromkeys(BAC_AREAS, ""),
            **stakes,
            "slip_key": secrets.token_hex(16),
            "table_version": self.bac_version,
            "squeeze_visit": "",
            "coup": self.coup_id,
        }
        if self.coup[1] == 1:
            # A shoe's first coup: commit to a seed, revealed once betting closes.
            secret = secrets.token_hex(16)
            self.secrets[self.coup] = secret
            message["commit"] = hashlib.sha256(secret.encode()).hexdigest()
        self.bet_sent = time.perf_counter()
        self.bet_for = self.coup
        self.live_ws.send(message)

    def on_answer(self, arrived: float, text: str) -> None:
        seconds = max(0.0, arrived - self.bet_sent)
        self.bet_sent = 0.0
        error = BAC_SLIP_ERROR.search(text)
        if error is None:
            self.report.request("live_bet", seconds)
            placed = BAC_PLACED.search(text)
            if placed and self.bet_for and int(placed.group(1)) != self.bet_for[1]:
                # Queued past its coup's close and the next coup's opening:
                # the server staked it on a coup this page never bet on.
                self.report.error("bet placed on a later coup", f"meant for {self.bet_for}")
            return
        if version := BAC_VERSION.search(text):
            self.bac_version = version.group(1)
        if self.bet_for is not None:
            # A refused bet committed no seed: the page reveals none for it.
            self.secrets.pop(self.bet_for, None)
        kind = "went wrong" if WENT_WRONG in error.group(1) else "refused bet"
        self.report.request("live_bet", seconds, PlayerError(kind, error.group(1)))
        self.report.error(kind, error.group(1))

    def close(self) -> None:
        if self.live_ws is not None:
            self.live_ws.close()
        self.live_ws = None
        super().close()
