"""How the site writes amounts and cards for people: chips from minor units,
suit symbols and rank labels; and how it reads an amount of chips a player
sent (``parse_chips``).

Plain functions with no Django import, so that services (refusal messages),
selectors (CSV), presenters and template tags all write them the same way.
"""

from __future__ import annotations

import re

from games.money import UNITS_PER_CHIP as UNITS_PER_CHIP  # games.models re-exports it

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset("HD")


def format_chips(units: int | None) -> str:
    """``1,234`` or ``1,234.50``: cents shown only when there are some."""
    if units is None:
        return ""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(int(units)), UNITS_PER_CHIP)
    text = f"{whole:,}"
    if frac:
        text += f".{frac:02d}"
    return sign + text


# An amount as a person types it: ASCII digits, at most one decimal point
# and two decimals, no sign, exponent or separator. Decimal() alone would
# take "１０", "1e999999999", "NaN" and " 1 ", and an exponent that large
# overflows the multiplication by 100 (a 500 instead of a refusal).
# Ten digits of whole chips are beyond any table and any wallet.
CHIPS_PATTERN = re.compile(r"(?P<whole>[0-9]{1,10})(?:\.(?P<cents>[0-9]{1,2}))?")


def parse_chips(text: str) -> int:
    """An amount of chips as a bet slip or a form sends it (``10``, ``2.5``,
    ``2.50``), in minor units. ``ValueError`` when it is not one: anything but
    ASCII digits with at most one decimal point and two decimals (so no
    sign, exponent, ``NaN``, full-width digit or inner space), or more than
    ten digits of whole chips. The caller strips the whitespace around it.

    Only the form is checked: zero, whole chips and limits are the game's
    rules, which its service applies with the table at hand.
    """
    found = CHIPS_PATTERN.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        raise ValueError(f"not an amount of chips: {text!r}")
    cents = (found.group("cents") or "").ljust(2, "0")
    return int(found.group("whole")) * UNITS_PER_CHIP + int(cents)


def signed_chips(units: int | None) -> str:
    if units is None:
        return ""
    return ("+" if units > 0 else "") + format_chips(units)


def rank_label(rank: str) -> str:
    """A card's rank as printed on it: "10" for the core's "T"."""
    return "10" if rank == "T" else rank


def suit_symbol(suit: str) -> str:
    return SUIT_SYMBOLS[suit]


def is_red(suit: str) -> bool:
    return suit in RED_SUITS
