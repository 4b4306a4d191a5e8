"""Several processes, one scrape: with PROMETHEUS_MULTIPROC_DIR, /metrics
of any process of a server program reads what every one of them counted
(the cluster's gunicorn workers), and a dead process's open sockets leave
the count while its counters stay."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "m" * 40

# A worker of the program: counts a round and holds a socket open, then exits
# without a goodbye (as a kill -9 would).
WORKER = """
from casino import metrics
metrics.ROUNDS.labels("baccarat", "baccarat-classic", "real").inc()
metrics.OPEN_SOCKETS.labels("baccarat").inc()
"""

# Another process of the program, started after them: its scrape.
SCRAPE = f"""
import django
django.setup()
from django.test import Client
print(Client().get("/metrics", HTTP_HOST="localhost", HTTP_AUTHORIZATION="Bearer {TOKEN}").content.decode())
"""


def run(code: str, folder: Path) -> str:
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "CASINO_METRICS_TOKEN": TOKEN,
        "CASINO_SQLITE_PATH": str(folder.parent / "db.sqlite3"),
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_one_scrape_sees_what_every_process_counted(tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    run(WORKER, folder)
    run(WORKER, folder)
    page = run(SCRAPE, folder)
    assert 'casino_rounds_total{book="real",game="baccarat",table="baccarat-classic"} 2.0' in page
    # Both workers died without a goodbye: the scraping process, starting,
    # dropped their sockets (supervisord or gunicorn has started others).
    assert 'casino_open_sockets{game="baccarat"} 0.0' in page
    # Left: the scraping process's own (its sockets, none).
    assert len(list(folder.glob("gauge_live*"))) == 1
    assert list(folder.glob("counter_*.db"))
