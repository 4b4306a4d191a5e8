"""Kept totals (games/services/rollups.py): a row per player, day in the
player's zone, game and result, and the session's net on the profile,
filled here from the rounds already played; from now on each round's
transaction keeps them.
"""

import zoneinfo

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def _zone(name):
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def fill(apps, schema_editor):
    Profile = apps.get_model("games", "Profile")
    Round = apps.get_model("games", "Round")
    PlayerDay = apps.get_model("games", "PlayerDay")
    profiles = {p.user_id: p for p in Profile.objects.all()}
    days: dict[tuple, list[int]] = {}
    nets: dict[int, int] = {}
    rounds = Round.objects.values_list(
        "player_id", "created_at", "game", "status", "outcome", "total_bet", "total_return", "bets"
    )
    for player_id, created_at, game, status, outcome, bet, back, bets in rounds.iterator(
        chunk_size=2000
    ):
        profile = profiles.get(player_id)
        if profile is None:
            continue
        day = created_at.astimezone(_zone(profile.time_zone)).date()
        result = status if status in ("open", "void") else outcome
        row = days.setdefault((player_id, day, game, result), [0, 0, 0, 0])
        row[0] += 1
        if status == "void":
            continue  # refunded: a round, not money
        row[1] += bet
        row[2] += back
        if status == "open":
            row[3] += int((bets or {}).get("ante", 0))
        started = profile.session_started_at
        if started is not None and created_at >= started:
            nets[player_id] = nets.get(player_id, 0) + back - bet
    PlayerDay.objects.bulk_create(
        [
            PlayerDay(
                player_id=p, day=d, game=g, result=r, rounds=n, staked=s, returned=b, open_raise=o
            )
            for (p, d, g, r), (n, s, b, o) in days.items()
        ],
        batch_size=500,
    )
    for player_id, net in nets.items():
        Profile.objects.filter(user_id=player_id).update(session_net=net)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_chips_up_to_the_maximum"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="session_net",
            field=models.BigIntegerField(default=0, verbose_name="session net (units)"),
        ),
        migrations.AlterField(
            model_name="round",
            name="created_at",
            field=models.DateTimeField(
                db_index=True, default=django.utils.timezone.now, verbose_name="time"
            ),
        ),
        migrations.CreateModel(
            name="PlayerDay",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField(verbose_name="day")),
                (
                    "game",
                    models.CharField(
                        choices=[("baccarat", "Baccarat"), ("war", "Casino War")],
                        max_length=16,
                        verbose_name="game",
                    ),
                ),
                (
                    "result",
                    models.CharField(
                        choices=[
                            ("win", "Win"),
                            ("lose", "Lose"),
                            ("push", "Push"),
                            ("open", "Waiting for a decision"),
                            ("void", "Void (refunded)"),
                        ],
                        max_length=8,
                        verbose_name="result",
                    ),
                ),
                ("rounds", models.IntegerField(default=0, verbose_name="rounds")),
                ("staked", models.BigIntegerField(default=0, verbose_name="staked (units)")),
                ("returned", models.BigIntegerField(default=0, verbose_name="returned (units)")),
                (
                    "open_raise",
                    models.BigIntegerField(default=0, verbose_name="open War raises (units)"),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "player day",
                "verbose_name_plural": "player days",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("player", "day", "game", "result"), name="player_day_unique"
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="round",
            index=models.Index(
                condition=models.Q(("status", "open")),
                fields=["player", "table"],
                name="round_player_table_open",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
