"""What an operator does to a player's account: credit or debit chips with a
reason, deactivate the account (it can no longer log in; its sessions and
sockets end) and reactivate it. Each is one transaction with its audit row.

Deactivation saves the user's ``is_active``; ``casino.sockets`` watches that
save and, once the transaction commits, sends ``session.end`` to the player's
socket group on every worker, so their open tables close at once. Their HTTP
sessions end with it: Django's ModelBackend refuses an inactive user, so the
next request from any of their browsers is anonymous.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games.display import format_chips
from games.errors import GameError
from games.models import AuditEntry, Wallet
from games.services.wallet import adjust_balance

DEACTIVATE = "player.deactivate"
REACTIVATE = "player.reactivate"


def check_adjustment(*, wallet: Wallet, amount: int) -> None:
    """Refuse a debit larger than the player's balance, naming both."""
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


@transaction.atomic
def do_adjustments(*, wallet_ids: list[int], amount: int, reason: str, actor: User) -> list[Wallet]:
    """Adjust every wallet or none: one refusal rolls the others back.

    Locks the wallets (``select_for_update``) for the whole transaction."""
    wallets = list(
        Wallet.objects.select_for_update()
        .select_related("user")
        .filter(pk__in=wallet_ids)
        .order_by("pk")
    )
    for wallet in wallets:
        check_adjustment(wallet=wallet, amount=amount)
        adjust_balance(user=wallet.user, amount=amount, reason=reason, actor=actor)
    return wallets


def _check_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise GameError(_("Give a reason: the audit log records it."), code="reason")
    return reason[:255]


def check_set_active(*, player: User, active: bool, actor: User) -> None:
    """Refuse what would lock the operator out or change nothing."""
    if player.is_active == active:
        raise GameError(
            (
                _("%(player)s is already active. Nothing was changed.")
                if active
                else _("%(player)s is already deactivated. Nothing was changed.")
            )
            % {"player": player.get_username()},
            code="unchanged",
        )
    if not active and player.pk == actor.pk:
        raise GameError(_("You cannot deactivate your own account."), code="self")
    if player.is_superuser and not actor.is_superuser:
        raise GameError(
            _("Only a superuser can change a superuser's account. Nothing was changed."),
            code="superuser",
        )


@transaction.atomic
def set_player_active(*, player: User, active: bool, reason: str, actor: User) -> User:
    """Deactivate (``active=False``) or reactivate a player, with a reason in
    the audit log. Deactivating ends their sessions and closes their sockets
    (see the module docstring)."""
    reason = _check_reason(reason)
    locked = User.objects.select_for_update().get(pk=player.pk)
    check_set_active(player=locked, active=active, actor=actor)
    locked.is_active = active
    locked.save(update_fields=["is_active"])
    AuditEntry.objects.create(
        actor=actor,
        action=REACTIVATE if active else DEACTIVATE,
        object_type="player",
        object_id=str(locked.pk),
        object_repr=locked.get_username()[:200],
        before={"is_active": not active},
        after={"is_active": active, "reason": reason},
    )
    player.is_active = active
    return locked
