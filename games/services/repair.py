"""Find rounds left in a state no finished transaction can produce, and void
and refund them exactly once (seed 001: a round that fails is void and every
bet in it refunded).

A round is settled in the transaction that debits it, so a crash normally
leaves nothing behind; this is the safety net for what should never happen:
a private Baccarat round still open, a settled round whose ledger rows do not add up
to what it says it returned, or one without a closing balance.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from games.models import Game, LedgerEntry, Round, Wallet
from games.services import rollups
from games.services.wallet import Posting, post


@dataclass(frozen=True)
class Problem:
    round_id: int
    player: str
    reason: str
    ledger_net: int  # what the round's ledger rows moved, signed, from the player's side


def _ledger_net(round_id: int) -> int:
    return LedgerEntry.objects.filter(round_id=round_id).aggregate(s=Sum("amount"))["s"] or 0


def find_problems() -> list[Problem]:
    problems: list[Problem] = []
    candidates = Round.objects.exclude(status=Round.Status.VOID).select_related("player")
    # A live table's bet waits for its coup: the dealer settles or refunds it.
    for rnd in candidates.filter(status=Round.Status.OPEN, game=Game.BACCARAT, coup=None):
        problems.append(
            Problem(rnd.pk, str(rnd.player), "baccarat round left open", _ledger_net(rnd.pk))
        )
    for rnd in candidates.filter(status=Round.Status.SETTLED, balance_after__isnull=True):
        problems.append(
            Problem(
                rnd.pk, str(rnd.player), "settled without a closing balance", _ledger_net(rnd.pk)
            )
        )
    # Settled rounds whose ledger does not match their own totals.
    sums = (
        LedgerEntry.objects.filter(round__status=Round.Status.SETTLED)
        .values("round_id")
        .annotate(net=Sum("amount"))
    )
    nets = {row["round_id"]: row["net"] for row in sums}
    seen = {p.round_id for p in problems}
    settled = Round.objects.filter(status=Round.Status.SETTLED).select_related("player")
    for rnd in settled.only("pk", "player__username", "total_bet", "total_return").iterator():
        if rnd.pk in seen:
            continue
        net = nets.get(rnd.pk, 0)
        if net != rnd.total_return - rnd.total_bet:
            problems.append(
                Problem(rnd.pk, str(rnd.player), "ledger does not match the round's totals", net)
            )
    return problems


def refund(problem: Problem) -> bool:
    """Void the round and give back what its ledger rows took. Returns False
    when another run already did (compare-and-set on the status)."""
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=problem.round_id)
        if rnd.status == Round.Status.VOID:
            return False
        changed = Round.objects.filter(pk=rnd.pk, status=rnd.status).update(
            status=Round.Status.VOID,
            void_reason=f"voided by repair: {problem.reason}"[:255],
            settled_at=timezone.now(),
        )
        if changed != 1:
            return False
        counted = rollups.share(rnd)
        rnd.status = Round.Status.VOID
        rollups.record(rnd, before=counted)
        net = _ledger_net(rnd.pk)
        wallet = Wallet.objects.select_for_update().get(user_id=rnd.player_id)
        balance = wallet.balance
        if net < 0:
            balance = post(
                wallet_id=wallet.pk,
                postings=[
                    Posting(LedgerEntry.Kind.REFUND, -net, f"void round {rnd.pk}: {problem.reason}")
                ],
                round=rnd,
            )
        Round.objects.filter(pk=rnd.pk).update(balance_after=balance)
        return True
