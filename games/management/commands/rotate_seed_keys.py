"""Seal every stored server seed again with the first of CASINO_SEED_KEYS.

The rotation (docs/security.md): put the new key first in CASINO_SEED_KEYS,
keep the old one after it, restart, run this command, then drop the old key.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from games.models import Profile, Round
from games.sealing import reseal

BATCH = 2000


class Command(BaseCommand):
    help = "Seal every stored server seed again with the first key of CASINO_SEED_KEYS."

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        sealed = (
            (Profile._meta.db_table, "next_server_seed"),
            (Round._meta.db_table, "server_seed"),
        )
        for table, column in sealed:  # each field's column is its name
            total += self._reseal(table, column)
        self.stdout.write(f"{total} server seeds sealed with the current key.")

    def _reseal(self, table: str, column: str) -> int:
        quote = connection.ops.quote_name
        done, last = 0, 0
        while True:
            # Plain SQL: the column is read and written as stored (the
            # model's field would open the tokens). Each batch is its own
            # transaction; rows a round changes meanwhile are sealed anew by
            # that round with the first key already.
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT id, {quote(column)} FROM {quote(table)} "  # noqa: S608 - names are ours
                    f"WHERE id > %s ORDER BY id LIMIT {BATCH}",
                    [last],
                )
                rows = cursor.fetchall()
                for pk, token in rows:
                    if token:
                        cursor.execute(
                            f"UPDATE {quote(table)} SET {quote(column)} = %s "  # noqa: S608
                            f"WHERE id = %s AND {quote(column)} = %s",
                            [reseal(token), pk, token],
                        )
                        done += cursor.rowcount
            if len(rows) < BATCH:
                return done
            last = rows[-1][0]
