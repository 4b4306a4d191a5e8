"""One chip set for both games: a chip of a value has one colour at every
table, Baccarat or War, and no rack of the preset tables shows two chips of
one colour at any multiplier."""

from __future__ import annotations

from decimal import Decimal

from games.presenters.common import MULTIPLIERS, chip_colour, chip_views
from games.presets import PRESETS


def test_it_gives_a_value_one_colour_at_every_table():
    for value in (1, 5, 25, 100):
        assert len({chip_colour(preset["chips"], value) for preset in PRESETS}) == 1, value


def test_it_never_shows_two_chips_of_one_colour_on_a_rack():
    for preset in PRESETS:
        for mult in MULTIPLIERS:
            colours = [
                chip_colour(preset["chips"], Decimal(str(c)) * mult) for c in preset["chips"]
            ]
            assert len(set(colours)) == len(colours), (preset["slug"], mult, colours)


def test_the_rack_draws_each_chip_in_its_colour():
    war = next(p for p in PRESETS if p["game"] == "war")
    assert [v.colour for v in chip_views(war["chips"])] == [0, 1, 3, 4, 5]
