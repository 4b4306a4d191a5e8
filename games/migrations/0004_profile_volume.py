"""The table's volume slider, remembered per player (0-100, 70 at first)."""

from __future__ import annotations

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_plural_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="volume",
            field=models.PositiveSmallIntegerField(
                default=70,
                validators=[django.core.validators.MaxValueValidator(100)],
                verbose_name="volume",
            ),
        ),
    ]
