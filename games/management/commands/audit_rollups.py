from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.selectors.rollups import differences


class Command(BaseCommand):
    help = (
        "Check that every kept total (players' day rows, sessions' nets) equals what the "
        "rounds say."
    )

    def handle(self, *args, **options) -> None:
        wrong = differences()
        if wrong:
            for line in wrong:
                self.stderr.write(line)
            raise CommandError(f"{len(wrong)} kept total(s) do not match the rounds")
        self.stdout.write("kept totals ok: every day row and session net matches the rounds")
