"""The log's one state row, and a pending leaf for every next seed already
committed before there was a log (each player's next round is played on
one), so every round from now on has its commitment in the log."""

from __future__ import annotations

import hashlib

from django.db import migrations

from commitlog.keys import pseudonym
from commitlog.leaves import OUTSIDE_A_TABLE, leaf_bytes


def forwards(apps, schema_editor):
    LogState = apps.get_model("commitlog", "LogState")
    Leaf = apps.get_model("commitlog", "Leaf")
    Profile = apps.get_model("games", "Profile")
    LogState.objects.get_or_create(pk=1)
    leaves = []
    for user_id, seed, nonce in Profile.objects.order_by("pk").values_list(
        "user_id", "next_server_seed", "nonce"
    ):
        commitment = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        data = leaf_bytes(
            commitment=commitment,
            nonce=nonce,
            game=OUTSIDE_A_TABLE,
            table=OUTSIDE_A_TABLE,
            player=pseudonym(user_id),
        )
        leaves.append(Leaf(data=data, commitment=commitment))
    Leaf.objects.bulk_create(leaves, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("commitlog", "0001_initial"),
        ("games", "0011_chips_up_to_the_maximum"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
