"""The casino's own Prometheus metrics (docs/monitoring.md lists them).

Defined once per process here; the services, sockets and signal handlers
count into them and ``casino.monitoring.metrics`` serves them with
django-prometheus' own. With ``PROMETHEUS_MULTIPROC_DIR`` set (the cluster:
one folder per server program) every process of a program writes its
values there and one scrape of any of them reads them all.

Money is counted in chips (1 chip = 100 units) except for the RTP watch,
whose sums stay in units, as ``games.baccarat.odds.bet_moments`` gives them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram, multiprocess

# book: "real" for players' accounts, "demo" for visitors' demo accounts,
# whose chips every real figure of the site leaves out (games/services/demo.py).
ROUNDS = Counter(
    "casino_rounds",
    "Rounds settled, by game, table and book (real or demo).",
    ["game", "table", "book"],
)
STAKED = Counter(
    "casino_chips_staked",
    "Chips staked in settled rounds (a war's raise included), by game, table and book.",
    ["game", "table", "book"],
)
RETURNED = Counter(
    "casino_chips_returned",
    "Chips given back by settled rounds (stakes included), by game, table and book.",
    ["game", "table", "book"],
)
REFUSALS = Counter(
    "casino_refusals",
    "Bets and decisions refused (nothing taken), by game and refusal code.",
    ["game", "code"],
)
# From BET (the request reaching the round's service) to the player's result
# leaving the server: for Baccarat the reveal's first fragment on the socket
# (the cards then open at the pace the player chose), for War the answer to
# DEAL or to the tie decision. The alert looks at its 99th percentile.
BET_TO_RESULT = Histogram(
    "casino_bet_to_result_seconds",
    "Seconds from BET to the result leaving the server (Baccarat: the reveal's start).",
    ["game"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
OPEN_SOCKETS = Gauge(
    "casino_open_sockets",
    "Table websockets open now, by game.",
    ["game"],
    multiprocess_mode="livesum",
)
LOGIN_FAILURES = Counter(
    "casino_login_failures",
    "Failed logins (wrong password or staff code, locked out).",
)
# The live RTP watch, per table and bet area: what the bets returned beside
# what the exact odds expect of them, and the variance those odds allow
# (games.baccarat.odds.bet_moments, games.war.odds.tie_bet_moments). The
# alert rules turn the increases over a window into a z-score.
RTP_BETS = Counter(
    "casino_rtp_bets",
    "Bets the RTP watch counted, by game, table and area.",
    ["game", "table", "area"],
)
RTP_RETURNED = Counter(
    "casino_rtp_returned_units",
    "Units those bets gave back (stakes included).",
    ["game", "table", "area"],
)
RTP_EXPECTED = Counter(
    "casino_rtp_expected_units",
    "Units the exact odds expect those bets to give back.",
    ["game", "table", "area"],
)
RTP_VARIANCE = Counter(
    "casino_rtp_variance_units2",
    "The variance, in units squared, the exact odds allow what those bets give back.",
    ["game", "table", "area"],
)


# Each game's series exist from the start at 0: Prometheus only sees an
# increase between two scrapes, so a series born with its first observation
# would hide that one (the p99 of a quiet worker's first rounds).
for _game in ("baccarat", "war"):  # games.models.Game's values
    BET_TO_RESULT.labels(_game)
    OPEN_SOCKETS.labels(_game)

_LIVE_FILE = re.compile(r"^gauge_live\w*?_(\d+)\.db$")


def forget_dead_processes() -> None:
    """Drop the live gauges (open sockets) that processes of this program
    left when they died without a goodbye (a kill -9, a crash): supervisord
    or gunicorn starts another, which must not count the dead one's sockets.
    Their counters stay: a counter counts what happened, whoever counted it."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder or not Path(folder).is_dir():
        return
    for path in Path(folder).iterdir():
        found = _LIVE_FILE.match(path.name)
        if found and not Path(f"/proc/{found.group(1)}").exists():
            multiprocess.mark_process_dead(int(found.group(1)), folder)
