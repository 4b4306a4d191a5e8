"""Deal the live tables: the cluster's dealer program (``make run`` deals on
a thread of its one process instead; games/presenters/live.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.presenters.live import deal_forever, tick


class Command(BaseCommand):
    help = "Deal the live tables on the server's clock (every second), or one pass with --once."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="one pass, then exit")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["once"]:
            tick()
            return
        deal_forever()
