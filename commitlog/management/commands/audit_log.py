"""Check the commitment log whole; exit 1 and say what is wrong if it is not."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from commitlog.audit import problems


class Command(BaseCommand):
    help = "Check every leaf, node and checkpoint of the commitment log."

    def handle(self, *args: Any, **options: Any) -> None:
        found = list(problems())
        if found:
            raise CommandError("\n".join(found))
        self.stdout.write("The commitment log is whole.")
