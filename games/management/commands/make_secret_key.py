"""Make this site's secret key once, in settings.SECRET_KEY_FILE (db/secret_key).

``make setup`` runs it so that ``make run`` serves with debug off and a key
nobody else has. It does nothing when the file exists or DJANGO_SECRET_KEY
names a key. A database that already holds seeds sealed under the
development key (a site served before there was a file) has them sealed
again under the new key, so no round or next seed is lost.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection
from django.test.utils import override_settings

from games.models import Profile
from games.sealing import derive_key


class Command(BaseCommand):
    help = "Make the site's secret key file (db/secret_key) if there is none."

    def handle(self, *args: Any, **options: Any) -> None:
        path = settings.SECRET_KEY_FILE
        if path.exists() or os.environ.get("DJANGO_SECRET_KEY"):
            return
        key = secrets.token_urlsafe(64)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written aside first: seeds are never sealed under a key not on disk.
        partial = path.with_name(path.name + ".new")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key + "\n")
        if Profile._meta.db_table in connection.introspection.table_names():
            # Seeds so far were sealed under the key these settings hold.
            keys = [derive_key(key).decode(), derive_key(settings.SECRET_KEY).decode()]
            with override_settings(CASINO_SEED_KEYS=keys):
                call_command("rotate_seed_keys", verbosity=options["verbosity"])
        partial.replace(path)
        self.stdout.write(f"secret key kept in {path} (readable by this user only)")
