from __future__ import annotations

from django.db import migrations

# The preset data comes from the pure core (no models in it); the tables are
# made with the historical models rather than by the service, which uses the
# live ones. The tables of this migration's time only: a preset added since
# (the live table) has fields these historical models do not know, and
# ``setup_casino`` makes it.
from games.presets import CLASSIC, SOCIAL, WAR

PRESETS = [SOCIAL, CLASSIC, WAR]


def create_presets(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    TableVersion = apps.get_model("games", "TableVersion")
    for preset in PRESETS:
        if Table.objects.filter(slug=preset["slug"]).exists():
            continue
        table = Table.objects.create(**preset)
        version = TableVersion.objects.create(
            table=table,
            number=1,
            decks=table.decks,
            pays=table.pays,
            limits=table.limits,
            max_bet=table.max_bet,
            squeeze_threshold=table.squeeze_threshold,
            decision_timeout=table.decision_timeout,
        )
        table.current_version = version
        table.save(update_fields=["current_version"])


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(create_presets, migrations.RunPython.noop)]
