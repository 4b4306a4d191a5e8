"""The cluster's own servers, played for real: gunicorn (HTTP), uvicorn
(websockets) and nginx in front, on PostgreSQL and Redis.

``make test-cluster`` (called by ``make test``) starts a cluster on ports of
its own with two websocket workers and points ``CASINO_CLUSTER_URL`` at it;
without it these are skipped. They talk to it only over HTTP and
websockets, as browsers do, each client from a loopback address of its own
(bench/client.py's players), and a short Locust run (bench/load.py).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")

from bench import client  # noqa: E402

URL = os.environ.get("CASINO_CLUSTER_URL", "").rstrip("/")
pytestmark = [
    pytest.mark.engines,
    pytest.mark.skipif(not URL, reason="needs a running cluster (make test-cluster)"),
]

CSS = re.compile(r'href="(/static/css/[^"]+\.[0-9a-f]{12}\.css)"')
_addresses = iter(range(200, 250))


def signed_up() -> client.Player:
    """A new player, signed up through the form, at both tables with both sockets."""
    n = next(_addresses)
    who = client.Player(
        URL,
        f"cluster-{secrets.token_hex(3)}-{n}",
        address=client.client_address(n),
        report=client.Report(),
        pace=0.0,
    )
    who.sign_up()
    who.sit_down()
    return who


def close_code(sock: client.Socket, seconds: float = 5) -> str:
    sock.thread.join(timeout=seconds)
    return sock.dropped


def test_pages_and_hashed_static_files_through_nginx():
    page = requests.get(URL + "/accounts/login/", timeout=10)
    assert page.status_code == 200
    css = CSS.search(page.text)
    assert css, "the page names its stylesheet by its hashed name"
    response = requests.get(URL + css.group(1), timeout=10)
    assert response.status_code == 200
    assert "immutable" in response.headers["Cache-Control"]


def log_size() -> int:
    """The size of the commitment log's newest checkpoint (0: none yet)."""
    response = requests.get(URL + "/log/checkpoint", timeout=10)
    if response.status_code == 404:
        return 0
    assert response.status_code == 200, response.text
    return int(response.text.splitlines()[1])  # origin, then the tree's size


def test_a_player_plays_both_games_over_http_and_websockets():
    """Baccarat (the reveal over the socket) and War: every round answered,
    every reveal delivered, nothing failed; the cluster's integrator takes
    the rounds into the commitment log's next checkpoint."""
    before = log_size()
    who = signed_up()
    for _ in range(3):
        assert who.play("baccarat")
        assert who.play("war")
    who.close()
    assert who.report.errors == []
    assert [game for _, game, _ in who.report.rounds].count("baccarat") == 3
    assert len(who.seen_rounds) == 3
    deadline = time.monotonic() + 30  # the integrator passes every second
    while (size := log_size()) < before + 6 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert size >= before + 6


def test_a_dropped_socket_reconnects_and_the_next_reveal_arrives():
    who = signed_up()
    assert who.play("baccarat")
    who.bac_ws.ws.sock.close()  # the network drops the connection
    assert who.play("baccarat")
    who.close()
    assert who.report.errors == []
    assert who.report.counts["socket reconnects"] == 1
    assert len(who.seen_rounds) == 2


def test_twenty_locust_players_play_twenty_rounds_of_each_game():
    """bench/load.py against the cluster: Locust's twenty players, all
    seated, play together until each game has twenty rounds (a minute at
    most): zero errors, every reveal delivered, the ledger adds up."""
    database = os.environ.get("DATABASE_URL", "")
    command = [sys.executable, "bench/load.py", "--serve", "none", "--url", URL]
    command += ["--players", "20", "--rounds", "20", "--seconds", "60", "--spawn-rate", "20"]
    command += ["--think", "1", "--timeout", "30"]
    command += ["--database-url", database]
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["players_ready"] == 20, result["error_samples"]
    assert result["errors"] == 0, result["error_samples"]
    assert result["ledger_ok"] is True, result["ledger"]
    assert result["reveals_lost"] == 0
    assert result["baccarat"]["n"] >= 20 and result["war"]["n"] >= 20  # rounds of each game


def test_logout_closes_the_sockets_of_every_tab_on_every_worker():
    who = signed_up()
    other_tab_bac = who.socket(f"/ws/baccarat/{who.baccarat_table}/")
    other_tab_war = who.socket(f"/ws/war/{who.war_table}/")
    sockets = [who.bac_ws, who.war_ws, other_tab_bac, other_tab_war]
    response = who.post("/accounts/logout/", "logout", {}, htmx=False)
    assert response.status_code in (200, 302)
    for sock in sockets:
        assert close_code(sock) == "closed by the server (code 4001)"


def test_a_page_of_another_origin_gets_403():
    who = signed_up()
    cookie = f"sessionid={who.http.cookies['sessionid']}"
    ws_url = URL.replace("http://", "ws://") + "/ws/baccarat/baccarat-social/"
    host = URL.split("://", 1)[1]
    for origin in (f"http://{host.split(':')[0]}:1", f"https://{host}", "http://evil.example"):
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(ws_url, origin=origin, cookie=cookie, timeout=5)
        assert refused.value.status_code == 403, origin
    ok = websocket.create_connection(ws_url, origin=URL, cookie=cookie, timeout=5)
    ok.close()


def test_a_login_flood_from_one_address_gets_429_from_nginx():
    flood = client.http_session(client.client_address(next(_addresses)))
    statuses = []
    for n in range(15):
        response = flood.post(
            URL + "/accounts/login/",
            data={"username": f"random-{n}", "password": "x"},
            timeout=10,
        )
        statuses.append(response.status_code)
    assert statuses[0] != 429
    assert statuses.count(429) >= 5, statuses
    assert "Too many log-in or sign-up attempts" in response.text
    # Another address is not held back.
    other = client.http_session(client.client_address(next(_addresses)))
    assert other.get(URL + "/accounts/login/", timeout=10).status_code == 200


def terminate_other_connections() -> int:
    """Every client connection to the cluster's database but this one ended
    by PostgreSQL, as a restart or a failover ends them; how many."""
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'"
        ).fetchall()
    return sum(1 for (ended,) in rows if ended)


@pytest.mark.ends_db_connections
def test_connections_postgresql_ends_cost_no_page_and_at_most_one_round():
    """PostgreSQL ends every connection (a restart, a failover). The HTTP
    workers check a pooled connection as they take it: every page answers.
    The websocket workers keep one connection a thread, unchecked: a BET or
    DEAL on it may answer "went wrong" with nothing taken, a handshake may
    fail once (the page's socket tries again); the next plays, or opens."""
    who = signed_up()
    assert who.play("baccarat") and who.play("war")
    assert terminate_other_connections() >= 1
    for _ in range(6):  # more than a worker's pool of four
        assert who.get(f"/war/{who.war_table}/", "war page").status_code == 200
    for game in ("baccarat", "war"):
        errors = len(who.report.errors)
        if not who.play(game):
            assert [kind for _, kind, _ in who.report.errors[errors:]] == ["went wrong"]
        assert who.play(game), who.report.errors[errors:]
    # Each websocket worker, straight (as nginx would send a page's socket
    # trying again): a new socket opens by the second handshake.
    nginx = (Path(os.environ["CASINO_CLUSTER_DIR"]) / "nginx.conf").read_text()
    upstream = nginx.split("upstream casino_ws", 1)[1].split("}", 1)[0]
    ports = re.findall(r"server 127\.0\.0\.1:(\d+)", upstream)
    assert ports
    cookie = "; ".join(f"{c.name}={c.value}" for c in who.http.cookies)
    for port in ports:
        opened = []
        for _ in range(2):
            try:
                sock = websocket.create_connection(
                    f"ws://127.0.0.1:{port}/ws/war/{who.war_table}/",
                    host=URL.split("://", 1)[1],  # the site's, as nginx passes it
                    origin=URL,
                    cookie=cookie,
                    timeout=10,
                )
            except Exception as exc:  # the handshake that met the dead connection
                opened.append(str(exc)[:80])
                continue
            sock.close()
            opened.append("open")
            break
        assert opened[-1] == "open", (port, opened)
    who.close()
