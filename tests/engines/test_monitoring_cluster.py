"""The cluster's monitoring, for real: nginx answers /healthz and /readyz and
hides /metrics, and the cluster's Prometheus scrapes every server program
(each program's scrape reads all of its processes) and sees the rounds a
player plays and the sockets they hold.

``make test-cluster`` starts the cluster with its Prometheus and points
``CASINO_PROMETHEUS_URL`` and ``CASINO_CLUSTER_DIR`` at them; without them
these are skipped.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")
pytest.importorskip("websocket")

from bench import client  # noqa: E402

URL = os.environ.get("CASINO_CLUSTER_URL", "").rstrip("/")
PROMETHEUS = os.environ.get("CASINO_PROMETHEUS_URL", "").rstrip("/")
CLUSTER_DIR = Path(os.environ.get("CASINO_CLUSTER_DIR", ".cluster"))
pytestmark = [
    pytest.mark.engines,
    pytest.mark.skipif(
        not (URL and PROMETHEUS),
        reason="needs a running cluster with Prometheus (make test-cluster)",
    ),
]


def query(expr: str) -> list[dict]:
    response = requests.get(PROMETHEUS + "/api/v1/query", params={"query": expr}, timeout=10)
    response.raise_for_status()
    return response.json()["data"]["result"]


def scalar(expr: str) -> float:
    result = query(expr)
    return float(result[0]["value"][1]) if result else 0.0


def eventually(check, seconds: float = 30):
    """``check()`` once it is truthy (Prometheus scrapes every 2 s here)."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


def server_programs() -> int:
    """gunicorn, the login gunicorn and each uvicorn, as supervisord runs them."""
    conf = (CLUSTER_DIR / "supervisord.conf").read_text()
    return 2 + conf.count("[program:ws")


def test_no_program_supervisord_runs_has_died_since_the_cluster_started():
    """supervisord starts a program again when it dies, so a program that
    crashes at every start (the integrator and the witness once did, for
    want of a metrics folder) still looks up most of the time: its log
    says otherwise."""
    log = (CLUSTER_DIR / "supervisord.log").read_text()
    since_start = log.rsplit("supervisord started with pid", 1)[-1]
    assert [line for line in since_start.splitlines() if "not expected" in line] == []
    spawned = [line.split("'")[1] for line in since_start.splitlines() if "spawned: '" in line]
    assert {"integrator", "witness", "audit"} <= set(spawned)


def test_nginx_answers_health_and_hides_the_metrics():
    for path in ("/healthz", "/readyz"):
        response = requests.get(URL + path, timeout=10)
        assert response.status_code == 200
        assert response.text == "ok\n"
    token = (CLUSTER_DIR / "metrics-token").read_text().strip()
    hidden = requests.get(
        URL + "/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert hidden.status_code == 404


def test_prometheus_scrapes_every_server_program():
    expected = server_programs()

    def all_up():
        response = requests.get(PROMETHEUS + "/api/v1/targets", timeout=10).json()
        targets = [t for t in response["data"]["activeTargets"] if t["labels"]["job"] == "casino"]
        up = [t for t in targets if t["health"] == "up"]
        return len(targets) == expected and len(up) == expected and targets

    targets = eventually(all_up)
    assert targets, requests.get(PROMETHEUS + "/api/v1/targets", timeout=10).text
    assert scalar('count(up{job="casino"} == 1)') == expected
    # Each program answers the django-prometheus request metrics of its processes.
    assert eventually(
        lambda: len(query("sum by (instance) (django_http_requests_before_middlewares_total)")) >= 2
    )


def test_prometheus_sees_the_rounds_and_sockets_of_a_player():
    rounds_before = scalar('sum(casino_rounds_total{game="baccarat"}) or vector(0)')
    war_before = scalar('sum(casino_rounds_total{game="war"}) or vector(0)')
    who = client.Player(
        URL,
        f"metrics-{os.getpid()}",
        address=client.client_address(251),
        report=client.Report(),
        pace=0.0,
    )
    who.sign_up()
    who.sit_down()
    try:
        for _ in range(2):
            assert who.play("baccarat")
            assert who.play("war")
        # Both of the player's sockets are open on the websocket workers.
        assert eventually(lambda: scalar("sum(casino_open_sockets) or vector(0)") >= 2)
        assert eventually(
            lambda: scalar('sum(casino_rounds_total{game="baccarat"})') >= rounds_before + 2
        )
        assert eventually(lambda: scalar('sum(casino_rounds_total{game="war"})') >= war_before + 1)
        # The reveals started on the sockets: BET-to-result counted on the websocket worker.
        assert eventually(
            lambda: scalar('sum(casino_bet_to_result_seconds_count{game="baccarat"})') >= 2
        )
        assert scalar('sum(casino_chips_staked_total{game="baccarat"})') > 0
    finally:
        who.close()
    assert who.report.errors == []
