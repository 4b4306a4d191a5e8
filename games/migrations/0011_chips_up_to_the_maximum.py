"""The default tables' chips reach their maximum, as the presets now have
them: Baccarat Social 1 to 5K (its squeeze opens at 1,000, one chip),
Classic 0.1 to 10K (20,000 on PLAYER in two chips) and Casino War 1 to 5K.

A table is changed only while its chips are still the old preset's: an
operator's own chip set is left alone. Chips are not part of a table's
version (no round depends on them), so no new version is made.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import migrations

# slug: (the chips the preset had, the chips it has now), as they stood then.
UPGRADES = {
    "baccarat-social": ([1, 5, 10, 50, 100], [1, 5, 25, 100, 500, 1_000, 5_000]),
    "baccarat-classic": (
        [0.1, 0.5, 1, 5, 25, 100],
        [0.1, 0.5, 1, 5, 25, 100, 500, 1_000, 5_000, 10_000],
    ),
    "casino-war": ([1, 5, 25, 100, 500], [1, 5, 25, 100, 500, 1_000, 5_000]),
}


def as_values(chips) -> list[Decimal]:
    """Chips compared as numbers (a stored 100.0 is the preset's 100)."""
    return [Decimal(str(chip)) for chip in chips or []]


def forwards(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for table in Table.objects.filter(slug__in=UPGRADES):
        old, new = UPGRADES[table.slug]
        if as_values(table.chips) == as_values(old):
            table.chips = new
            table.save(update_fields=["chips"])


def backwards(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for table in Table.objects.filter(slug__in=UPGRADES):
        old, new = UPGRADES[table.slug]
        if as_values(table.chips) == as_values(new):
            table.chips = old
            table.save(update_fields=["chips"])


class Migration(migrations.Migration):
    dependencies = [("games", "0010_table_names")]

    operations = [migrations.RunPython(forwards, backwards)]
