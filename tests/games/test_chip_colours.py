"""One chip set for both games: a chip of a value has one colour at every
table, Baccarat or War, in the page the server draws and in the browser's
code; no rack of the preset tables shows two chips of one colour, and at
any multiplier no two chips a bet there could take share one."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from games.presenters.common import (
    CHIP_COLOUR_OF,
    CHIP_COLOURS,
    MULTIPLIERS,
    chip_colour,
    chip_label,
    chip_views,
)
from games.presets import PRESETS

ROOT = Path(__file__).resolve().parents[2]


def largest_area_max(preset) -> Decimal:
    return Decimal(max(limit["max"] for limit in preset["limits"].values())) / 100


def test_it_gives_a_value_one_colour_at_every_table():
    values = {Decimal(str(chip)) for preset in PRESETS for chip in preset["chips"]}
    for value in values:
        assert len({chip_colour(preset["chips"], value) for preset in PRESETS}) == 1, value


def test_it_never_shows_two_chips_of_one_colour_on_a_rack():
    for preset in PRESETS:
        colours = [view.colour for view in chip_views(preset["chips"])]
        assert len(set(colours)) == len(colours), (preset["slug"], colours)


def test_no_two_chips_a_bet_can_take_share_a_colour_at_any_multiplier():
    for preset in PRESETS:
        most = largest_area_max(preset)
        for mult in MULTIPLIERS:
            values = [Decimal(str(c)) * mult for c in preset["chips"]]
            colours = [chip_colour(preset["chips"], v) for v in values if v <= most]
            assert len(set(colours)) == len(colours), (preset["slug"], mult, colours)


def test_the_rack_draws_each_chip_in_its_colour():
    war = next(p for p in PRESETS if p["game"] == "war")
    # White 1, red 5, green 25, black 100, purple 500, gold 1K, brown 5K.
    assert [v.colour for v in chip_views(war["chips"])] == [0, 1, 3, 4, 5, 7, 10]
    assert [v.label for v in chip_views(war["chips"])] == ["1", "5", "25", "100", "500", "1K", "5K"]


def test_every_colour_is_one_the_stylesheet_draws_once_for_both_games():
    """css/casino.css holds the one chip (every page loads it); the tables'
    sheets only size it and never paint a colour of their own."""
    casino = (ROOT / "static/css/casino.css").read_text()
    assert set(CHIP_COLOUR_OF.values()) == set(range(CHIP_COLOURS))
    for colour in range(CHIP_COLOURS):
        assert f"--chip-c{colour}:" in casino, colour
        assert f".chip-c{colour} {{ --c: var(--chip-c{colour});" in casino, colour
        for game in ("baccarat", "war"):
            sheet = (ROOT / f"static/css/{game}.css").read_text()
            assert f".chip-c{colour} {{" not in sheet, (game, colour)


def test_the_browsers_palette_is_the_servers():
    """static/js/chips.js colours the chips the browser draws (the rack at
    another multiplier, the stacks on the felt) with the same table."""
    source = (ROOT / "static/js/chips.js").read_text()
    body = re.search(r"COLOUR_OF = \{(.*?)\};", source, re.S)
    assert body
    browser = {
        Decimal(value): int(colour)
        for value, colour in re.findall(r"([\d.]+):\s*(\d+)", body.group(1))
    }
    assert browser == CHIP_COLOUR_OF
    assert f"COLOURS = {CHIP_COLOURS};" in source


def test_a_chip_label_fits_a_chip():
    assert [chip_label(v) for v in ("0.1", "0.5", 250, 1000, 2500, 5000, 10000, 1000000)] == [
        "0.1",
        "0.5",
        "250",
        "1K",
        "2.5K",
        "5K",
        "10K",
        "1M",
    ]
