"""Bring the database back to a backup taken by ``manage.py backup``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from commitlog.published import why_not_served
from games.backups import BackupError, restore
from games.selectors.rollups import differences
from games.services.wallet import ledger_mismatches


class Command(BaseCommand):
    help = (
        "Replace the database with a backup (checked against its manifest first), then check "
        "the ledger and the kept totals. Stop the site before (docs/operations.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("backup", type=Path, help="a file written by manage.py backup")
        parser.add_argument(
            "--yes", action="store_true", help="replace the database without asking"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["backup"]
        if not options["yes"]:
            answer = input(f"Replace the database with {path}? Everything after it is lost. [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                raise CommandError("nothing restored")
        started = time.perf_counter()
        try:
            manifest = restore(path)
        except BackupError as exc:
            raise CommandError(f"nothing restored: {exc}") from None
        seconds = time.perf_counter() - started
        bad = ledger_mismatches()
        if bad:
            raise CommandError(f"restored, but {len(bad)} wallet(s) do not match their ledger")
        wrong = differences()
        if wrong:
            raise CommandError(
                f"restored, but {len(wrong)} kept total(s) do not match the rounds "
                "(manage.py audit_rollups names them)"
            )
        # The books are back either way; a log that does not extend what was
        # published is not served (docs/commitment-log.md says what to do).
        forked = why_not_served()
        if forked:
            self.stderr.write(f"the commitment log will not be served: {forked}")
        self.stdout.write(
            f"restored {path.name} (taken {manifest.taken_at}): {manifest.rounds} rounds, "
            f"last round {manifest.last_round_id}; ledger ok; kept totals ok; restored in {seconds:.3f} s"
        )
