"""The cluster's Prometheus rules (ops/prometheus/rules.yml) under Debian's
``promtool``: the alerts fire on the series in rules_test.yml that must fire
them (RTP drift, slow results, errors, a worker down, the ledger audit) and
stay silent on those that must not (a lucky hour, a quiet table)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from games.baccarat.odds import bet_moments
from games.baccarat.rules import CLASSIC_PAYS

RULES = Path(__file__).resolve().parents[2] / "ops" / "prometheus"


def promtool() -> str:
    found = shutil.which("promtool")
    assert found, "promtool is missing: the Makefile installs Debian's prometheus (make prometheus)"
    return found


def test_the_rules_are_valid():
    result = subprocess.run(
        [promtool(), "check", "rules", str(RULES / "rules.yml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alerts_fire_when_they_must_and_only_then():
    result = subprocess.run(
        [promtool(), "test", "rules", "rules_test.yml"],
        cwd=RULES,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


@pytest.mark.parametrize(
    ("area", "per_minute"),
    [("banker", 20), ("tie", 10), ("player_pair", 1)],
)
def test_the_rule_tests_play_the_exact_odds(area, per_minute):
    """The expected return and variance fed to promtool are the ones the
    site counts for 10-chip bets on the Classic paytable."""
    text = (RULES / "rules_test.yml").read_text()
    mean, variance = bet_moments(area, 1_000, CLASSIC_PAYS, 8)

    def rate(metric: str) -> float:
        pattern = rf"{metric}\{{[^}}]*area=\"{area}\"[^}}]*\}}'\n\s+values: '0\+([\d.]+)x"
        found = re.search(pattern, text)
        assert found, f"no {metric} series for {area}"
        return float(found.group(1))

    assert rate("casino_rtp_expected_units_total") == pytest.approx(
        per_minute * float(mean), abs=0.5
    )
    assert rate("casino_rtp_variance_units2_total") == pytest.approx(
        per_minute * float(variance), rel=1e-6
    )
