"""The shared file of tampered rounds (tampered_rounds.json) against the
round page's Python snippet: a genuine round prints VERIFIED and exits 0;
each tampered one exits 1 and names what differs, as a player running the
program would read it. The same file runs through static/js/verify.js under
Node (tests/js/verify.test.js), and the file itself is checked against what
the core deals, so neither verifier is tested on stale rounds."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from games.presenters.fair import snippet_text
from tests.fairness.rounds import FILE, build

SHARED = json.loads(FILE.read_text(encoding="utf-8"))
CASES = SHARED["cases"]
GENUINE = [c for c in CASES if c["expect"] == "match"]


def run_snippet(text: str) -> subprocess.CompletedProcess[str]:
    # -I: the player's bare interpreter, no site packages or environment.
    return subprocess.run(
        [sys.executable, "-I", "-"], input=text, capture_output=True, text=True, timeout=60
    )


def snippet_of(round_: dict[str, Any]) -> str:
    """The round page's snippet for a round of the file (a key left out of
    the round is a value the page does not give: None)."""
    facts = {"server_seed": None, "server_seed_hash": None, "client_seed": None, **round_}
    return snippet_text(**facts)


def test_the_shared_file_is_what_the_core_deals_today():
    """A change to the shuffle or the rules that moves a card or a unit makes
    the file stale: write it again (tests/fairness/rounds.py says how)."""
    assert SHARED == build()


def test_the_file_holds_a_coup_a_war_and_every_kind_of_tampering():
    games = {(c["round"]["game"], c["round"]["decision"]) for c in GENUINE}
    assert {("baccarat", None), ("war", "war")} <= games
    assert len(CASES) - len(GENUINE) >= 14
    assert all(c["why"] and c["names"] for c in CASES if c["expect"] == "fail")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_snippet_judges_each_round_of_the_shared_file(case):
    done = run_snippet(snippet_of(case["round"]))
    assert done.stderr == ""
    if case["expect"] == "match":
        assert done.returncode == 0, done.stdout
        assert "What differs" not in done.stdout
        assert done.stdout.strip().endswith("VERIFIED")
        for n, card in enumerate(case["round"]["cards"], start=1):
            assert f"card {n}: dealt {card}, derived {card}: match" in done.stdout
    else:
        assert done.returncode == 1, f"{case['why']}: {done.stdout}"
        assert done.stdout.strip().endswith("DOES NOT MATCH")
        said = done.stdout.split("What differs:", 1)[1].lower()
        assert case["names"].lower() in said, f"{case['why']}: {done.stdout}"


def test_the_snippet_names_a_tampered_return_in_chips_with_both_amounts():
    genuine = json.loads(json.dumps(GENUINE[0]["round"]))
    genuine["returns"]["banker"] = 1_950
    done = run_snippet(snippet_of(genuine))
    assert done.returncode == 1
    assert (
        " - return on banker: 19.50 stored, the seeds' game returns 20.08\nDOES NOT MATCH"
        in done.stdout
    )
