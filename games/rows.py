"""Model instances from one row read in plain SQL, without a raw queryset,
and one row stored the same way; the cursor those statements run on.

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

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar

from django.db import connections
from django.db.models import Model

M = TypeVar("M", bound=Model)

Converter = Callable[[Any, Any, Any], Any]


@contextmanager
def plain_cursor(using: str = "default") -> Iterator[Any]:
    """A cursor for a plain statement, closed after the block.

    On PostgreSQL, psycopg's cursor as Django creates it (its time zone
    included), with Django's checks (a broken transaction refuses it) and
    its errors (``IntegrityError`` and the rest are Django's), without the
    wrapper. Django's own cursor when anything watches the queries (a test
    counting them, ``DEBUG``, an ``execute_wrapper``) or on SQLite, whose
    wrapper turns ``%s`` into its own placeholders.
    """
    db = connections[using]
    if db.vendor != "postgresql" or db.queries_logged or db.execute_wrappers:
        with db.cursor() as wrapped:
            yield wrapped
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        raw = db.create_cursor()
        try:
            yield raw
        finally:
            raw.close()


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


@cache
def _insert_sql(model: type[Model], using: str) -> tuple[str, tuple[Any, ...], bool]:
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    pk = model._meta.pk
    if pk is None:
        raise TypeError(f"{model.__name__} has no primary key")
    returning = bool(connection.features.can_return_columns_from_insert)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} "  # noqa: S608 - names are ours
        f"({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
        + (f" RETURNING {quote(pk.column)}" if returning else "")
    )
    return sql, fields, returning


def insert_statement(obj: Model, using: str = "default") -> tuple[str, list[Any]]:
    """The plain INSERT of a new instance and its values (each field prepared
    by the field itself: ``auto_now_add``, JSON, a sealed seed), ending in
    ``RETURNING`` the id where the database can: for ``insert``, or for a
    larger statement that stores the instance with other rows."""
    connection = connections[using]
    sql, fields, _returning = _insert_sql(type(obj), using)
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    return sql, values


def stored(obj: Model, pk: Any, using: str = "default") -> None:
    """Mark a new instance as stored with this id, as ``save`` leaves it."""
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = using


def insert(obj: Model, using: str = "default") -> None:
    """Store a new instance in one plain INSERT and give it its id, as
    ``obj.save(force_insert=True)`` does, without the save's query building:
    the round's INSERT cost 0.8 ms of CPU through the ORM. For models whose
    id the database assigns."""
    model = type(obj)
    connection = connections[using]
    sql, values = insert_statement(obj, using)
    returning = _insert_sql(model, using)[2]
    with plain_cursor(using) as statement:
        statement.execute(sql, values)
        if returning:
            pk = statement.fetchone()[0]
        else:
            pk_column = model._meta.pk.column if model._meta.pk is not None else "id"
            pk = connection.ops.last_insert_id(statement, model._meta.db_table, pk_column)
    stored(obj, pk, using)
