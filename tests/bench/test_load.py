"""The load bench (bench/load.py, bench/locustfile.py, bench/client.py)
against the site as ``make run`` serves it: the players play over either
transport, the figures come from Locust's statistics, and a run whose
pieces cannot start stops with the reason and a non-zero exit."""

from __future__ import annotations

import csv
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bench.stack import MakeRun, free_port
from tests.make_run import set_up_site

requests = pytest.importorskip("requests")
pytest.importorskip("websocket")
# Not imported here: Locust patches the standard library with gevent.
if importlib.util.find_spec("locust") is None:
    pytest.skip("Locust is not installed", allow_module_level=True)

from bench import client  # noqa: E402 - after the skips above

pytestmark = pytest.mark.waits

ROOT = Path(__file__).resolve().parent.parent.parent
# The interpreter this virtual environment was made from: a real Python
# without the environment's packages (Locust among them), as a .venv with
# the runtime requirements alone is for the players.
BASE_PYTHON = Path(sys.base_prefix) / "bin" / "python3"
_addresses = iter(range(200, 250))


def bench(*args: str, python: str = sys.executable, seconds: float = 240):
    return subprocess.run(
        [python, *args], cwd=ROOT, capture_output=True, text=True, timeout=seconds
    )


def load_on(site: tuple[str, str], *args: str):
    """bench/load.py against the running ``site``, its ledger read from its SQLite file."""
    url, sqlite = site
    return bench("bench/load.py", "--serve", "none", "--url", url, "--sqlite-path", sqlite, *args)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """``make run``'s server as ``bench/load.py --serve make-run`` starts it
    (its set-up made once per test run): its URL and the SQLite file the
    ledger check reads."""
    server = MakeRun(
        "127.0.0.1", free_port(), set_up=lambda env: set_up_site(env, tmp_path_factory)
    )
    yield server.url, server.env["CASINO_SQLITE_PATH"]
    server.stop()


def seated_player(url: str, transport: str) -> client.Player:
    n = next(_addresses)
    player = client.Player(
        url,
        f"bench-{transport}-{n}-{random.randrange(10**6)}",
        address=client.client_address(n),
        report=client.Report(),
        rng=random.Random(n),
        pace=0,
        transport=transport,
    )
    player.sign_up()
    player.sit_down()
    return player


def test_an_interpreter_without_locust_stops_each_bench_with_the_reason():
    probe = bench(
        "-c",
        "import importlib.util as u; print(u.find_spec('locust') is None)",
        python=str(BASE_PYTHON),
    )
    assert probe.stdout.strip() == "True", "the base interpreter has Locust: no test here"
    port = free_port()
    for script in (
        "bench/load.py",
        "bench/live.py",
        "bench/chaos.py",
        "bench/flood.py",
        "bench/abuse.py",
    ):
        done = bench(
            script,
            "--serve",
            "make-run",
            "--url",
            f"http://127.0.0.1:{port}",
            python=str(BASE_PYTHON),
            seconds=60,
        )
        assert done.returncode == 2, (script, done.stdout, done.stderr[-500:])
        assert "locust" in done.stderr and str(BASE_PYTHON) in done.stderr, done.stderr[-500:]
        assert "Traceback" not in done.stderr
        assert done.stdout == ""  # nothing started, no figures


@pytest.mark.parametrize("transport", ["http", "socket"])
def test_a_player_plays_both_games_over_each_transport(site, transport):
    url, _ = site
    who = seated_player(url, transport)
    assert who.play("baccarat") and who.play("war") and who.play("baccarat")
    who.close()
    assert who.report.errors == []
    assert [game for _, game, _ in who.report.rounds] == ["baccarat", "war", "baccarat"]
    assert len(who.seen_rounds) == 2  # each Baccarat round's reveal reached the socket
    assert {"baccarat_bet", "war_deal"} <= set(who.report.requests)


@pytest.mark.parametrize("transport", ["http", "socket"])
def test_a_refused_bet_reads_the_sites_reason_over_each_transport(site, transport):
    url, _ = site
    who = seated_player(url, transport)
    who.rng = random.Random(0)
    slip = {"slip_key": who.bac_key, "table_version": who.bac_version, "player": "99999999"}
    answer = who.bet_baccarat(slip, client.time.perf_counter())
    refused = client.BAC_SLIP_ERROR.search(answer)
    assert refused is not None and refused.group(1).strip(), answer[:300]
    assert client.BAC_PLACED.search(answer) is None
    who.close()
    assert who.seen_rounds == set()


def test_locust_players_play_and_the_figures_are_locusts(site, tmp_path):
    """Two Locust workers under a master: 3 players seated before the play,
    2 more signing up during it; every one reports, and the figures are the
    ones in Locust's own CSV report."""
    done = load_on(
        site,
        "--players",
        "3",
        "--seconds",
        "3",
        "--spawn-rate",
        "2",
        "--think",
        "1",
        "--transport",
        "http,socket",
        "--report-dir",
        str(tmp_path),
        "--workers",
        "2",
        "--late-players",
        "2",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])["transports"]
    assert list(runs) == ["http", "socket"]
    for transport, run in runs.items():
        assert run["players_ready"] == 3, run["error_samples"]
        assert run["players_started"] == run["players_reported"] == 5, run["error_samples"]
        assert run["signup_while_playing"]["n"] == 2
        assert run["errors"] == 0, run["error_samples"]
        assert run["ledger_ok"] is True and run["reveals_lost"] == 0, run["ledger"]
        # Locust's own report holds the same rounds and their percentiles.
        with open(Path(run["reports"]) / "locust_stats.csv") as f:
            rows = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
        named = {g: ("ROUND", f"{g} [{transport}]") for g in ("baccarat", "war")}
        rounds = sum(int(rows[named[g]]["Request Count"]) for g in ("baccarat", "war"))
        assert rounds == run["rounds"] > 0, transport
        assert float(rows[named["war"]]["99%"]) == run["war"]["p99_ms"]
        assert run["requests"]["baccarat_bet"]["n"] == run["baccarat"]["n"]


def test_players_who_cannot_sit_down_fail_the_run_with_the_reason(site):
    done = load_on(
        site,
        "--players",
        "2",
        "--seconds",
        "2",
        "--spawn-rate",
        "2",
        "--baccarat-table",
        "no-such-table",
    )
    assert done.returncode == 1, done.stdout[-1000:]
    assert "players seated 0 of 2" in done.stderr, done.stderr[-1000:]
    assert "http 404 baccarat_page" in done.stderr


def test_a_server_that_does_not_come_up_fails_the_run_with_the_reason():
    port = free_port()  # nothing listens there
    done = bench(
        "bench/load.py",
        "--serve",
        "none",
        "--url",
        f"http://127.0.0.1:{port}",
        "--players",
        "1",
        "--seconds",
        "1",
        "--wait-server",
        "2",
    )
    assert done.returncode == 1
    assert f"the server at http://127.0.0.1:{port} did not answer" in done.stderr


def test_a_socket_that_drops_before_bet_carries_the_next_bet_on_a_new_one(site):
    url, _ = site
    who = seated_player(url, "socket")
    assert who.play("baccarat")
    assert who.bac_ws is not None
    who.bac_ws.ws.sock.close()  # the network drops the connection
    assert who.play("baccarat")
    who.close()
    assert who.report.errors == []
    assert who.report.counts["socket reconnects"] == 1
    assert len(who.seen_rounds) == 2
