"""Labels only: "2 audit log entries" and "2 ledger entries" in the admin."""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_presets"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="auditentry",
            options={
                "ordering": ["-id"],
                "verbose_name": "audit log entry",
                "verbose_name_plural": "audit log entries",
            },
        ),
        migrations.AlterModelOptions(
            name="ledgerentry",
            options={
                "ordering": ["-id"],
                "verbose_name": "ledger entry",
                "verbose_name_plural": "ledger entries",
            },
        ),
    ]
