"""Amounts of chips as forms and bet slips send them, read one way.

Every amount a person or a page sends goes through ``games.display.
parse_chips``: ASCII digits, at most one decimal point, no sign or exponent.
Python's ``Decimal`` and ``int`` (and so Django's ``DecimalField`` and
``IntegerField``) also take full-width digits (``１０``), exponents
(``1e3``, ``1e999999999``), ``NaN`` and ``Infinity``; these are refused
here with a message, before any service sees them. A bet slip with one
is answered as a client error (``BAD_AMOUNT_STATUS``), a form with one is
shown again with the field's error. A bet over the pace of a hand at the
table (``services.pace``) is answered 429 (``refusal_status``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy

from games.display import format_chips, parse_chips
from games.errors import BadAmount, GameError
from games.models import UNITS_PER_CHIP, Table
from games.services.pace import TooFast

# What a bet with an amount that is not one is answered with: a client
# error, but not 400, which django-htmx's debug script (DEBUG only) answers
# by replacing the whole page with the response.
BAD_AMOUNT_STATUS = 422


class ChipsField(forms.Field):
    """An amount of chips (``25``, ``2.50``), cleaned to minor units; at
    least ``min_units`` when given."""

    default_error_messages = {
        "invalid": gettext_lazy(
            "Enter an amount of chips with the digits 0-9 and at most one decimal point, "
            "such as 25 or 2.50."
        ),
        "min_value": gettext_lazy("Enter at least %(min)s."),
    }

    def __init__(self, *, min_units: int = 0, **kwargs: Any) -> None:
        self.min_units = min_units
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> int | None:
        # Blank is "no amount"; spaces alone are not an amount (as IntegerField).
        if value in self.empty_values:
            return None
        text = str(value).strip()
        try:
            return parse_chips(text)
        except ValueError:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None

    def units(self, value: int) -> int:
        return value

    def validate(self, value: int | None) -> None:
        super().validate(value)
        if value is not None and self.units(value) < self.min_units:
            raise ValidationError(
                self.error_messages["min_value"],
                code="min_value",
                params={"min": format_chips(self.min_units)},
            )


class WholeChipsField(ChipsField):
    """A whole number of chips (``100``), cleaned to chips (not units)."""

    default_error_messages = {
        "invalid": gettext_lazy("Enter a whole number of chips with the digits 0-9, such as 100."),
    }

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        units = super().to_python(text)
        return None if units is None else units // UNITS_PER_CHIP

    def units(self, value: int) -> int:
        return value * UNITS_PER_CHIP


def refusal_status(exc: GameError | str) -> int:
    """The status a refused bet is answered with: a client error for an
    amount that is not one or an action over the pace (neither comes from a
    page a hand plays), 200 for a refusal by the rules, shown in place."""
    if isinstance(exc, BadAmount):
        return BAD_AMOUNT_STATUS
    if isinstance(exc, TooFast):
        return 429
    return 200


def with_status(response: HttpResponse, exc: GameError | str) -> HttpResponse:
    """``response`` with the status of the refusal ``exc``, and for an action
    over the pace, when to try again."""
    response.status_code = refusal_status(exc)
    if isinstance(exc, TooFast):
        response["Retry-After"] = str(exc.wait)
    return response


def refused_page(request: HttpRequest, exc: GameError, *, back: str) -> HttpResponse:
    """The page saying why a bet sent without htmx was refused as a client
    error (``refusal_status``), with the way back to the table."""
    page = render(request, "games/refused.html", {"message": exc.message, "back": back})
    return with_status(page, exc)


def refused_bet(
    request: Any, table: Table, exc: GameError | str, answer: Callable[[GameError | str], str]
) -> HttpResponse:
    """A refused BET at a Baccarat table (private or live): the slip stays in
    the browser to be fixed, ``answer`` (the table's refusal fragment) says
    why. Without htmx: the table again with the message, or for a client
    error (``refusal_status``) the page that says so."""
    if not request.htmx:
        if isinstance(exc, GameError) and refusal_status(exc) != 200:
            return refused_page(request, exc, back=table.get_absolute_url())
        messages.error(request, exc.message if isinstance(exc, GameError) else exc)
        return redirect(table.get_absolute_url())
    return with_status(HttpResponse(answer(exc)), exc)
