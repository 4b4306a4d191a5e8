"""Take a consistent backup of the database while the site runs; print its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.backups import BackupError, backup


class Command(BaseCommand):
    help = (
        "Back up the database (SQLite: the online backup API; PostgreSQL: pg_dump) into "
        "CASINO_BACKUP_DIR (default backups/) while players play, and print the backup's path."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", type=Path, help="folder for the backup (CASINO_BACKUP_DIR)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            path, manifest = backup(options["dir"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(
            f"backup of {manifest.rounds} rounds (last {manifest.last_round_id}) and "
            f"{manifest.ledger_rows} ledger rows in {manifest.seconds:.2f} s"
        )
        # The path alone on standard output, for scripts: BACKUP=$(make -s backup).
        self.stdout.write(str(path.resolve()))
