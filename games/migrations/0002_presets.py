from __future__ import annotations

from django.db import migrations


def create_presets(apps, schema_editor):
    # The historical models are used, so the preset data is copied here
    # rather than imported from the service (which uses the live models).
    from games.services.tables import PRESETS

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
