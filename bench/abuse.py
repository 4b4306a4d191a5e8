"""Attacks on the front door while players play: does the site hold?

For each attack (``--only`` picks some), bench/load.py's Locust players
first play ``--seconds`` undisturbed, then as many new players play as long
while the attack runs; it starts with their play and ends with it, or once
its bounded work is done. One line per attack, then one JSON object (its
keys: bench/README.md).

The attackers come from loopback addresses after the players' own
(127.0.0.<players + 2> onwards), each attack from addresses of its own, so
no attack spends a budget or a lockout of a player or of another attack.
The server's memory is its process tree's RSS from /proc (the cluster:
supervisord's tree and nginx; ``--serve none``: the processes holding the
listening socket).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import re
import resource
import secrets
import selectors
import socket
import struct
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import needs

needs.require("bench/abuse.py")

from bench import client, load  # noqa: E402 - after the check above
from bench.metrics import Sampler, ms, percentile, rss_bytes  # noqa: E402
from bench.stack import Cluster, wait_http  # noqa: E402

MIB = 1024 * 1024
STATUS_LINE = re.compile(rb"^HTTP/1\.[01] (\d{3})")
ATTACKS = ("login-flood", "login-flood-wide", "huge-body", "slow-head", "ws-flood")


def mib(value: float | None) -> float | None:
    return None if value is None else round(value / MIB, 1)


# ------------------------------------------------------------------ /proc


def tcp_bytes_acked(sock: socket.socket) -> int:
    """Bytes of this connection the peer's kernel acknowledged
    (``tcpi_bytes_acked`` of Linux's ``struct tcp_info``)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("Q", info, 120)[0] if len(info) >= 128 else 0


def receive_queue(*, local: tuple[str, int], remote: tuple[str, int]) -> int | None:
    """Bytes waiting unread in the receive queue of the IPv4 TCP socket
    ``local`` -> ``remote`` (None when it is gone), from /proc/net/tcp."""

    def hexed(end: tuple[str, int]) -> str:
        number = struct.unpack("<I", socket.inet_aton(end[0]))[0]
        return f"{number:08X}:{end[1]:04X}"

    want = (hexed(local), hexed(remote))
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if (fields[1], fields[2]) == want:
                return int(fields[4].split(":")[1], 16)
    return None


def listening_pids(port: int) -> list[int]:
    """The processes holding a socket that listens on ``port`` (for
    ``--serve none``: the server whose memory is reported)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        pids.append(int(entry.name))
                        break
    return pids


def server_pids(args: argparse.Namespace, server) -> list[int]:
    """The processes whose memory and reads are the server's: for the
    cluster supervisord's (gunicorn, the login gunicorn, uvicorn) and nginx."""
    if isinstance(server, Cluster):
        return [*server.pids, *server.parts["nginx"]]
    if server is not None:
        return list(server.pids)
    return listening_pids(urlsplit(args.url).port or 80)


# ------------------------------------------------------------------ attacks


class Attack:
    """One attack: ``prepare`` before the attacked phase, ``run`` in a thread
    from its start until ``stop`` is set (or its bounded work is done)."""

    def __init__(self, args: argparse.Namespace, first_address: int, name: str) -> None:
        self.args = args
        self.name = name
        parts = urlsplit(args.url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.first_address = first_address
        self.statuses: Counter[str] = Counter()
        self.started = self.ended = 0.0
        self.failure = ""

    def address(self, n: int) -> str:
        return client.client_address(self.first_address + n, 0)

    def prepare(self) -> None:
        pass

    def guarded_run(self, stop: threading.Event) -> None:
        self.started = time.monotonic()
        try:
            self.run(stop)
        except Exception as exc:  # reported with the attack, the run goes on
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            self.ended = time.monotonic()

    def run(self, stop: threading.Event) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def outcome(self) -> dict:
        return {}

    def connect(self, address: str, timeout: float = 5.0, sndbuf: int = 0) -> socket.socket:
        return client.connect(address, self.host, self.port, timeout, sndbuf)


class LoginFlood(Attack):
    """Wrong-password logins with random usernames, each with the CSRF token
    of the page its address fetched, ``concurrency`` at once: ``posts`` in
    all, or (``posts`` None) ``concurrency`` clients posting until the phase
    ends; each at up to ``rate`` posts a second (0: as fast as answered)."""

    def __init__(
        self, *a, posts: int | None, addresses: int, concurrency: int, rate: float = 0, **kw
    ) -> None:
        super().__init__(*a, **kw)
        self.posts = posts
        self.addresses = addresses
        self.concurrency = concurrency
        self.rate = rate
        self.answer_s: list[float] = []
        self.retry_after = 0
        self.says_why = False
        self.lock = threading.Lock()

    def describe(self) -> str:
        posts = self.posts or f"{self.concurrency} clients posting"
        return f"{posts} wrong logins from {self.addresses} addresses"

    def run(self, stop: threading.Event) -> None:
        if self.posts is None:
            clients = [(self.address(n % self.addresses), None) for n in range(self.concurrency)]
        else:
            share = [self.posts // self.addresses] * self.addresses
            for n in range(self.posts % self.addresses):
                share[n] += 1
            clients = [(self.address(n), count) for n, count in enumerate(share) if count]
        with ThreadPoolExecutor(self.concurrency) as pool:
            for address, count in clients:
                pool.submit(self.one_client, address, count, stop)

    def one_client(self, address: str, count: int | None, stop: threading.Event) -> None:
        url = self.args.url + "/accounts/login/"
        http = client.http_session(address)
        token = ""
        gap = 1.0 / self.rate if self.rate > 0 else 0.0
        next_at = time.perf_counter()
        sent = 0
        while (count is None or sent < count) and not stop.is_set():
            sent += 1
            if gap:
                next_at += gap
                time.sleep(max(0.0, next_at - time.perf_counter()))
            t0 = time.perf_counter()
            try:
                if not token:
                    found = client.CSRF_INPUT.search(http.get(url, timeout=self.args.timeout).text)
                    token = found.group(1) if found else ""
                    t0 = time.perf_counter()
                response = http.post(
                    url,
                    data={
                        "csrfmiddlewaretoken": token,
                        "username": "abuse-" + secrets.token_hex(5),
                        "password": secrets.token_urlsafe(12),
                    },
                    headers={"Origin": self.args.url, "Referer": url},
                    timeout=self.args.timeout,
                )
            except Exception as exc:  # counted, and the flood goes on
                with self.lock:
                    self.statuses[type(exc).__name__] += 1
                continue
            with self.lock:
                self.statuses[str(response.status_code)] += 1
                self.answer_s.append(time.perf_counter() - t0)
                if response.status_code == 429:
                    self.retry_after += "Retry-After" in response.headers
                    self.says_why |= 'data-testid="throttled"' in response.text  # the why
            if response.status_code == 403:
                token = ""  # a new CSRF token next time
        http.close()

    def outcome(self) -> dict:
        return {
            "posts": sum(self.statuses.values()),
            "addresses": self.addresses,
            "concurrency": self.concurrency,
            "answer_p50_ms": ms(percentile(self.answer_s, 50)),
            "answer_p99_ms": ms(percentile(self.answer_s, 99)),
            "answered_429_with_retry_after": self.retry_after,
            "answered_429_says_why": self.says_why,
        }


class HugeBody(Attack):
    """POSTs with a body far over any sane limit, one at a time, alternately
    with a Content-Length and chunked without one.

    What the server took is read off TCP when its answer arrives: the body
    bytes its kernel acknowledged (``TCP_INFO`` of the client's socket) less
    those still waiting in its end's receive queue (/proc/net/tcp) are the
    bytes the server's code read. (``rchar`` in /proc counts read() but not
    recv(), so it misses what most servers read from a socket.)"""

    PIECE = 64 * 1024

    def __init__(self, *a, mib_size: int, posts: int, **kw) -> None:
        super().__init__(*a, **kw)
        self.size = mib_size * MIB
        self.posts = posts
        self.results: list[dict] = []

    def describe(self) -> str:
        return f"{self.posts} POSTs of {self.size // MIB} MiB (length / chunked)"

    def run(self, stop: threading.Event) -> None:
        for n in range(self.posts):
            if stop.is_set():
                return
            self.results.append(self.post(chunked=bool(n % 2), stop=stop))
            self.statuses[self.results[-1]["status"]] += 1

    def post(self, *, chunked: bool, stop: threading.Event) -> dict:
        kind = "chunked" if chunked else "length"
        framing = (
            "Transfer-Encoding: chunked" if chunked else f"Content-Length: {self.size}"
        ).encode()
        head = (
            b"POST /accounts/login/ HTTP/1.1\r\n"
            + f"Host: {self.host}:{self.port}\r\nOrigin: {self.args.url}\r\n".encode()
            + b"Content-Type: application/x-www-form-urlencoded\r\n"
            + framing
            + b"\r\nConnection: close\r\n\r\n"
        )
        piece = b"x" * self.PIECE
        t0 = time.monotonic()
        deadline = t0 + max(5.0, self.args.timeout)
        queued = 0  # body bytes framed so far
        terminated = False
        status = ""
        try:
            sock = self.connect(self.address(0), sndbuf=self.PIECE)
        except OSError as exc:
            return {"kind": kind, "status": f"connect {type(exc).__name__}"}
        with sock, selectors.DefaultSelector() as sel:
            ends = (sock.getsockname(), sock.getpeername())
            sock.sendall(head)
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
            pending = b""
            while time.monotonic() < deadline and not stop.is_set():
                events = sel.select(0.5)
                if any(mask & selectors.EVENT_READ for _, mask in events):
                    break  # the server answered (or closed), maybe before the body's end
                if not events:
                    continue
                if not pending:
                    if queued < self.size:
                        size = min(self.PIECE, self.size - queued)
                        queued += size
                        data = piece[:size]
                        pending = f"{size:x}\r\n".encode() + data + b"\r\n" if chunked else data
                    elif chunked and not terminated:
                        pending, terminated = b"0\r\n\r\n", True
                    else:
                        sel.modify(sock, selectors.EVENT_READ)  # all sent: wait for the answer
                        continue
                try:
                    done = sock.send(pending)
                except BlockingIOError:
                    continue
                except OSError as exc:  # reset: the server gave up on the body
                    status = f"send {type(exc).__name__}"
                    break
                pending = pending[done:]
            answered_at = time.monotonic()
            acked = max(0, tcp_bytes_acked(sock) - len(head))
            waiting = receive_queue(local=ends[1], remote=ends[0])
            answer = b""
            sock.setblocking(True)
            sock.settimeout(max(0.1, deadline - answered_at))
            with contextlib.suppress(OSError):
                while b"\r\n" not in answer:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
        found = STATUS_LINE.match(answer)
        if found:
            status = found.group(1).decode()
        elif not status:
            status = "closed unanswered" if answered_at < deadline else "timeout"
        return {
            "kind": kind,
            "status": status,
            "answer_s": round(answered_at - t0, 3),
            "acked_mib": mib(acked),
            # None: the server's end was already closed (then it read at most
            # what it acknowledged).
            "server_read_mib": None if waiting is None else mib(max(0, acked - waiting)),
        }

    def outcome(self) -> dict:
        out: dict = {"mib": self.size // MIB}
        for kind in ("length", "chunked"):
            mine = [r for r in self.results if r["kind"] == kind]
            times = [r["answer_s"] for r in mine if "answer_s" in r]
            reads = [r["server_read_mib"] for r in mine if r.get("server_read_mib") is not None]
            out[kind] = {
                "posts": len(mine),
                "statuses": dict(Counter(r["status"] for r in mine)),
                "answer_s_max": max(times, default=None),
                "acked_mib_max": max((r.get("acked_mib") or 0 for r in mine), default=None),
                "server_read_mib_max": max(reads, default=None),
                "server_end_closed": sum(
                    1 for r in mine if "acked_mib" in r and r["server_read_mib"] is None
                ),
            }
        return out


class SlowHead(Attack):
    """Connections from one address that send their request head a byte at a
    time and never finish it; one the server closes is opened again."""

    def __init__(self, *a, connections: int, interval: float, **kw) -> None:
        super().__init__(*a, **kw)
        self.connections = connections
        self.interval = interval
        self.opened = 0
        self.closed_by_server = 0
        self.lifetimes: list[float] = []
        self.held_at_end = 0
        self.oldest_held_s = 0.0
        self.connect_errors: Counter[str] = Counter()

    def describe(self) -> str:
        return f"{self.connections} slow heads from one address"

    def head(self) -> bytes:
        start = f"GET /accounts/login/ HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        return (start + "X-Slow: " + "a" * 4000).encode()  # never ends within the window

    def run(self, stop: threading.Event) -> None:
        address = self.address(0)
        head = self.head()
        open_: dict[socket.socket, list] = {}  # socket: [opened at, bytes sent, next send]
        budget = 10 * self.connections
        with selectors.DefaultSelector() as sel:

            def gone(sock: socket.socket, why: str) -> None:
                opened_at = open_.pop(sock)[0]
                with contextlib.suppress(KeyError, ValueError):
                    sel.unregister(sock)
                sock.close()
                self.closed_by_server += 1
                self.lifetimes.append(time.monotonic() - opened_at)
                self.statuses[why] += 1

            while not stop.is_set():
                # Open up to 50 a turn, so the bytes keep their pace.
                for _ in range(min(50, self.connections - len(open_))):
                    if self.opened >= budget or stop.is_set():
                        break
                    try:
                        sock = self.connect(address, timeout=2.0)
                    except OSError as exc:
                        self.connect_errors[type(exc).__name__] += 1
                        break
                    self.opened += 1
                    sock.setblocking(False)
                    now = time.monotonic()
                    open_[sock] = [now, 0, now]
                    sel.register(sock, selectors.EVENT_READ)
                now = time.monotonic()
                for sock, state in list(open_.items()):
                    if state[2] > now or state[1] >= len(head):
                        continue
                    try:
                        state[1] += sock.send(head[state[1] : state[1] + 1])
                    except BlockingIOError:
                        pass
                    except OSError as exc:
                        gone(sock, f"closed ({type(exc).__name__} on send)")
                        continue
                    state[2] = now + self.interval
                for key, _ in sel.select(0.05):
                    sock = key.fileobj  # type: ignore[assignment]
                    if sock not in open_:
                        continue
                    try:
                        data = sock.recv(4096)
                    except BlockingIOError:
                        continue
                    except OSError as exc:
                        gone(sock, f"closed ({type(exc).__name__})")
                        continue
                    found = STATUS_LINE.match(data)
                    gone(sock, found.group(1).decode() if found else "closed")
            now = time.monotonic()
            self.held_at_end = len(open_)
            self.oldest_held_s = max((now - s[0] for s in open_.values()), default=0.0)
            for sock in list(open_):
                sock.close()

    def outcome(self) -> dict:
        return {
            "connections": self.connections,
            "byte_every_s": self.interval,
            "opened": self.opened,
            "closed_by_server": self.closed_by_server,
            "closed_after_s_p50": round(percentile(self.lifetimes, 50) or 0, 2)
            if self.lifetimes
            else None,
            "closed_after_s_max": round(max(self.lifetimes), 2) if self.lifetimes else None,
            "held_at_end": self.held_at_end,
            "oldest_held_s": round(self.oldest_held_s, 1),
            "connect_errors": dict(self.connect_errors),
        }


class WsFlood(Attack):
    """One signed-up attacker opens websockets to a table from one address
    and holds every one the server accepts."""

    def __init__(self, *a, connects: int, concurrency: int = 10, **kw) -> None:
        super().__init__(*a, **kw)
        self.connects = connects
        self.concurrency = concurrency
        self.cookie = ""
        self.held: list[socket.socket] = []
        self.handshake_s: list[float] = []
        self.closed_by_server = 0
        self.held_at_end = 0
        self.lock = threading.Lock()

    def describe(self) -> str:
        return f"{self.connects} websocket connects from one address"

    def prepare(self) -> None:
        attacker = client.Player(
            self.args.url,
            f"abuse-{secrets.token_hex(4)}",
            address=self.address(0),
            report=client.Report(),
            timeout=self.args.timeout,
        )
        try:
            attacker.sign_up()
        except client.PlayerError as exc:  # anonymous sockets, then: counted as refused
            self.failure = f"attacker sign-up: {exc}"
        self.cookie = "; ".join(f"{c.name}={c.value}" for c in attacker.http.cookies)
        attacker.http.close()

    def handshake(self, stop: threading.Event) -> None:
        if stop.is_set():
            return
        path = f"/ws/baccarat/{self.args.baccarat_table}/"
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(secrets.token_bytes(16)).decode()}\r\n"
            f"Origin: {self.args.url}\r\nCookie: {self.cookie}\r\n\r\n"
        ).encode()
        t0 = time.perf_counter()
        try:
            sock = self.connect(self.address(0), timeout=self.args.timeout)
        except OSError as exc:
            with self.lock:
                self.statuses[f"connect {type(exc).__name__}"] += 1
            return
        answer = b""
        try:
            sock.sendall(request)
            while b"\r\n\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError as exc:
            answer = answer or type(exc).__name__.encode()
        found = STATUS_LINE.match(answer)
        status = found.group(1).decode() if found else answer[:40].decode("latin-1") or "closed"
        with self.lock:
            self.statuses[status] += 1
            if status == "101":
                self.handshake_s.append(time.perf_counter() - t0)
                self.held.append(sock)
                return
        sock.close()

    def run(self, stop: threading.Event) -> None:
        with ThreadPoolExecutor(self.concurrency) as pool:
            for _ in range(self.connects):
                pool.submit(self.handshake, stop)
        # Hold them, reading what the server sends, until the phase ends.
        with selectors.DefaultSelector() as sel:
            for sock in self.held:
                sock.setblocking(False)
                sel.register(sock, selectors.EVENT_READ)
            open_ = set(self.held)
            while not stop.is_set() and open_:
                for key, _ in sel.select(0.2):
                    sock = key.fileobj  # type: ignore[assignment]
                    try:
                        data = sock.recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data or data[0] & 0x0F == 0x8:  # EOF or a close frame
                        sel.unregister(sock)
                        open_.discard(sock)
                        self.closed_by_server += 1
            self.held_at_end = len(open_)
        for sock in self.held:
            sock.close()

    def outcome(self) -> dict:
        return {
            "connects": self.connects,
            "accepted": len(self.held),
            "closed_by_server_after_accept": self.closed_by_server,
            "held_at_end": self.held_at_end,
            "handshake_p50_ms": ms(percentile(self.handshake_s, 50)),
            "handshake_p99_ms": ms(percentile(self.handshake_s, 99)),
        }


def make_attack(name: str, args: argparse.Namespace) -> Attack:
    # Each attack's addresses come after the players' and the other attacks'
    # own, so no attack finds a budget or a lockout another one spent.
    first = args.players + {
        "login-flood": 0,
        "login-flood-wide": args.flood_addresses,
    }.get(name, args.flood_addresses + args.wide_addresses)
    common = {"args": args, "first_address": first, "name": name}
    if name == "login-flood":
        return LoginFlood(
            **common,
            posts=args.flood_posts,
            addresses=args.flood_addresses,
            concurrency=args.flood_concurrency,
        )
    if name == "login-flood-wide":
        return LoginFlood(
            **common,
            posts=args.wide_addresses,
            addresses=args.wide_addresses,
            concurrency=args.flood_concurrency,
        )
    if name == "huge-body":
        return HugeBody(**common, mib_size=args.body_mib, posts=args.body_posts)
    if name == "slow-head":
        return SlowHead(**common, connections=args.slow_clients, interval=args.slow_interval)
    if name == "ws-flood":
        return WsFlood(**common, connects=args.ws_connects)
    raise ValueError(name)


# ------------------------------------------------------------------ one attack


def p99_limit(quiet_p99: float | None) -> float | None:
    """The issue's bound for a player's p99 under attack."""
    return None if quiet_p99 is None else round(max(2 * quiet_p99, quiet_p99 + 50), 1)


def run_attack(attack: Attack, args: argparse.Namespace, server) -> dict:
    """The players quiet, then as many new ones under ``attack``; both
    phases' figures and the attack's own."""
    name = attack.name
    pids = server_pids(args, server)
    print(f"{name}: players without the attack ...", file=sys.stderr, flush=True)
    quiet, _ = load.run(args, server)
    attack.prepare()
    stop = threading.Event()
    thread = threading.Thread(target=attack.guarded_run, args=(stop,), daemon=True)
    sampler = Sampler(lambda: rss_bytes(pids), 0.5)
    marks: dict = {}

    def on_play() -> None:
        marks["rss_before"] = rss_bytes(pids)
        # This process does little else while the attack runs: its CPU is
        # the attacker's share of the machine.
        marks["cpu"], marks["wall"] = time.process_time(), time.monotonic()
        sampler.start()
        thread.start()

    def on_stop() -> None:
        stop.set()
        thread.join(timeout=args.timeout + 15)
        marks["attack_running_after_stop"] = thread.is_alive()
        marks["cpu"] = time.process_time() - marks["cpu"]
        marks["wall"] = time.monotonic() - marks["wall"]
        sampler.stop.set()

    print(f"{name}: players under {attack.describe()} ...", file=sys.stderr, flush=True)
    attacked, players = load.run(args, server, on_play=on_play, on_stop=on_stop)
    sampler.join(timeout=2)
    rss_after = rss_bytes(pids)
    load.add_ledger(attacked, players, load.ledger_env_for(args, server))
    limit = p99_limit(quiet["p99_ms"])
    held = limit is not None and attacked["p99_ms"] is not None and attacked["p99_ms"] <= limit
    result = {
        "attack": name,
        "what": attack.describe(),
        "p50_ms_quiet": quiet["p50_ms"],
        "p99_ms_quiet": quiet["p99_ms"],
        "p50_ms_attacked": attacked["p50_ms"],
        "p99_ms_attacked": attacked["p99_ms"],
        "p99_limit_ms": limit,
        "p99_held": held,
        "players_seated_quiet": quiet["players_ready"],
        "players_seated_attacked": attacked["players_ready"],
        "rounds_quiet": quiet["rounds"],
        "rounds_attacked": attacked["rounds"],
        "player_errors_quiet": quiet["errors"],
        "player_errors_attacked": attacked["errors"],
        "player_error_kinds_attacked": attacked["error_kinds"],
        "refused": dict(attack.statuses),
        "attack_s": round(attack.ended - attack.started, 1) if attack.ended else None,
        "attack_failure": attack.failure or None,
        "rss_mb": {
            "before": mib(marks.get("rss_before")),
            "peak": mib(max(sampler.samples, default=None)),
            "after": mib(rss_after),
        },
        "ledger_ok": attacked.get("ledger_ok"),
        "reveals_lost": attacked.get("reveals_lost"),
        # The server's own CPU (% of one core) next to the machine's busy
        # share: others share this machine.
        "server_cpu_pct_quiet": quiet["server_cpu_pct"],
        "server_cpu_pct_attacked": attacked["server_cpu_pct"],
        "attacker_cpu_pct": round(100 * marks["cpu"] / marks["wall"], 1)
        if marks.get("wall")
        else None,
        "machine_busy_pct_quiet": quiet["machine_busy_pct"],
        "machine_busy_pct_attacked": attacked["machine_busy_pct"],
        "loadavg_attacked": attacked["loadavg"],
        **attack.outcome(),
    }
    if marks.get("attack_running_after_stop"):
        result["attack_failure"] = (result["attack_failure"] or "") + " still running at the end"
    if server is not None and attacked["errors"]:
        result["server_log_tail"] = server.log_tail()[-1500:]
    return result


def line(r: dict) -> str:
    refused = ", ".join(f"{k}x{v}" for k, v in sorted(r["refused"].items())) or "nothing"
    rss = r["rss_mb"]
    return (
        f"{r['attack']} ({r['what']}): {r['players_seated_quiet']}/{r['players_seated_attacked']} "
        f"players seated; their p50/p99 {r['p50_ms_quiet']}/{r['p99_ms_quiet']} ms "
        f"quiet, {r['p50_ms_attacked']}/{r['p99_ms_attacked']} ms attacked "
        f"(limit {r['p99_limit_ms']} ms: {'held' if r['p99_held'] else 'NOT held'}); "
        f"attack answered {refused} in {r['attack_s']} s; player errors "
        f"{r['player_errors_quiet']}/{r['player_errors_attacked']}; server RSS "
        f"{rss['before']} -> {rss['after']} MiB (peak {rss['peak']}); ledger ok {r['ledger_ok']}"
    )


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Other options go to bench/load.py (e.g. --fast, --timeout, "
        "--http-workers, --sqlite-path, --database-url).",
    )
    parser.add_argument(
        "--serve", choices=["make-run", "single", "cluster", "none"], default="make-run"
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    # About 230 rounds a phase: the p99 judges the slowest two or three, not
    # one (20 players for 30 s gave about 75, and verdicts that flipped
    # between identical runs).
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds per phase")
    parser.add_argument(
        "--spawn-rate", type=float, default=2.0, help="players' sign-ups started a second"
    )
    parser.add_argument("--only", default=",".join(ATTACKS), help="attacks, comma-separated")
    parser.add_argument("--flood-posts", type=int, default=150)
    parser.add_argument("--flood-addresses", type=int, default=15)
    parser.add_argument("--flood-concurrency", type=int, default=15)
    parser.add_argument("--wide-addresses", type=int, default=200)
    parser.add_argument("--body-mib", type=int, default=64)
    parser.add_argument("--body-posts", type=int, default=10)
    parser.add_argument("--slow-clients", type=int, default=300)
    parser.add_argument("--slow-interval", type=float, default=1.0)
    parser.add_argument("--ws-connects", type=int, default=1000)
    own, rest = parser.parse_known_args(argv)
    attacks = [a.strip() for a in own.only.split(",") if a.strip()]
    unknown = sorted(set(attacks) - set(ATTACKS))
    if unknown:
        parser.error(f"unknown attack(s) {', '.join(unknown)}; known: {', '.join(ATTACKS)}")
    for name in ("flood_posts", "flood_addresses", "flood_concurrency", "wide_addresses"):
        if not 1 <= getattr(own, name) <= 1000:
            parser.error(f"--{name.replace('_', '-')} must be 1-1000")
    if not (1 <= own.body_mib <= 1024 and 1 <= own.body_posts <= 100):
        parser.error("--body-mib must be 1-1024 and --body-posts 1-100")
    if not (1 <= own.slow_clients <= 2000 and 0.05 <= own.slow_interval <= 60):
        parser.error("--slow-clients must be 1-2000 and --slow-interval 0.05-60")
    if not 1 <= own.ws_connects <= 5000:
        parser.error("--ws-connects must be 1-5000")
    args = load.parse_args(
        [
            *("--serve", own.serve, "--url", own.url),
            *("--players", str(own.players), "--seconds", str(own.seconds)),
            *("--spawn-rate", str(own.spawn_rate)),
            *rest,
        ]
    )
    for name, value in vars(own).items():
        if name not in ("serve", "url", "players", "seconds", "spawn_rate"):
            setattr(args, name, value)
    args.attacks = attacks
    return args


def raise_fd_limit(wanted: int) -> None:
    """Room for the slow clients and the websockets (held open at once)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    raise_fd_limit(args.slow_clients + args.ws_connects + 1024)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    server = load.start_server(args)
    results = []
    try:
        wait_http(args.url, 60)
        for name in args.attacks:
            result = run_attack(make_attack(name, args), args, server)
            results.append(result)
            print(line(result), flush=True)
    finally:
        if server is not None:
            server.stop()
    summary = {
        "serve": args.serve,
        "server_command": getattr(server, "command", None),
        "players": args.players,
        "seconds": args.seconds,
        "started": started,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "p99_held": all(r["p99_held"] for r in results),
        "ledger_ok": all(r["ledger_ok"] for r in results) if results else None,
        "cores": os.cpu_count(),
        "attacks": results,
    }
    print(json.dumps(summary, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
