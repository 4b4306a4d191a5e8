from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from casino.monitoring import record_audit
from games.models import Wallet
from games.services.wallet import ledger_mismatches


class Command(BaseCommand):
    help = "Check that every wallet's balance equals the sum of its ledger rows."

    def handle(self, *args, **options) -> None:
        bad = ledger_mismatches()
        # For /metrics (casino_ledger_audit_ok): the cluster runs this every few minutes.
        record_audit(wallets_off=len(bad), at=time.time())
        if bad:
            for wallet, total in bad:
                self.stderr.write(
                    f"wallet {wallet.pk} ({wallet.user}): balance {wallet.balance} != ledger sum {total}"
                )
            raise CommandError(f"{len(bad)} wallet(s) do not match their ledger")
        # Demo wallets are checked like any other, and counted apart.
        demo = Wallet.objects.filter(user__profile__demo=True).count()
        real = Wallet.objects.count() - demo
        self.stdout.write(
            f"ledger ok: {real + demo} wallet(s) match their ledger rows ({real} real, {demo} demo)"
        )
