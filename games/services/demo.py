"""Demo accounts: a visitor plays every table with demo chips, kept apart.

A demo is an ordinary Django user whose profile says ``demo``, with a wallet
of its own holding ``DEMO_CHIPS``; it plays through the same views, services
and ledger as anyone (same rules, paytables, reveal and squeeze), and every
real figure leaves it out (``games.selectors.demo``). Chips still move only
through ``wallet.post``: the opening chips and each refill are ledger rows,
so ``audit_ledger`` checks demo wallets like any other.

Starting demos is throttled per client address (``demo_start_wait``, the
front door's fixed-window counter, ``CASINO_DEMO_STARTS`` an hour), and a demo is deleted
with everything it played a day after its last use (``delete_stale_demos``,
run by ``manage.py cleanup_demo`` at start-up), unless the audit log names
it: an audit entry never points at nothing.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.db.models import CharField, DateTimeField, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.frontdoor.limits import Rate, over_rate
from games.display import format_chips
from games.errors import GameError
from games.models import UNITS_PER_CHIP, AuditEntry, LedgerEntry, Profile, Round, Wallet
from games.services.wallet import (
    Posting,
    log_first_commitment,
    new_client_seed,
    new_server_seed_hex,
    post,
)

DEMO_CHIPS = 10_000
DEMO_UNITS = DEMO_CHIPS * UNITS_PER_CHIP
DEMO_IDLE = dt.timedelta(days=1)  # a demo unused this long is deleted
START_WINDOW_SECONDS = 3600
USERNAME_PREFIX = "demo-"


# What a demo cannot use, each with its one-line reason: the disabled
# controls show it (``{% demo_unavailable %}``) and the refusals say it.
UNAVAILABLE = {
    "max_bet": (
        gettext_lazy("Personal max bet"),
        gettext_lazy(
            "Not in demo: a personal max bet is confirmed with a PIN, which needs an account."
        ),
    ),
    "pin": (
        gettext_lazy("PIN"),
        gettext_lazy("Not in demo: a PIN is set with an account password, and a demo has none."),
    ),
    "csv": (
        gettext_lazy("Download as CSV"),
        gettext_lazy("Not in demo: demo rounds are deleted a day after your last visit."),
    ),
    "topup": (
        gettext_lazy("Daily top-up"),
        gettext_lazy("Not in demo: use Refill to get your demo chips back at any time."),
    ),
    "operator": (
        gettext_lazy("Operator pages"),
        gettext_lazy("Not in demo: operator pages are for the casino's staff."),
    ),
}


class NotADemo(GameError):
    code = "not_demo"


# --- starting a demo ---------------------------------------------------------------


def demo_start_wait(address: str) -> int:
    """Count one demo start from ``address``; the seconds to wait when it is
    over ``CASINO_DEMO_STARTS`` this hour, else 0."""
    return over_rate(
        "demo-starts", address, Rate(settings.CASINO_DEMO_STARTS, START_WINDOW_SECONDS)
    )


@transaction.atomic
def start_demo() -> User:
    """A new demo account: a user who cannot log in with a password, a
    profile flagged ``demo`` with fresh seeds, and a wallet of ``DEMO_CHIPS``.

    The caller logs it in (``django.contrib.auth.login``).
    """
    user = User(username=f"{USERNAME_PREFIX}{secrets.token_hex(8)}")
    user.set_unusable_password()
    user.opens_own_account = True  # type: ignore[attr-defined]  # read by wallet.open_new_users_account
    user.save()
    profile = Profile.objects.create(
        user=user,
        demo=True,
        client_seed=new_client_seed(),
        next_server_seed=new_server_seed_hex(),
    )
    log_first_commitment(profile)
    wallet = Wallet.objects.create(user=user)
    post(
        wallet_id=wallet.pk,
        postings=[Posting(LedgerEntry.Kind.GRANT, DEMO_UNITS, "demo chips")],
    )
    return user


@transaction.atomic
def refill(*, user: AbstractBaseUser) -> int:
    """Set a demo wallet back to ``DEMO_CHIPS`` (up or down); the balance after.

    One ledger row for the difference (none when it is already there), so
    the wallet still equals the sum of its rows. A real account is refused
    and nothing changes.
    """
    wallet = Wallet.objects.select_for_update().filter(user_id=user.pk).first()
    if wallet is None or not Profile.objects.filter(user_id=user.pk, demo=True).exists():
        raise NotADemo(_("Refills are for demo accounts only."))
    reason = f"demo refill to {format_chips(DEMO_UNITS)} chips"
    return post(
        wallet_id=wallet.pk,
        postings=[Posting(LedgerEntry.Kind.ADJUSTMENT, DEMO_UNITS - wallet.balance, reason)],
    )


# --- clean-up ------------------------------------------------------------------------


def named_by_audit() -> Q:
    """Users the audit log names, as the account (``player``), through their
    wallet (an operator's adjustment names the ``wallet``) or as the one who
    acted. Their rows stay: an audit entry never points at nothing."""
    audit = AuditEntry.objects.all()
    as_text: CharField[str, str] = CharField(max_length=40)
    return (
        Q(Exists(audit.filter(object_type="player", object_id=Cast(OuterRef("pk"), as_text))))
        | Q(
            Exists(
                audit.filter(object_type="wallet", object_id=Cast(OuterRef("wallet__pk"), as_text))
            )
        )
        | Q(Exists(audit.filter(actor=OuterRef("pk"))))
    )


def idle_demos(*, now: dt.datetime | None = None) -> QuerySet[User]:
    """Demo users not used since ``DEMO_IDLE`` ago: no login, round or ledger
    row (a refill) since then."""
    cutoff = (now or timezone.now()) - DEMO_IDLE
    last_round = Round.objects.filter(player=OuterRef("pk")).order_by("-id").values("created_at")
    last_entry = (
        LedgerEntry.objects.filter(wallet__user=OuterRef("pk")).order_by("-id").values("created_at")
    )
    return (
        User.objects.filter(profile__demo=True, date_joined__lt=cutoff)
        .annotate(
            last_round=Subquery(last_round[:1], output_field=DateTimeField()),
            last_entry=Subquery(last_entry[:1], output_field=DateTimeField()),
        )
        .filter(Q(last_login__isnull=True) | Q(last_login__lt=cutoff))
        .filter(Q(last_round__isnull=True) | Q(last_round__lt=cutoff))
        .filter(Q(last_entry__isnull=True) | Q(last_entry__lt=cutoff))
    )


def stale_demos(*, now: dt.datetime | None = None) -> QuerySet[User]:
    """The idle demos that can go: those the audit log does not name."""
    return idle_demos(now=now).exclude(named_by_audit())


@dataclass(frozen=True)
class Cleanup:
    users: int
    rounds: int
    entries: int
    kept: int = 0  # idle demos kept because the audit log names them


def delete_stale_demos(*, now: dt.datetime | None = None, batch: int = 500) -> Cleanup:
    """Delete stale demo accounts with their profile, wallet, ledger rows and
    rounds; nothing of any other account, and nothing the audit log names
    (such a demo is kept whole, so its wallet still equals its ledger).
    Ledger rows are append-only for real money; a demo's go with the demo,
    by a queryset delete (which does not call ``LedgerEntry.delete``)."""
    ids = list(stale_demos(now=now).values_list("pk", flat=True))
    kept = idle_demos(now=now).filter(named_by_audit()).count()
    users = rounds = entries = 0
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        with transaction.atomic():
            # Again inside the transaction: only demo users the audit log
            # does not name, whatever happened meanwhile.
            chunk = list(
                User.objects.filter(pk__in=chunk, profile__demo=True)
                .exclude(named_by_audit())
                .values_list("pk", flat=True)
            )
            entries += LedgerEntry.objects.filter(wallet__user_id__in=chunk).delete()[0]
            rounds += Round.objects.filter(player_id__in=chunk).delete()[0]
            Wallet.objects.filter(user_id__in=chunk).delete()
            Profile.objects.filter(user_id__in=chunk).delete()
            users += User.objects.filter(pk__in=chunk).delete()[1].get("auth.User", 0)
    return Cleanup(users=users, rounds=rounds, entries=entries, kept=kept)
