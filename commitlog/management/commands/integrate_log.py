"""Place pending leaves in the commitment log and sign its checkpoint.

Once, or with ``--every SECONDS`` as a loop (the cluster's own program).
Any number may run: each pass holds the log's lock (commitlog/integrator.py).
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections

from commitlog.integrator import integrate_all
from commitlog.published import LogForked


class Command(BaseCommand):
    help = "Integrate the commitment log's pending leaves and sign a checkpoint."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--every", type=float, default=0, help="loop, every SECONDS")

    def handle(self, *args: Any, **options: Any) -> None:
        while True:
            try:
                made = integrate_all()
            except LogForked as exc:
                raise CommandError(str(exc)) from exc
            if made is not None and options["verbosity"] > 1:
                self.stdout.write(f"checkpoint of {made.size}")
            if not options["every"]:
                return
            close_old_connections()
            time.sleep(options["every"])
