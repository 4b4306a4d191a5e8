"""The cluster's own servers, played for real: gunicorn (HTTP), daphne
(websockets) and nginx in front, on PostgreSQL and Redis.

``make test-cluster`` (called by ``make test``) starts a cluster on ports of
its own with two websocket workers and points ``CASINO_CLUSTER_URL`` at it;
without it these are skipped. They talk to it only over HTTP and
websockets, as browsers do, each client from a loopback address of its own
(bench/load.py's players).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets

import pytest

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")

from bench import load  # noqa: E402

URL = os.environ.get("CASINO_CLUSTER_URL", "").rstrip("/")
pytestmark = pytest.mark.skipif(not URL, reason="needs a running cluster (make test-cluster)")

CSS = re.compile(r'href="(/static/css/[^"]+\.[0-9a-f]{12}\.css)"')
_addresses = iter(range(200, 250))


def player(n_players: int = 1, **options) -> argparse.Namespace:
    args = load.parse_args(["--url", URL, "--players", str(n_players)])
    for key, value in options.items():
        setattr(args, key, value)
    return args


def signed_up() -> load.Player:
    """A new player, signed up through the form, at both tables with both sockets."""
    who = load.Player(next(_addresses), player(), load.Stats(), secrets.token_hex(3))
    who.sign_up()
    who.sit_down()
    return who


def close_code(sock: load.Socket, seconds: float = 5) -> str:
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


def test_players_play_both_games_over_http_and_websockets():
    """Three players, a few seconds of Baccarat (reveal over the socket) and
    War: every round answered, every reveal delivered, nothing failed."""
    args = player(3, seconds=6.0, pace=0.0, think=0.3, addresses=0)
    result, players = load.run(args, None)
    assert result["errors"] == 0, result["error_kinds"]
    assert result["baccarat"]["rounds"] >= 3
    assert result["war"]["rounds"] >= 3


def test_logout_closes_the_sockets_of_every_tab_on_every_worker():
    who = signed_up()
    other_tab_bac = who._socket(f"/ws/baccarat/{who.args.baccarat_table}/")
    other_tab_war = who._socket(f"/ws/war/{who.args.war_table}/")
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
    flood = load.http_session(load.client_address(next(_addresses)))
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
    other = load.http_session(load.client_address(next(_addresses)))
    assert other.get(URL + "/accounts/login/", timeout=10).status_code == 200
