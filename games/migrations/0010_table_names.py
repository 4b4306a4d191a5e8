"""Tables get a Japanese name (``name_ja``), which Japanese pages show in
place of ``name``; the preset tables get the names the Japanese rule pages
use, unless an operator has renamed them. The current version's field gets
a translatable label, as do the other fields the operator console shows
that had none."""

from __future__ import annotations

import django.db.models.deletion
from django.conf import settings
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
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("games", "0009_play_safe"),
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
        migrations.AlterField(
            model_name='auditentry',
            name='actor',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='made by'),
        ),
        migrations.AlterField(
            model_name='ledgerentry',
            name='actor',
            field=models.ForeignKey(blank=True, help_text='Who made the change: the operator for adjustments.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='made by'),
        ),
        migrations.AlterField(
            model_name='ledgerentry',
            name='round',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_entries', to='games.round', verbose_name='round'),
        ),
        migrations.AlterField(
            model_name='ledgerentry',
            name='wallet',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='games.wallet', verbose_name='wallet'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='max_bet_changed_at',
            field=models.DateTimeField(blank=True, null=True, verbose_name='max bet changed'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='nonce',
            field=models.PositiveBigIntegerField(default=0, verbose_name='nonce'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='pin_failures',
            field=models.PositiveSmallIntegerField(default=0, verbose_name='wrong PINs'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='pin_hash',
            field=models.CharField(blank=True, max_length=128, verbose_name='PIN (hashed)'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='pin_locked_until',
            field=models.DateTimeField(blank=True, null=True, verbose_name='PIN locked until'),
        ),
        migrations.AlterField(
            model_name='profile',
            name='user',
            field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='profile', to=settings.AUTH_USER_MODEL, verbose_name='player'),
        ),
        migrations.AlterField(
            model_name='round',
            name='banker_pair',
            field=models.BooleanField(default=False, verbose_name='BANKER PAIR'),
        ),
        migrations.AlterField(
            model_name='round',
            name='decision_deadline',
            field=models.DateTimeField(blank=True, null=True, verbose_name='decision deadline'),
        ),
        migrations.AlterField(
            model_name='round',
            name='player',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to=settings.AUTH_USER_MODEL, verbose_name='player'),
        ),
        migrations.AlterField(
            model_name='round',
            name='player_pair',
            field=models.BooleanField(default=False, verbose_name='PLAYER PAIR'),
        ),
        migrations.AlterField(
            model_name='round',
            name='table',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='games.table', verbose_name='table'),
        ),
        migrations.AlterField(
            model_name='round',
            name='version',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='games.tableversion', verbose_name='paytable version'),
        ),
        migrations.AlterField(
            model_name='tableversion',
            name='created_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='by'),
        ),
        migrations.AlterField(
            model_name='tableversion',
            name='table',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='versions', to='games.table', verbose_name='table'),
        ),
        migrations.AlterField(
            model_name='wallet',
            name='updated_at',
            field=models.DateTimeField(auto_now=True, verbose_name='updated'),
        ),
        migrations.AlterField(
            model_name='wallet',
            name='user',
            field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='wallet', to=settings.AUTH_USER_MODEL, verbose_name='player'),
        ),
        migrations.RunPython(name_presets, migrations.RunPython.noop),
    ]
