"""Exact money arithmetic shared by both games and the site: pay multipliers as
``Decimal``, and a stake times a multiplier floored to the whole minor unit.

Pure core (no Django).  Pays are total-return multipliers (stake included);
amounts are integer minor units (1 chip = 100 units), and every product is
floored, in the house's favour, so BANKER x1.95 on 30 units returns 58.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_FLOOR, Decimal, InvalidOperation, localcontext
from fractions import Fraction


def to_decimal(value: Decimal | int | str | float | Fraction) -> Decimal:
    """A pay multiplier as an exact Decimal (floats go through ``str`` so 1.95 stays 1.95)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool):
        raise TypeError("a pay multiplier cannot be a bool")
    if isinstance(value, int | str):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Fraction):
        with localcontext() as ctx:
            ctx.prec = 50
            return Decimal(value.numerator) / Decimal(value.denominator)
    raise TypeError(f"cannot use {value!r} as a pay multiplier")


def floor_units(stake: int, multiplier: Decimal | int | str | float | Fraction) -> int:
    """``stake x multiplier`` computed exactly and floored to a whole unit."""
    with localcontext() as ctx:
        ctx.prec = 60
        product = Decimal(stake) * to_decimal(multiplier)
        return int(product.to_integral_value(rounding=ROUND_FLOOR))


def decimal_pays(pays: Mapping[str, object], *, skip_invalid: bool = False) -> dict[str, Decimal]:
    """A paytable as stored (JSON strings such as ``"1.95"``) with Decimal multipliers.

    A multiplier that is not a number raises ``InvalidOperation``, or is left
    out with ``skip_invalid`` (a stored round checked again later may hold
    anything, and its check says what could not be settled).
    """
    out: dict[str, Decimal] = {}
    for area, value in (pays or {}).items():
        try:
            out[area] = Decimal(str(value))
        except InvalidOperation:
            if not skip_invalid:
                raise
    return out


UNITS_PER_CHIP = 100  # one chip is 100 minor units


def chip_units(chip: Decimal | int | str | float) -> int:
    """A chip's value (in chips, e.g. 0.1 or 25) as whole units; a chip worth
    a fraction of a unit raises ``ValueError``."""
    units = to_decimal(chip) * UNITS_PER_CHIP
    if units <= 0 or units != units.to_integral_value():
        raise ValueError(f"a chip of {chip} is not a whole number of units")
    return int(units)


def bet_step(chips: Sequence[Decimal | int | str | float]) -> int:
    """The smallest amount (units) every bet at a table is a multiple of: the
    greatest common divisor of its chips (1 chip with whole chips, 0.10 with
    chips of 0.1 and 0.5). A table with no chips takes whole chips."""
    step = 0
    for chip in chips:
        step = math.gcd(step, chip_units(chip))
    return step or UNITS_PER_CHIP
