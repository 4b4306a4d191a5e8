"""Reads of one game table by its slug (with its current version).

A table is read on every table page, BET, DEAL and decision, so the read is
one SELECT of the table's row in plain SQL, made an instance by
``selectors.rows`` (each column converted as the ORM does): in a BET's
profile the ORM spent 0.6-0.9 ms of CPU building the joined query. The
version comes from ``table_version``, a memo of this process: a version is
an immutable row (a paytable or limit change makes a new one), so a version
once read never changes. The table's row is read every time, so closing a
table or publishing a version takes effect on the next request, in every
process. A table's socket reads it once as it opens; each of its rounds
reads the row again with the wallet's lock (``services.rounds.lock_wallet_at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import Http404

from games import rows
from games.models import Game, Table, TableVersion

_VERSIONS: dict[int, TableVersion] = {}


def table_version(pk: int) -> TableVersion:
    """The version with this id, read once per process.

    Callers only read it: the instance is shared by the requests and threads
    of this process."""
    version = _VERSIONS.get(pk)
    if version is None:
        version = _VERSIONS[pk] = TableVersion.objects.get(pk=pk)
    return version


@receiver(post_save, sender=TableVersion, dispatch_uid="forget-table-version")
def _forget_version(sender: type[TableVersion], instance: TableVersion, **kwargs: object) -> None:
    # Versions are never edited, but a test database that rolls back may
    # hand a new version the id of a forgotten one.
    _VERSIONS.pop(instance.pk, None)


@cache
def _table_select() -> str:
    table = connection.ops.quote_name(Table._meta.db_table)
    return f"SELECT {rows.columns(Table)} FROM {table} WHERE slug = %s AND game = %s"  # noqa: S608 - names are ours


def game_table(slug: str, game: str) -> Table:
    """The table, with its current version; 404 when it does not exist."""
    with rows.plain_cursor() as cursor:
        cursor.execute(_table_select(), [slug, game])
        row = cursor.fetchone()
    if row is None:
        raise Http404("No such table.")
    return table_from_row(row)


def table_from_row(row: Sequence[Any]) -> Table:
    """The table from its columns as ``rows.columns(Table)`` lists them
    (first in ``row``), with its current version."""
    table = rows.instance(Table, row)
    if table.current_version_id is not None:
        table.current_version = table_version(table.current_version_id)
    return table


def baccarat_table(slug: str) -> Table:
    return game_table(slug, Game.BACCARAT)


def war_table(slug: str) -> Table:
    return game_table(slug, Game.WAR)
