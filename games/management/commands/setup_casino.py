from __future__ import annotations

from django.core.management.base import BaseCommand

from games.services.tables import create_presets


class Command(BaseCommand):
    help = "Create the default tables and paytables that are missing (safe to run again)."

    def handle(self, *args, **options) -> None:
        made = create_presets()
        for table in made:
            self.stdout.write(f"created table {table.name}")
