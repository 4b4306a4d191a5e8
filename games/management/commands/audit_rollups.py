from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.selectors.rollups import differences
from games.services.rollups import rebuild_all


class Command(BaseCommand):
    help = (
        "Check that every kept total (players' day rows, sessions' nets, tables' hour rows) "
        "equals what the rounds say."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="write every kept total again from the rounds first (stop the site before)",
        )

    def handle(self, *args, **options) -> None:
        if options["rebuild"]:
            rebuild_all()
        wrong = differences()
        if wrong:
            for line in wrong:
                self.stderr.write(line)
            raise CommandError(f"{len(wrong)} kept total(s) do not match the rounds")
        self.stdout.write(
            "kept totals ok: every day row, session net and table hour matches the rounds"
        )
