"""``manage.py cleanup_demo``: delete demo accounts a day after their last use.

Run by ``make run`` at start-up (the Makefile's ``setup``) and safe to run
from cron: only accounts flagged demo whose last login, round and ledger row
are all older than ``DEMO_IDLE`` go, with their profile, wallet, ledger rows
and rounds. Nothing of any real account is touched, nor a demo the audit log
names (an operator's adjustment or account change): it is kept whole.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.services.demo import DEMO_IDLE, delete_stale_demos


class Command(BaseCommand):
    help = "Delete demo accounts (and their wallet, ledger rows and rounds) unused for a day."

    def handle(self, *args, **options) -> None:
        done = delete_stale_demos()
        hours = int(DEMO_IDLE.total_seconds() // 3600)
        self.stdout.write(
            f"demo clean-up: {done.users} demo account(s) unused for {hours} h deleted, "
            f"with {done.rounds} round(s) and {done.entries} ledger row(s); "
            f"{done.kept} kept because the audit log names them"
        )
