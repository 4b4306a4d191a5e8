"""The default tables as the presets now have them: cent bets on Baccarat
Classic (chips of 0.1 to 100, 0.10 minimum on PLAYER and BANKER) and a MAX BET
on Baccarat Social that a legal slip can reach (6,500 chips).

A table is changed only while it still holds the old preset values (an
operator's own settings are left alone), and the change is a new version, so
rounds played before keep theirs.
"""

from __future__ import annotations

from django.db import migrations
from django.db.models import Max

OLD_CLASSIC_CHIPS = [1, 5, 10, 50, 100]
NEW_CLASSIC_CHIPS = [0.1, 0.5, 1, 5, 25, 100]
OLD_SOCIAL_MAX_BET = 10_000 * 100
NEW_SOCIAL_MAX_BET = 6_500 * 100


def new_version(TableVersion, table) -> None:
    number = (TableVersion.objects.filter(table=table).aggregate(n=Max("number"))["n"] or 0) + 1
    version = TableVersion.objects.create(
        table=table,
        number=number,
        decks=table.decks,
        pays=dict(table.pays),
        limits=dict(table.limits),
        max_bet=table.max_bet,
        squeeze_threshold=table.squeeze_threshold,
        decision_timeout=table.decision_timeout,
    )
    table.current_version = version
    table.save(update_fields=["current_version"])


def forwards(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    TableVersion = apps.get_model("games", "TableVersion")
    classic = Table.objects.filter(slug="baccarat-classic", chips=OLD_CLASSIC_CHIPS).first()
    if classic is not None:
        limits = dict(classic.limits)
        for area in ("player", "banker"):
            if (limits.get(area) or {}).get("min") == 1_000:
                limits[area] = {**limits[area], "min": 10}
        classic.chips = NEW_CLASSIC_CHIPS
        classic.limits = limits
        classic.save(update_fields=["chips", "limits"])
        new_version(TableVersion, classic)
    social = Table.objects.filter(slug="baccarat-social", max_bet=OLD_SOCIAL_MAX_BET).first()
    if social is not None:
        social.max_bet = NEW_SOCIAL_MAX_BET
        social.save(update_fields=["max_bet"])
        new_version(TableVersion, social)


class Migration(migrations.Migration):
    dependencies = [("games", "0004_profile_volume")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
