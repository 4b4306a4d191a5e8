"""The front door, attacked as one laptop would: huge bodies, heads sent a
byte at a time, and one address opening socket after socket.

Against a real server: the one ``make run`` starts (its command read from
the Makefile, tests/make_run.py) in a subprocess on a free port and a fresh
SQLite file, with production settings; and, when ``CASINO_CLUSTER_URL``
points at one (``make test-cluster``), the cluster behind nginx. Every
connection is on loopback; the attacker's addresses are 127.0.0.x.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.client import http_session
from tests.make_run import free_port, make_run_command, production_env, serving, set_up_site

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")

ROOT = Path(__file__).resolve().parent.parent.parent
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
LIMIT = 1024 * 1024  # CASINO_MAX_BODY_BYTES, the default
BIG = 64 * 1024 * 1024
# What ``make run`` and the cluster's nginx allow for a whole request head,
# and the slack a loaded machine needs on top.
HEAD_SECONDS = 5
BODY_GAP_SECONDS = (
    10  # casino/frontdoor/body_limit.py's BODY_GAP_SECONDS, nginx's client_body_timeout
)
SLACK_SECONDS = 3
SOCKETS_PER_ADDRESS = int(os.environ.get("CASINO_SOCKETS_PER_ADDRESS", "20"))


@pytest.fixture(scope="module")
def make_run(tmp_path_factory):
    """The site as ``make run`` serves it (after its set-up step)."""
    env = production_env(tmp_path_factory.mktemp("front-door"))
    for name in ("CASINO_MAX_BODY_BYTES", "CASINO_SOCKETS_PER_ADDRESS"):
        env.pop(name, None)  # the defaults are what is tested
    set_up_site(env, tmp_path_factory)
    port = free_port()
    with serving(make_run_command("127.0.0.1", port), env, port) as url:
        yield url


@pytest.fixture(params=["make run", pytest.param("cluster", marks=pytest.mark.engines)])
def site(request) -> str:
    """Each attack against make run's server in the fast suite, and against
    the cluster in the cluster stage (which runs this file again with
    CASINO_CLUSTER_URL set, so make run's half is not served twice)."""
    url = os.environ.get("CASINO_CLUSTER_URL")
    if request.param == "cluster":
        if not url:
            pytest.skip("CASINO_CLUSTER_URL names no cluster (make test-cluster sets it)")
        return url.rstrip("/")
    if url:
        pytest.skip("make run's server is attacked in the fast suite")
    return request.getfixturevalue("make_run")


def connect(url: str, source: str = "127.0.0.1") -> socket.socket:
    parts = urlsplit(url)
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect((parts.hostname, parts.port))
    return s


def post_head(url: str, framing: str) -> bytes:
    """The head of a form post to the lobby (no throttle in front of it)."""
    return (
        f"POST / HTTP/1.1\r\nHost: {urlsplit(url).netloc}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\n{framing}\r\n"
    ).encode()


def status_within(s: socket.socket, seconds: float) -> str:
    """The status code the server answered with, or why there was none."""
    s.settimeout(seconds)
    try:
        data = s.recv(4096)
    except TimeoutError:
        return f"no answer in {seconds} s"
    if not data.startswith(b"HTTP/1.1 "):
        return f"not an answer: {data[:40]!r}"
    return data.split(b" ", 2)[1].decode()


def test_a_64_mib_body_is_refused_before_a_byte_of_it_is_sent(site):
    with connect(site) as s:
        s.sendall(post_head(site, f"Content-Length: {BIG}\r\n"))
        started = time.perf_counter()
        assert status_within(s, 1) == "413"
        assert time.perf_counter() - started < 1


def test_a_64_mib_body_sent_flat_out_is_refused_long_before_its_end(site):
    """The client keeps sending; the answer comes while most of the body is
    still unsent (the server never waited for it)."""
    sent = 0
    block = b"a" * 65536
    with connect(site) as s:
        s.sendall(post_head(site, f"Content-Length: {BIG}\r\n"))
        s.setblocking(False)
        started = time.perf_counter()
        answer = b""
        while not answer and time.perf_counter() - started < 5:
            readable, writable, _ = select.select([s], [s], [], 0.5)
            if readable:
                answer = s.recv(4096)
            elif writable and sent < BIG:
                with contextlib.suppress(BlockingIOError, ConnectionError):
                    sent += s.send(block)
        seconds = time.perf_counter() - started
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert seconds < 1
    assert sent < BIG // 4, f"{sent} bytes went out before the answer"


def test_a_chunked_body_one_byte_over_the_limit_is_refused_without_the_rest(site):
    """No length to go by: the server counts, and answers once the limit is
    passed, while the client still holds the body open (no last chunk)."""
    body = b"a" * (LIMIT + 1)
    with connect(site) as s:
        s.sendall(post_head(site, "Transfer-Encoding: chunked\r\n"))
        s.sendall(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        started = time.perf_counter()
        assert status_within(s, 1) == "413"
        assert time.perf_counter() - started < 1


def test_a_refused_chunked_body_does_not_keep_its_connection(site):
    """A body refused mid-stream leaves nothing behind: the server closes
    the connection after its 413 while the client still holds its end open
    (on make run's server such connections once stayed open for good, a
    quarter of a MiB each, after their clients had gone)."""
    piece = f"{4096:x}\r\n".encode() + b"a" * 4096 + b"\r\n"
    with connect(site) as s:
        s.sendall(post_head(site, "Transfer-Encoding: chunked\r\n"))
        s.sendall(piece * (LIMIT // 4096 + 40))  # past the limit, no last chunk
        assert status_within(s, 5) == "413"
        assert closed_after(s, None, 10) is not None, "the connection was kept open"


def test_a_body_in_one_byte_chunks_is_cut_off_after_a_bounded_number_of_them(make_run):
    """A few thousand one-byte chunks (six bytes on the wire for each byte
    of body) once cost make run's server seconds of CPU per connection; it
    now refuses the body after at most 1,024 pieces, with a reason.
    (The cluster's nginx reads chunked bodies itself.)"""
    site = make_run
    pieces = b"1\r\na\r\n" * 4000
    with connect(site) as s:
        s.sendall(post_head(site, "Transfer-Encoding: chunked\r\n"))
        with contextlib.suppress(ConnectionError):
            s.sendall(pieces)
        s.settimeout(10)
        answer = b""
        while chunk := s.recv(4096):  # to the end: the server closes after its answer
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:60]
    assert b"too many small pieces" in answer


def test_a_chunked_body_of_exactly_the_limit_still_reaches_the_site(site):
    """The limit is the limit: the guard does not refuse a body at it. The
    site reads it all and answers the post itself: a CSRF cookie but no
    token in the form, 403. (Without the cookie Django refuses before
    reading, and the cluster's gunicorn closes on nginx mid-body: a 502.)"""
    cookie = requests.get(site + "/accounts/login/", timeout=10).cookies["csrftoken"]
    body = b"a" * LIMIT
    with connect(site) as s:
        s.sendall(post_head(site, f"Cookie: csrftoken={cookie}\r\nTransfer-Encoding: chunked\r\n"))
        s.sendall(f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
        assert status_within(s, 10) == "403"


def closed_after(s: socket.socket, trickle: bytes | None, cap: float) -> float | None:
    """Seconds until the server closes ``s`` while it sends ``trickle`` a
    byte every half second (or nothing); None if still open after ``cap``."""
    started = time.perf_counter()
    s.settimeout(0.5)
    while time.perf_counter() - started < cap:
        try:
            if not s.recv(4096):
                return time.perf_counter() - started
        except TimeoutError:
            pass
        except ConnectionError:
            return time.perf_counter() - started
        if trickle:
            try:
                s.sendall(trickle)
            except OSError:
                return time.perf_counter() - started
    return None


def head_a_byte_at_a_time(site: str) -> str | None:
    with connect(site, "127.0.0.5") as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: {urlsplit(site).netloc}\r\nX-Slow: ".encode())
        if closed_after(s, b"a", HEAD_SECONDS + SLACK_SECONDS) is None:
            return "a head sent a byte at a time was still open"
    return None


def no_head(site: str) -> str | None:
    with connect(site, "127.0.0.6") as s:
        if closed_after(s, None, HEAD_SECONDS + SLACK_SECONDS) is None:
            return "a connection that never sent a head was still open"
    return None


def body_that_stops(site: str) -> str | None:
    """The head is whole, the body stalls: the request is dropped (a 408 from
    make run, a closed connection from nginx) instead of held open."""
    with connect(site, "127.0.0.7") as s:
        s.sendall(post_head(site, "Content-Length: 100\r\n") + b"a=1&b=2")
        started = time.perf_counter()
        s.settimeout(BODY_GAP_SECONDS + SLACK_SECONDS)
        try:
            answer = s.recv(4096)
        except TimeoutError:
            return "a stalled body was still open"
        except ConnectionError:
            answer = b""
    if not (answer == b"" or answer.startswith(b"HTTP/1.1 408 ")):
        return f"a stalled body was answered {answer[:60]!r}"
    if time.perf_counter() - started >= BODY_GAP_SECONDS + SLACK_SECONDS:
        return "a stalled body was held past its gap"
    return None


SLOW_CLIENTS = (head_a_byte_at_a_time, no_head, body_that_stops)


@pytest.mark.waits
def test_slow_clients_are_cut_off(site):
    """A head sent a byte at a time, a connection that never sends one, and a
    body that stops coming: each is closed within its limit. The three wait
    side by side, from three addresses."""
    with ThreadPoolExecutor(len(SLOW_CLIENTS)) as pool:
        failures = [f for f in pool.map(lambda client: client(site), SLOW_CLIENTS) if f]
    assert failures == []


def sign_up(site: str, source: str) -> str:
    """A new player's session cookie, signed up through the form."""
    browser = http_session(source)
    form = browser.get(site + "/accounts/signup/", timeout=10)
    password = "Door-" + secrets.token_urlsafe(10)
    signed = browser.post(
        site + "/accounts/signup/",
        data={
            "csrfmiddlewaretoken": CSRF.search(form.text).group(1),
            "username": f"door-{secrets.token_hex(4)}",
            "password1": password,
            "password2": password,
        },
        headers={"Origin": site, "Referer": site + "/accounts/signup/"},
        timeout=30,
    )
    assert signed.status_code == 200 and signed.url == site + "/", signed.text[:300]
    return f"sessionid={browser.cookies['sessionid']}"


def open_socket(site: str, source: str, cookie: str):
    ws = "ws://" + urlsplit(site).netloc + "/ws/war/casino-war/"
    return websocket.create_connection(
        ws, origin=site, cookie=cookie, timeout=10, socket=connect(site, source)
    )


def test_one_address_cannot_hold_more_sockets_than_the_cap_while_another_gets_in(site):
    cookie = sign_up(site, "127.0.0.6")
    held = []
    try:
        for _ in range(SOCKETS_PER_ADDRESS):
            held.append(open_socket(site, "127.0.0.7", cookie))
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            open_socket(site, "127.0.0.7", cookie)
        assert refused.value.status_code == 429
        # Another household (another player: this one holds as many sockets
        # as a player may) is not held up by this one.
        open_socket(site, "127.0.0.8", sign_up(site, "127.0.0.9")).close()
        # A socket closed frees its place.
        held.pop().close()
        deadline = time.monotonic() + 5
        while True:
            try:
                held.append(open_socket(site, "127.0.0.7", cookie))
                break
            except websocket.WebSocketBadStatusException:
                assert time.monotonic() < deadline, "the closed socket's place never freed"
                time.sleep(0.2)
    finally:
        for ws in held:
            ws.close()


def test_a_socket_message_over_64_kib_closes_the_socket_unread(site):
    """A page's messages are under 4,096 characters (the consumers drop
    longer ones); the server closes a socket whose message passes 64 KiB
    (1009, too big) instead of reading megabytes of it. Closed with part of
    the message still unread, the server's side may reset the connection
    before its close frame is read here (seen behind the cluster's nginx):
    that is a close too, only without the code."""
    ws = open_socket(site, "127.0.0.11", sign_up(site, "127.0.0.12"))
    try:
        ws.send("a" * (64 * 1024 + 1))
        try:
            while True:
                opcode, frame = ws.recv_data_frame(control_frame=True)
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    break
        except ConnectionResetError:
            return
        assert int.from_bytes(frame.data[:2], "big") == 1009
    finally:
        ws.close()
