"""Witness the site's commitment log over HTTP (commitlog/witness.py).

``--key`` prints the witness's verifier key (made with its state the first
time), for the site's CASINO_LOG_WITNESSES_FILE. ``--url`` with
``--every SECONDS`` keeps cosigning; a refusal stops it with the reason.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.error import URLError

from django.core.management.base import BaseCommand, CommandError

from commitlog import witness


class Command(BaseCommand):
    help = "Cosign the log's checkpoints, each only if it extends the last one cosigned."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--state", type=Path, required=True, help="the witness's own file")
        parser.add_argument("--name", default="witness.local/casino", help="the witness's key name")
        parser.add_argument("--key", action="store_true", help="print the verifier key and stop")
        parser.add_argument("--url", help="the site, e.g. http://127.0.0.1:8000")
        parser.add_argument("--every", type=float, default=0, help="loop, every SECONDS")

    def handle(self, *args: Any, **options: Any) -> None:
        state = witness.load(options["state"], name=options["name"])
        if options["key"]:
            self.stdout.write(state.signer.verifier.text())
            return
        if not options["url"]:
            raise CommandError("--url names the site to witness.")
        fetch, post = witness.over_http(options["url"])
        while True:
            try:
                done = witness.witness_once(state, options["state"], fetch, post, now=witness.now())
                self.stdout.write(done)
            except witness.Refused as exc:
                raise CommandError(f"refused to cosign: {exc}") from exc
            except (URLError, OSError, ValueError) as exc:  # the site is down or answered junk
                self.stderr.write(f"could not reach the log: {exc}")
            if not options["every"]:
                return
            time.sleep(options["every"])
