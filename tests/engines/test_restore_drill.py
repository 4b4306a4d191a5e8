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

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres") or not shutil.which("pgbackrest"),
    reason="needs PostgreSQL and pgBackRest; make test-engines runs it",
)


def test_the_restore_drill_on_postgres_loses_no_round_before_the_backup_and_little_after():
    done = subprocess.run(
        [sys.executable, "bench/drill.py", "--database", "postgres", "--players", "3",
         "--seconds", "2", "--pg-port", str(free_port()), "--archive-timeout", "2"],
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
