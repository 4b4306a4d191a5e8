"""The preset tables are consistent: every MAX BET can be reached by a legal
slip, the Classic table takes cent bets, and chips and limits are whole units."""

from __future__ import annotations

import pytest

from games.money import bet_step, chip_units
from games.presets import CLASSIC, PRESETS, reachable_max_bet


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_presets_max_bet_is_reachable_by_a_legal_slip(preset):
    assert preset["max_bet"] <= reachable_max_bet(preset["game"], preset["limits"])


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_limit_is_a_multiple_of_the_tables_smallest_step(preset):
    step = bet_step(preset["chips"])
    for area, limit in preset["limits"].items():
        assert limit["min"] % step == 0 and limit["max"] % step == 0, area


def test_the_classic_table_takes_cent_bets_from_ten_cents():
    assert [chip_units(c) for c in CLASSIC["chips"]] == [10, 50, 100, 500, 2_500, 10_000]
    assert CLASSIC["limits"]["player"]["min"] == 10
    assert CLASSIC["limits"]["banker"]["min"] == 10
    assert bet_step(CLASSIC["chips"]) == 10


def test_the_most_a_round_can_hold_counts_player_or_banker_not_both():
    limits = {
        "player": {"min": 100, "max": 5_000},
        "banker": {"min": 100, "max": 4_000},
        "tie": {"min": 100, "max": 500},
    }
    assert reachable_max_bet("baccarat", limits) == 5_500
    assert reachable_max_bet("war", {"ante": {"max": 700}, "tie_bet": {"max": 50}}) == 1_450
