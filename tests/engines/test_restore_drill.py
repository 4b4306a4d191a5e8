"""The restore drill on PostgreSQL (bench/drill.py): a pg_dump snapshot and a
pgBackRest backup taken while players play, the server's disk lost, the
snapshot restored on a new server, then the same loss recovered from the
WAL archive to its end. Run by `make test-engines` and `make test-cluster`
(ops/services.sh installs PostgreSQL and pgBackRest there)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.make_run import free_port

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = [
    pytest.mark.engines,
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres")
        or not shutil.which("pgbackrest"),
        reason="needs PostgreSQL and pgBackRest; make test-engines runs it",
    ),
]


def test_the_restore_drill_on_postgres_loses_no_round_before_the_backup_and_little_after():
    done = subprocess.run(
        [sys.executable, "bench/drill.py", "--database", "postgres", "--players", "3",
         "--rounds", "30", "--think", "0.05", "--pg-port", str(free_port()), "--archive-timeout", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # The pg_dump snapshot, restored on a new server.
    assert result["ledger_ok"] is True, result["audit"]
    assert result["rounds_before_backup"] > 0 and result["rounds_lost"] == 0
    assert result["rounds_changed"] == 0 and result["restored_as_manifest"] is True
    # pgBackRest and the WAL archive: every round before the backup, and the
    # rounds played after it up to the WAL archived before the loss.
    assert result["pitr_ledger_ok"] is True
    assert result["pitr_rounds_lost"] == 0 and result["pitr_rounds_changed"] == 0
    assert result["pitr_rounds_recovered"] > result["rounds_in_backup"]
    assert result["player_errors"] == []


@pytest.mark.django_db(transaction=True)
def test_a_restore_while_the_site_is_still_connected_changes_nothing(make_player, tmp_path):
    """An operator restoring over a running site: pg_restore would wait on its
    locks or write into books half-restored; the restore refuses instead."""
    import psycopg  # noqa: PLC0415 - PostgreSQL only
    from django.db import connection  # noqa: PLC0415

    from games.backups import BackupError, backup, restore  # noqa: PLC0415
    from games.models import Wallet  # noqa: PLC0415

    path, _ = backup(tmp_path)
    late = make_player(chips=1_000)  # after the backup
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"]
    ) as site:
        site.execute("SELECT 1")
        with pytest.raises(BackupError, match="connection.* open: stop the site"):
            restore(path)
    assert Wallet.objects.filter(user=late).exists()  # nothing was restored
