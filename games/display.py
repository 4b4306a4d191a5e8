"""How the site writes amounts and cards for people: chips from minor units,
suit symbols and rank labels.

Plain functions with no Django import, so that services (refusal messages),
selectors (CSV), presenters and template tags all write them the same way.
"""

from __future__ import annotations

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
