"""How the site writes amounts and cards for people: chips from minor units,
suit symbols and rank labels; and how it reads an amount of chips a player
sent (``parse_chips``).

Plain functions with no Django import, so that services (refusal messages),
selectors (CSV), presenters and template tags all write them the same way.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

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


def parse_chips(text: str) -> int:
    """An amount of chips as a bet slip sends it (``10``, ``2.5``), in minor
    units. ``ValueError`` when it is not one: not a number, not finite, finer
    than a cent, or beyond any table (more than 10^10 chips either way).

    Only the form is checked: the sign, whole chips and limits are the
    game's rules, which its service applies with the table at hand.
    """
    try:
        chips = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"not an amount of chips: {text!r}") from None
    if not chips.is_finite():
        raise ValueError(f"not an amount of chips: {text!r}")
    units = chips * UNITS_PER_CHIP
    if units != units.to_integral_value() or abs(units) > 10**12:
        raise ValueError(f"not an amount of chips: {text!r}")
    return int(units)


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
