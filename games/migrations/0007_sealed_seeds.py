"""Server seeds sealed at rest (games/sealing.py): the columns widen to hold
Fernet tokens and every stored seed is sealed in place. Reversing opens them
again (with the keys in force)."""

from __future__ import annotations

from django.db import migrations

import games.sealing

BATCH = 2000


def _convert(apps, schema_editor, *, forward: bool) -> None:
    from games.sealing import seal, unseal

    change = seal if forward else unseal
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    # Plain SQL: the historical models' field would seal or open the values
    # itself, and the column must be read and written exactly as stored.
    for table, column in (("games_profile", "next_server_seed"), ("games_round", "server_seed")):
        last = 0
        while True:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT id, {quote(column)} FROM {quote(table)} "  # noqa: S608 - names are ours
                    f"WHERE id > %s ORDER BY id LIMIT {BATCH}",
                    [last],
                )
                rows = cursor.fetchall()
                for pk, value in rows:
                    if value:
                        cursor.execute(
                            f"UPDATE {quote(table)} SET {quote(column)} = %s WHERE id = %s",  # noqa: S608
                            [change(value), pk],
                        )
            if len(rows) < BATCH:
                break
            last = rows[-1][0]


def seal_all(apps, schema_editor) -> None:
    _convert(apps, schema_editor, forward=True)


def open_all(apps, schema_editor) -> None:
    _convert(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_profile_demo"),
    ]

    operations = [
        migrations.AlterField(
            model_name="profile",
            name="next_server_seed",
            field=games.sealing.SealedSeedField(max_length=200),
        ),
        migrations.AlterField(
            model_name="round",
            name="server_seed",
            field=games.sealing.SealedSeedField(max_length=200, verbose_name="server seed"),
        ),
        migrations.RunPython(seal_all, open_all),
    ]
