"""Model instances from one row read in plain SQL, without a raw queryset.

The reads every round makes (the table, the locked profile) are single
rows by a key. ``Model.objects.raw`` works out, for every query, which
column goes to which field and which converters apply: in a socket round's
profile that bookkeeping cost more than the statements (a table read 0.8 ms
of CPU, the profile lock 0.96 ms). Here the column list and the converters
are worked out once per model and database, and each row becomes an
instance the way the ORM makes one (``Model.from_db``, every field
converted as a queryset converts it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connections
from django.db.models import Model

M = TypeVar("M", bound=Model)

Converter = Callable[[Any, Any, Any], Any]


@cache
def columns(model: type[Model], alias: str = "") -> str:
    """The model's columns, in field order (prefixed with ``alias.`` when given)."""
    quote = connections["default"].ops.quote_name
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + quote(f.column) for f in model._meta.concrete_fields)


@cache
def _converters(
    model: type[Model], using: str
) -> tuple[tuple[int, tuple[Converter, ...], Any], ...]:
    connection = connections[using]
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        col = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if converters:
            found.append((index, tuple(converters), col))
    return tuple(found)


def instance(model: type[M], row: Sequence[Any], using: str = "default") -> M:
    """The instance whose columns (in ``columns(model)``'s order) start ``row``."""
    values = list(row[: len(model._meta.concrete_fields)])
    connection = connections[using]
    for index, converters, col in _converters(model, using):
        value = values[index]
        for convert in converters:
            value = convert(value, col, connection)
        values[index] = value
    return model.from_db(using, None, values)  # type: ignore[arg-type]  # None: every field, in order
