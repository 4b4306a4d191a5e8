"""The preset tables are consistent: every MAX BET can be reached by a legal
slip, the Classic table takes cent bets, chips and limits are whole units,
and the chips reach each table's maximum and its squeeze in a tap or two."""

from __future__ import annotations

import pytest

from games.money import bet_step, chip_units
from games.presets import CLASSIC, MOST_CHIPS, PRESETS, reachable_max_bet


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_presets_max_bet_is_reachable_by_a_legal_slip(preset):
    assert preset["max_bet"] <= reachable_max_bet(preset["game"], preset["limits"])


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_limit_is_a_multiple_of_the_tables_smallest_step(preset):
    step = bet_step(preset["chips"])
    for area, limit in preset["limits"].items():
        assert limit["min"] % step == 0 and limit["max"] % step == 0, area


def test_the_classic_table_takes_cent_bets_from_ten_cents():
    assert [chip_units(c) for c in CLASSIC["chips"]][:6] == [10, 50, 100, 500, 2_500, 10_000]
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


def fewest_chips(chips, amount: int) -> int:
    """The fewest whole chips of the rack that make up ``amount`` chips."""
    values = [int(c) for c in chips if c >= 1 and c == int(c)]
    best = [0] + [amount + 1] * amount
    for total in range(1, amount + 1):
        best[total] = min((best[total - v] + 1 for v in values if v <= total), default=amount + 1)
    return best[amount]


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_areas_maximum_takes_at_most_two_chips(preset):
    for area, limit in preset["limits"].items():
        assert fewest_chips(preset["chips"], limit["max"] // 100) <= 2, area
    assert len(preset["chips"]) <= MOST_CHIPS


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_the_squeeze_opens_with_one_chip(preset):
    threshold = preset["squeeze_threshold"]
    if threshold:
        assert threshold in {chip_units(c) for c in preset["chips"]}
