"""How the site reads an amount a player sent (``parse_chips``): ASCII
digits with at most one decimal point, nothing Python's Decimal would also
take. Pure: no database."""

from __future__ import annotations

import pytest

from games.display import parse_chips


@pytest.mark.parametrize(
    ("text", "units"),
    [("10", 1_000), ("2.5", 250), ("2.50", 250), ("0.1", 10), ("0", 0), ("9" * 10, 10**12 - 100)],
)
def test_it_reads_an_amount_of_chips_in_minor_units(text, units):
    assert parse_chips(text) == units


@pytest.mark.parametrize(
    "text",
    [
        "１０",  # full-width digits: Decimal("１０") == 10
        "٣",  # Arabic-Indic three
        "1e999999999",  # Decimal takes it; times 100 it overflowed (a 500)
        "1e3",
        "NaN",
        "Infinity",
        "-0",
        "-5",
        "+5",
        "1 0",
        " 10",  # the caller strips the spaces around an amount, never inside
        "1_000",
        "1,000",
        "1.234",  # finer than a cent
        "1.",
        ".5",
        "9" * 11,  # more chips than any table or wallet
        "9" * 5000,
        "",
    ],
)
def test_it_refuses_what_is_not_an_amount_of_chips(text):
    with pytest.raises(ValueError):
        parse_chips(text)
