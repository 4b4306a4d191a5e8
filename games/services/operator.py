"""What an operator does to a player's account: credit or debit chips with a
reason, deactivate the account (it can no longer log in; its sessions and
sockets end) and reactivate it. Each is one transaction with its audit row.

Deactivation and reactivation are account changes like any other and go
through ``games.services.staff``, which says who may make them. The save of
the user's ``is_active`` is watched by ``games.services.sockets``: in the same
transaction every session of the account is deleted, and once it commits
``session.end`` goes to the player's socket group on every worker, so their
open tables close at once and a reactivated account starts from a new login.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from games.display import format_chips
from games.errors import GameError
from games.models import UNITS_PER_CHIP, LedgerEntry, Wallet
from games.services.staff import DEACTIVATE, REACTIVATE, set_account_active
from games.services.wallet import adjust_balance, refuse_demo_wallet

__all__ = ["DEACTIVATE", "REACTIVATE", "check_adjustment", "do_adjustments", "set_player_active"]


def check_adjustment(*, wallet: Wallet, amount: int = 0, actor: User | None = None) -> None:
    """Refuse a demo wallet (whatever the amount), a credit over
    ``CASINO_MAX_CREDIT_CHIPS`` and a debit larger than the player's
    balance, naming each.

    Demo chips are the visitor's to refill; and a demo is deleted a day after
    its last use, which would leave the adjustment's audit entry naming
    nothing (``services.demo.delete_stale_demos`` keeps such a demo)."""
    refuse_demo_wallet(wallet)
    if actor is not None and wallet.user_id == actor.pk:
        raise GameError(
            _("Nobody adjusts their own balance: another operator does. Nothing was changed."),
            code="own_wallet",
        )
    if actor is not None and wallet.user.is_staff and not actor.is_superuser:
        raise GameError(
            _(
                "Only a superuser adjusts the balance of a staff account (%(player)s). "
                "Nothing was changed."
            )
            % {"player": wallet.user},
            code="staff_wallet",
        )
    most = settings.CASINO_MAX_CREDIT_CHIPS * UNITS_PER_CHIP
    if amount > most:
        raise GameError(
            _(
                "A credit is at most %(most)s chips at a time (CASINO_MAX_CREDIT_CHIPS). "
                "Nothing was changed."
            )
            % {"most": format_chips(most)},
            code="credit_limit",
        )
    if amount < 0 and -amount > wallet.balance:
        raise GameError(
            _(
                "Cannot debit %(amount)s chips from %(player)s: "
                "the balance is only %(balance)s chips. Nothing was changed."
            )
            % {
                "amount": format_chips(-amount),
                "player": wallet.user,
                "balance": format_chips(wallet.balance),
            },
            code="balance",
        )


def check_day_of_credits(*, actor: User, amount: int, wallets: int) -> None:
    """Refuse credits that would take what ``actor`` credited in the last 24
    hours, every player together, past ``CASINO_MAX_CREDIT_CHIPS_PER_DAY``.

    The actor's own row is locked first, so two credits of one operator at
    once are counted one after the other, never both against the same sum."""
    if amount <= 0:
        return
    list(User.objects.select_for_update().filter(pk=actor.pk).values_list("pk", flat=True))
    since = timezone.now() - timedelta(days=1)
    done = (
        LedgerEntry.objects.filter(
            actor=actor, kind=LedgerEntry.Kind.ADJUSTMENT, amount__gt=0, created_at__gte=since
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    most = settings.CASINO_MAX_CREDIT_CHIPS_PER_DAY * UNITS_PER_CHIP
    if done + amount * wallets > most:
        raise GameError(
            _(
                "You have credited %(done)s chips in the last 24 hours; one staff account "
                "credits at most %(most)s a day (CASINO_MAX_CREDIT_CHIPS_PER_DAY). "
                "Nothing was changed."
            )
            % {"done": format_chips(done), "most": format_chips(most)},
            code="credit_day_limit",
        )


@transaction.atomic
def do_adjustments(*, wallet_ids: list[int], amount: int, reason: str, actor: User) -> list[Wallet]:
    """Adjust every wallet or none: one refusal rolls the others back.

    Locks the wallets (``select_for_update``) for the whole transaction."""
    check_day_of_credits(actor=actor, amount=amount, wallets=len(set(wallet_ids)))
    wallets = list(
        Wallet.objects.select_for_update()
        .select_related("user")
        .filter(pk__in=wallet_ids)
        .order_by("pk")
    )
    for wallet in wallets:
        check_adjustment(wallet=wallet, amount=amount, actor=actor)
        adjust_balance(user=wallet.user, amount=amount, reason=reason, actor=actor)
    return wallets


def set_player_active(*, player: User, active: bool, reason: str, actor: User) -> User:
    """Deactivate (``active=False``) or reactivate a player, with a reason in
    the audit log (``games.services.staff.set_account_active``: the same
    rules as every account change)."""
    changed = set_account_active(actor=actor, account=player, active=active, reason=reason)
    player.is_active = changed.is_active
    return changed
