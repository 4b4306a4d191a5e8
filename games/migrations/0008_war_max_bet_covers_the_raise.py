"""The preset War table's MAX BET now holds a war's raise (5,000 ante +
5,000 raise + 500 tie bonus = 10,500 chips): since the MAX BET bounds
everything one round stakes, the old 5,500 would have capped the ANTE that
can go to war at 2,750. Only a table still at the old preset is changed, as
a new version (rounds already played keep theirs) with an audit row; a table
an operator has edited is left as they set it."""

from __future__ import annotations

from django.db import migrations
from django.db.models import Max

OLD_MAX_BET = 5_500 * 100
NEW_MAX_BET = 10_500 * 100
PRESET_LIMITS = {"ante": {"min": 500, "max": 500_000}, "tie_bet": {"min": 100, "max": 50_000}}


def widen(apps, schema_editor) -> None:
    Table = apps.get_model("games", "Table")
    TableVersion = apps.get_model("games", "TableVersion")
    AuditEntry = apps.get_model("games", "AuditEntry")
    table = Table.objects.filter(slug="casino-war", game="war").first()
    if table is None or table.max_bet != OLD_MAX_BET or table.limits != PRESET_LIMITS:
        return
    before = {"max_bet": table.max_bet}
    table.max_bet = NEW_MAX_BET
    table.save(update_fields=["max_bet"])
    number = TableVersion.objects.filter(table=table).aggregate(n=Max("number"))["n"] or 0
    version = TableVersion.objects.create(
        table=table,
        number=number + 1,
        decks=table.decks,
        pays=dict(table.pays),
        limits=dict(table.limits),
        max_bet=table.max_bet,
        squeeze_threshold=table.squeeze_threshold,
        decision_timeout=table.decision_timeout,
    )
    Table.objects.filter(pk=table.pk).update(current_version=version)
    AuditEntry.objects.create(
        actor=None,
        action="table.change",
        object_type="table",
        object_id=str(table.pk),
        object_repr=str(table.name)[:200],
        before=before,
        after={"max_bet": NEW_MAX_BET},
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0007_sealed_seeds")]

    operations = [migrations.RunPython(widen, migrations.RunPython.noop)]
