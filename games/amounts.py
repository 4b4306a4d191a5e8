"""Stakes as a bet slip sends them, read one way whichever way they came
(a form post or a message on the table's socket).

Every amount goes through ``games.display.parse_chips``: ASCII digits, at
most one decimal point, no sign or exponent (games/views/amounts.py says
why). What the table allows (areas, whole chips, limits, balance) is the
service's to say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext_lazy

from games.display import parse_chips
from games.errors import BadAmount

BET_AMOUNT_REFUSAL = gettext_lazy(
    "Bets are amounts of chips written with the digits 0-9 and at most one decimal point, "
    "such as 25 or 2.50."
)


def bet_amount(raw: Any) -> int:
    """One stake of a bet slip as units (blank or missing is 0); ``BadAmount``
    when it is not an amount of chips (a number sent as JSON is read as its
    text; a list, an object or true is not an amount)."""
    if raw is None:
        raw = ""
    elif isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise BadAmount(str(BET_AMOUNT_REFUSAL))
    text = str(raw).strip() or "0"
    try:
        return parse_chips(text)
    except ValueError:
        raise BadAmount(str(BET_AMOUNT_REFUSAL)) from None


def slip_stakes(values: Mapping[str, Any], areas: Iterable[str]) -> dict[str, int]:
    """The stakes of a slip: each of ``areas`` with something in it, as units."""
    return {
        area: bet_amount(values.get(area))
        for area in areas
        if str(values.get(area) if values.get(area) is not None else "").strip()
    }


def table_version(values: Mapping[str, Any]) -> int | None:
    """The number of the table's version a BET says its page showed
    (``table_version``), or None when it sent none a page can send."""
    raw = values.get("table_version")
    text = raw if isinstance(raw, str) else ""
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 else None
