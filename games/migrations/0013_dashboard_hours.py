"""Kept totals for the operator dashboard (games/services/rollups.py): a
row per UTC hour, table, paytable version and player, filled here from the
rounds already played (demo play left out); from now on each round's
transaction keeps them.
"""

import datetime as dt

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import BigIntegerField, Count, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, TruncHour

AREAS = ("player", "banker", "tie", "player_pair", "banker_pair", "ante", "tie_bet")


def fill(apps, schema_editor):
    Round = apps.get_model("games", "Round")
    TableHour = apps.get_model("games", "TableHour")
    settled = Q(status="settled")
    rows = (
        Round.objects.filter(status__in=("settled", "open"))
        .exclude(player__profile__demo=True)
        .annotate(at=TruncHour("created_at", tzinfo=dt.UTC))
        .values("at", "table_id", "version_id", "player_id")
        .annotate(
            n=Count("id", filter=settled),
            bet=Sum("total_bet", filter=settled),
            back=Sum("total_return", filter=settled),
            sat=Count("id"),
            **{
                f"on_{area}": Sum(Cast(KT(f"bets__{area}"), BigIntegerField()), filter=settled)
                for area in AREAS
            },
        )
        .order_by()
    )
    TableHour.objects.bulk_create(
        (
            TableHour(
                hour=row["at"],
                table_id=row["table_id"],
                version_id=row["version_id"],
                player_id=row["player_id"],
                rounds=row["n"],
                staked=row["bet"] or 0,
                returned=row["back"] or 0,
                seated=row["sat"],
                **{f"on_{area}": row[f"on_{area}"] or 0 for area in AREAS},
            )
            for row in rows.iterator(chunk_size=2000)
        ),
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_kept_totals"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="TableHour",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("hour", models.DateTimeField(verbose_name="hour (UTC)")),
                ("rounds", models.IntegerField(default=0, verbose_name="settled rounds")),
                ("staked", models.BigIntegerField(default=0, verbose_name="staked (units)")),
                ("returned", models.BigIntegerField(default=0, verbose_name="returned (units)")),
                ("seated", models.IntegerField(default=0, verbose_name="rounds sat in")),
                ("on_player", models.BigIntegerField(default=0)),
                ("on_banker", models.BigIntegerField(default=0)),
                ("on_tie", models.BigIntegerField(default=0)),
                ("on_player_pair", models.BigIntegerField(default=0)),
                ("on_banker_pair", models.BigIntegerField(default=0)),
                ("on_ante", models.BigIntegerField(default=0)),
                ("on_tie_bet", models.BigIntegerField(default=0)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.table",
                    ),
                ),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.tableversion",
                    ),
                ),
            ],
            options={
                "verbose_name": "table hour",
                "verbose_name_plural": "table hours",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("hour", "table", "version", "player"), name="table_hour_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
