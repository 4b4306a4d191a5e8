"""Which ASGI server for ``make run``: daphne, uvicorn, hypercorn and granian
side by side on the checks of issue 26 (docs/front-door.md has the figures).

Run from the repository root::

    .venv/bin/python bench/servers.py                       # every server installed
    .venv/bin/python bench/servers.py --servers hypercorn,daphne --seconds 20

Servers not in the lock are tried when importable: for a comparison,
``pip install --target /tmp/servers uvicorn[standard] granian`` and run with
``PYTHONPATH=/tmp/servers``. Each server serves casino.asgi (the guards of
casino/guard.py included) on a fresh SQLite file with production settings,
started with its own limits as ``make run`` would (a 5 s head timeout where
the server has one), and is checked for:

* ``len_head_only``: a POST whose ``Content-Length`` is 64 MiB and whose
  body never comes: the status and how long it took (a server that waits
  for the body times out here after 5 s);
* ``len_stream`` / ``chunked_stream``: 64 MiB sent as fast as the server
  takes it, with a length and chunked: the status, the seconds and the MiB
  the client got to send before the answer (socket buffers included), and
  the server's RSS growth;
* ``chunked_limit_plus_one``: a chunked body of the limit plus one byte,
  then nothing: whether the 413 comes without the rest;
* ``slow_head_s`` / ``idle_s``: when the server closes a connection whose
  head comes a byte a second, or that sends nothing (capped at 30 s);
* ``p50/p99`` quiet and under 300 slow-head connections from one address
  (each reopened when the server closes it), three players playing both
  games from addresses of their own; RSS before and during the attack;
* the websockets (sign up, both tables' sockets, a round of each game, a
  foreign origin refused), a hashed static file, the socket cap (the
  21st socket from one address refused, another address let in).

Ratios are within one run (the machine is shared). Every connection is on
127.0.0.0/8; every wait has a deadline. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import multiprocessing
import os
import re
import secrets
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import requests
import websocket

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import client
from bench.metrics import percentile
from bench.stack import production_env

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
LIMIT = 1024 * 1024
BIG = 64 * 1024 * 1024
HEAD_TIMEOUT_S = 5
CSS = re.compile(r'href="(/static/css/[^"]+\.[0-9a-f]{12}\.css)"')
ATTACKER = "127.0.0.77"


def commands(host: str, port: int) -> dict[str, list[str]]:
    app = "casino.asgi:application"
    return {
        "daphne": [PY, "-m", "daphne", "-b", host, "-p", str(port), app],
        "uvicorn": [
            PY, "-m", "uvicorn", "--host", host, "--port", str(port), "--lifespan", "off",
            "--http", "httptools", "--ws", "websockets", "--timeout-keep-alive", "5",
            "--no-access-log", app,
        ],
        # As the Makefile's run target starts it (casino/hypercorn_conf.py).
        "hypercorn": [
            PY, "-m", "hypercorn", "-c", "python:casino.hypercorn_conf",
            "--bind", f"{host}:{port}", "--keep-alive", str(HEAD_TIMEOUT_S), app,
        ],
        # The same with uvloop's event loop (hypercorn's uvloop worker class).
        "hypercorn-uvloop": [
            PY, "-m", "hypercorn", "-c", "python:casino.hypercorn_conf", "-k", "uvloop",
            "--bind", f"{host}:{port}", "--keep-alive", str(HEAD_TIMEOUT_S), app,
        ],
        "granian": [
            PY, "-m", "granian", "--interface", "asginl", "--host", host, "--port", str(port),
            "--workers", "1", "--loop", "asyncio", "--http", "1",
            "--http1-header-read-timeout", str(HEAD_TIMEOUT_S * 1000), "--log-level", "warning",
            app,
        ],
    }  # fmt: skip


MODULES = {
    "daphne": "daphne",
    "uvicorn": "uvicorn",
    "hypercorn": "hypercorn",
    "hypercorn-uvloop": "uvloop",
    "granian": "granian",
}


# ------------------------------------------------------------------ the server


def tree_pids(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                ppid = int(
                    Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1]
                )
                children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def rss_mib(pids: list[int]) -> float:
    total = 0
    for p in {q for pid in pids for q in tree_pids(pid)}:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return round(total / 1024, 1)


class Server:
    def __init__(self, name: str, env: dict[str, str], host: str, port: int) -> None:
        self.name = name
        self.url = f"http://{host}:{port}"
        self.host, self.port = host, port
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            commands(host, port)[name], cwd=ROOT, env=env, stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{name} exited: {self.log_tail()}")
            try:
                requests.get(self.url + "/accounts/login/", timeout=5)
                return
            except requests.RequestException:
                time.sleep(0.2)
        raise SystemExit(f"{name} did not start: {self.log_tail()}")

    def pids(self) -> list[int]:
        return [self.proc.pid]

    def rss(self) -> float:
        return rss_mib(self.pids())

    def log_tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-1500:]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()


class External(Server):
    """A site already running (the cluster): its processes from pid files."""

    def __init__(self, url: str, pidfiles: list[str]) -> None:
        parts = urlsplit(url)
        self.name = "external"
        self.url = url.rstrip("/")
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.pidfiles = pidfiles

    def pids(self) -> list[int]:
        return [int(Path(p).read_text().split()[0]) for p in self.pidfiles]

    def log_tail(self) -> str:
        return ""

    def stop(self) -> None:
        pass


def prepare(folder: Path) -> dict[str, str]:
    env = {
        **production_env(folder),
        "DJANGO_LOG_LEVEL": "ERROR",
        "CASINO_REVEAL_DELAY": "0",
        "CASINO_REVEAL_FAST_DELAY": "0",
        # The players sign up from addresses of their own; the throttle is
        # not what is measured here.
        "CASINO_CREDENTIAL_POSTS": "0",
        "CASINO_MAX_BODY_BYTES": str(LIMIT),
        "CASINO_SOCKETS_PER_ADDRESS": "20",
    }
    for command in (["migrate", "--no-input", "-v", "0"], ["setup_casino"],
                    ["collectstatic", "--no-input", "-v", "0"]):  # fmt: skip
        subprocess.run([PY, "manage.py", *command], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    return env


# ------------------------------------------------------------------ bodies


def raw(server: Server, source: str = "127.0.0.1") -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect((server.host, server.port))
    return s


def head(path: str, host: str, extra: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\n{extra}\r\n"
    ).encode()


def read_status(s: socket.socket, seconds: float) -> str:
    """The status code of the answer, 'closed' or 'none in {seconds} s'."""
    s.settimeout(seconds)
    try:
        data = s.recv(4096)
    except TimeoutError:
        return f"none in {seconds:g} s"
    except OSError as exc:
        return type(exc).__name__
    if not data:
        return "closed"
    return data.split(b" ", 2)[1].decode(errors="replace") if data.startswith(b"HTTP/") else "?"


def len_head_only(server: Server) -> dict:
    with raw(server) as s:
        t0 = time.perf_counter()
        s.sendall(head("/", "127.0.0.1", f"Content-Length: {BIG}\r\n"))
        status = read_status(s, 5)
        return {"status": status, "s": round(time.perf_counter() - t0, 3)}


def stream(server: Server, chunked: bool) -> dict:
    """Send 64 MiB as fast as the server takes it; stop at its answer."""
    before = server.rss()
    peak = before
    extra = "Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {BIG}\r\n"
    block = b"a" * 65536
    piece = (b"10000\r\n" + block + b"\r\n") if chunked else block
    sent = 0
    status = "none"
    with raw(server) as s:
        t0 = time.perf_counter()
        s.sendall(head("/", "127.0.0.1", extra))
        s.setblocking(False)
        buffered = b""
        while time.perf_counter() - t0 < 20:
            readable, writable, _ = select.select([s], [s] if sent < BIG else [], [], 0.5)
            if readable:
                try:
                    data = s.recv(4096)
                except OSError as exc:
                    status = type(exc).__name__
                    break
                status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "closed"
                break
            if writable:
                try:
                    if not buffered:
                        buffered = piece
                    n = s.send(buffered)
                    buffered = buffered[n:]
                    sent += n
                except BlockingIOError:
                    pass
                except OSError as exc:
                    status = type(exc).__name__
                    break
                if sent >= BIG and chunked:
                    s.setblocking(True)
                    s.sendall(b"0\r\n\r\n")
            if int(time.perf_counter() * 4) % 2 == 0:
                peak = max(peak, server.rss())
        seconds = time.perf_counter() - t0
    peak = max(peak, server.rss())
    return {
        "status": status,
        "s": round(seconds, 3),
        "mib_sent": round(sent / 2**20, 1),
        "rss_growth_mib": round(peak - before, 1),
    }


def chunked_limit_plus_one(server: Server) -> dict:
    with raw(server) as s:
        s.sendall(head("/", "127.0.0.1", "Transfer-Encoding: chunked\r\n"))
        body = b"a" * (LIMIT + 1)
        s.sendall(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        t0 = time.perf_counter()
        status = read_status(s, 5)
        return {"status": status, "s": round(time.perf_counter() - t0, 3)}


# ------------------------------------------------------------------ slow heads


def closes_after(server: Server, trickle: bool, cap: float = 30) -> float | None:
    """Seconds until the server closes a connection that trickles its head
    a byte a second (or sends nothing); None when it had not after ``cap``."""
    with raw(server) as s:
        t0 = time.perf_counter()
        if trickle:
            s.sendall(b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        s.settimeout(1)
        while time.perf_counter() - t0 < cap:
            try:
                if not s.recv(4096):
                    return round(time.perf_counter() - t0, 1)
            except TimeoutError:
                pass
            except OSError:
                return round(time.perf_counter() - t0, 1)
            if trickle:
                try:
                    s.sendall(b"a")
                except OSError:
                    return round(time.perf_counter() - t0, 1)
    return None


def slow_heads(host: str, port: int, count: int, seconds: float, out) -> None:
    """``count`` connections from ATTACKER trickling their heads a byte a
    second for ``seconds``, each opened again when the server closes it (its
    own process, so its work does not share the players' interpreter)."""

    async def one(stats: dict) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.open_connection(host, port, local_addr=(ATTACKER, 0))
            except OSError:
                stats["refused"] += 1
                await asyncio.sleep(1)
                continue
            stats["opened"] += 1
            try:
                writer.write(b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                while time.monotonic() < end:
                    await writer.drain()
                    with contextlib.suppress(TimeoutError):
                        if not await asyncio.wait_for(reader.read(1024), 1):
                            break
                    writer.write(b"a")
            except OSError:
                pass
            finally:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()

    async def main() -> dict:
        stats = {"opened": 0, "refused": 0}
        await asyncio.gather(*(one(stats) for _ in range(count)))
        return stats

    out.put(asyncio.run(main()))


def play(server: Server, players: list[client.Player], seconds: float) -> list[float]:
    """Rounds of both games by every player for ``seconds``; their latencies."""
    for player in players:
        player.report.rounds.clear()
    stop = time.perf_counter() + seconds

    def run(player: client.Player) -> None:
        n = 0
        while time.perf_counter() < stop:
            player.play("baccarat" if n % 2 == 0 else "war")
            n += 1
            time.sleep(0.2)

    threads = [threading.Thread(target=run, args=(p,), daemon=True) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    return [s for p in players for (_end, _game, s) in p.report.rounds]


def players_p99(server: Server, seconds: float) -> dict:
    """Quiet and attacked windows alternated twice (the machine's other load
    drifts), ``seconds`` of each in all."""
    players = []
    for n in range(3):
        report = client.Report()
        player = client.Player(
            server.url, f"p{n}-{secrets.token_hex(3)}", address=client.client_address(n, 1),
            report=report, timeout=15,
        )  # fmt: skip
        player.sign_up()
        player.sit_down()
        players.append(player)
    quiet: list[float] = []
    attacked: list[float] = []
    cpu = {"quiet": 0.0, "attacked": 0.0}
    rss = {"quiet": server.rss(), "attacked": 0.0}
    opened = refused = 0
    for _ in range(2):
        c0 = cpu_seconds(server.pids())
        quiet += play(server, players, seconds / 2)
        cpu["quiet"] += cpu_seconds(server.pids()) - c0
        results: multiprocessing.Queue = multiprocessing.Queue()
        attack = multiprocessing.Process(
            target=slow_heads,
            args=(server.host, server.port, 300, seconds / 2 + 6, results),
            daemon=True,
        )
        attack.start()
        time.sleep(4)  # the connections are open and trickling
        c0 = cpu_seconds(server.pids())
        attacked += play(server, players, seconds / 2)
        cpu["attacked"] += cpu_seconds(server.pids()) - c0
        rss["attacked"] = max(rss["attacked"], server.rss())
        stats = results.get(timeout=60)
        attack.join(10)
        opened += stats["opened"]
        refused += stats["refused"]
    rss["after"] = server.rss()
    errors = sum(len(p.report.errors) for p in players)
    for p in players:
        p.close()
    q99, a99 = percentile(quiet, 99), percentile(attacked, 99)
    return {
        "rounds_quiet": len(quiet),
        "rounds_attacked": len(attacked),
        "p50_quiet_ms": round(1000 * percentile(quiet, 50), 1) if quiet else None,
        "p99_quiet_ms": round(1000 * q99, 1) if q99 else None,
        "p50_attacked_ms": round(1000 * percentile(attacked, 50), 1) if attacked else None,
        "p99_attacked_ms": round(1000 * a99, 1) if a99 else None,
        "p99_within_rule": bool(q99 and a99 and a99 <= max(2 * q99, q99 + 0.05)),
        "cpu_ms_per_round_quiet": round(1000 * cpu["quiet"] / max(1, len(quiet)), 1),
        "cpu_ms_per_round_attacked": round(1000 * cpu["attacked"] / max(1, len(attacked)), 1),
        "player_errors": errors,
        "rss_quiet_mib": rss["quiet"],
        "rss_attacked_mib": rss["attacked"],
        "rss_after_mib": rss["after"],
        "slow_connections_opened": opened,
        "slow_connections_refused": refused,
    }


def attack_cost(server: Server, seconds: float) -> dict:
    """300 slow heads for ``seconds`` with nobody playing: the server's CPU
    share and its RSS every 5 s (flat, or growing with the connections
    opened)."""
    results: multiprocessing.Queue = multiprocessing.Queue()
    attack = multiprocessing.Process(
        target=slow_heads, args=(server.host, server.port, 300, seconds, results), daemon=True
    )
    rss = [server.rss()]
    c0, t0 = cpu_seconds(server.pids()), time.perf_counter()
    attack.start()
    while time.perf_counter() - t0 < seconds:
        time.sleep(5)
        rss.append(server.rss())
    stats = results.get(timeout=60)
    attack.join(10)
    share = (cpu_seconds(server.pids()) - c0) / (time.perf_counter() - t0)
    return {"attack_cpu_pct": round(100 * share, 1), "attack_rss_mib": rss, **stats}


def cpu_seconds(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in {q for pid in pids for q in tree_pids(pid)}:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:13]) / tick
    return total


# ------------------------------------------------------------------ the rest


def sockets_and_static(server: Server) -> dict:
    out: dict = {}
    report = client.Report()
    player = client.Player(
        server.url, f"ws-{secrets.token_hex(3)}", address="127.0.2.2", report=report
    )
    player.sign_up()
    player.sit_down()
    out["rounds_played"] = sum(player.play(g) for g in ("baccarat", "war", "baccarat"))
    out["round_errors"] = [e[1] for e in report.errors]
    cookie = "; ".join(f"{c.name}={c.value}" for c in player.http.cookies)
    ws_url = "ws" + server.url[4:] + "/ws/baccarat/baccarat-social/"
    try:
        websocket.create_connection(ws_url, origin="http://127.0.0.1:1", cookie=cookie, timeout=5)
        out["foreign_origin"] = "accepted"
    except websocket.WebSocketBadStatusException as exc:
        out["foreign_origin"] = exc.status_code
    page = player.http.get(server.url + "/accounts/login/", timeout=10)
    css = CSS.search(page.text)
    static = player.http.get(server.url + css.group(1), timeout=10) if css else None
    out["static"] = (static.status_code, static.headers.get("Cache-Control")) if static else None
    # The cap: 20 open from one address, the 21st refused, another address in.
    held = []
    try:
        for _ in range(20):
            held.append(
                websocket.create_connection(
                    ws_url,
                    origin=server.url,
                    cookie=cookie,
                    timeout=5,
                    socket=bound("127.0.2.4", server),
                )  # fmt: skip
            )
        try:
            websocket.create_connection(ws_url, origin=server.url, cookie=cookie, timeout=5,
                                        socket=bound("127.0.2.4", server)).close()  # fmt: skip
            out["socket_21"] = "accepted"
        except websocket.WebSocketBadStatusException as exc:
            out["socket_21"] = exc.status_code
        other = websocket.create_connection(ws_url, origin=server.url, cookie=cookie, timeout=5,
                                            socket=bound("127.0.2.5", server))  # fmt: skip
        out["other_address"] = "accepted"
        other.close()
    except Exception as exc:
        out["socket_cap_error"] = f"{type(exc).__name__}: {exc}"
    finally:
        for ws in held:
            ws.close()
        player.close()
    return out


def bound(source: str, server: Server) -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(5)
    s.connect((server.host, server.port))
    return s


def measure(server: Server, seconds: float, mode: str) -> dict:
    """Every check (``mode`` "all"), the players' windows alone ("players")
    or the slow heads' cost alone ("attack")."""
    result: dict = {"server": server.name, "rss_start_mib": server.rss()}
    try:
        if mode == "attack":
            result.update(attack_cost(server, seconds))
            return result
        if mode == "all":
            result["len_head_only"] = len_head_only(server)
            result["len_stream"] = stream(server, chunked=False)
            result["chunked_stream"] = stream(server, chunked=True)
            result["chunked_limit_plus_one"] = chunked_limit_plus_one(server)
            timings: dict = {}
            threads = [
                threading.Thread(
                    target=lambda: timings.update(slow_head_s=closes_after(server, True))
                ),
                threading.Thread(target=lambda: timings.update(idle_s=closes_after(server, False))),
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(40)
            result.update(timings)
            result["sockets_static"] = sockets_and_static(server)
        result.update(players_p99(server, seconds))
    finally:
        result["log_tail"] = server.log_tail()[-600:]
        server.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default="daphne,uvicorn,hypercorn,granian")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--port", type=int, default=18650)
    parser.add_argument("--mode", choices=["all", "players", "attack"], default="all")
    parser.add_argument("--url", help="measure a site already running (the cluster) instead")
    parser.add_argument(
        "--pidfile", action="append", default=[], help="with --url: a process to weigh (RSS, CPU)"
    )
    args = parser.parse_args(argv)
    if args.url:
        result = measure(External(args.url, args.pidfile), args.seconds, args.mode)
        print(json.dumps([result]))
        return 0
    folder = Path(tempfile.mkdtemp(prefix="casino-servers-"))
    results = []
    try:
        env = prepare(folder)
        for name in args.servers.split(","):
            if importlib.util.find_spec(MODULES[name]) is None:
                print(f"{name}: not installed, skipped", file=sys.stderr)
                continue
            print(f"{name} ...", file=sys.stderr, flush=True)
            server = Server(name, env, "127.0.0.1", args.port)
            results.append(measure(server, args.seconds, args.mode))
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
