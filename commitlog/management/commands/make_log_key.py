"""Make the commitment log's Ed25519 signing key once, in
settings.CASINO_LOG_KEY_FILE (db/log_key); ``make setup`` runs it. It does
nothing when the file exists. Rotation: docs/commitment-log.md."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from commitlog.keys import log_key, make_key


class Command(BaseCommand):
    help = "Make the commitment log's signing key file (db/log_key) if there is none."

    def handle(self, *args: Any, **options: Any) -> None:
        path = settings.CASINO_LOG_KEY_FILE
        if make_key(path):
            self.stdout.write(f"log signing key kept in {path} (readable by this user only)")
        self.stdout.write(f"log verifier key: {log_key().text()}")
