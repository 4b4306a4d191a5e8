from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.errors import GameError
from games.services.staff import set_up_roles
from games.services.tables import create_presets


class Command(BaseCommand):
    help = (
        "Create the default tables and paytables that are missing, and the staff roles "
        "(Operator, Support) with exactly their permissions (safe to run again)."
    )

    def handle(self, *args, **options) -> None:
        made = create_presets()
        for table in made:
            self.stdout.write(f"created table {table.name}")
        try:
            roles = set_up_roles()
        except GameError as exc:
            raise CommandError(exc.message) from exc
        for role in roles:
            self.stdout.write(f"set up role {role.name}")
