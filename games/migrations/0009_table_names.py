"""Tables get a Japanese name (``name_ja``), which Japanese pages show in
place of ``name``; the preset tables get the names the Japanese rule pages
use, unless an operator has renamed them. The current version's field gets
a translatable label."""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models

PRESET_NAMES = {
    "baccarat-social": ("Baccarat Social", "バカラ ソーシャル"),
    "baccarat-classic": ("Baccarat Classic", "バカラ クラシック"),
    "casino-war": ("Casino War", "カジノ ワー"),
}


def name_presets(apps, schema_editor) -> None:
    Table = apps.get_model("games", "Table")
    for slug, (name, name_ja) in PRESET_NAMES.items():
        Table.objects.filter(slug=slug, name=name, name_ja="").update(name_ja=name_ja)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_war_max_bet_covers_the_raise"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="name_ja",
            field=models.CharField(
                blank=True,
                help_text="Shown on Japanese pages; left blank, they show the name above.",
                max_length=80,
                verbose_name="Japanese name",
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="current_version",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="games.tableversion",
                verbose_name="current version",
            ),
        ),
        migrations.RunPython(name_presets, migrations.RunPython.noop),
    ]
