"""The only code that moves chips.

Every change to a balance is one conditional UPDATE on the wallet row (the
database refuses a negative balance, and the UPDATE refuses a debit larger
than the balance) plus one append-only ledger row per posting. Callers run
inside ``transaction.atomic``; these functions do not open savepoints of their
own so that a round is one transaction, not a stack of them.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from commitlog.leaves import append_pending
from games.cards import new_server_seed, server_seed_hash
from games.errors import GameError, InsufficientChips
from games.models import UNITS_PER_CHIP, AuditEntry, LedgerEntry, Profile, Round, Wallet
from games.rows import insert, insert_statement, plain_cursor, stored


@dataclass(frozen=True)
class Posting:
    kind: str
    amount: int  # signed units: negative takes chips, positive gives them
    reason: str = ""


def post(
    *,
    wallet_id: int,
    postings: Sequence[Posting],
    round: Round | None = None,
    actor: User | None = None,
) -> int:
    """Apply postings to a wallet in order; return the balance after.

    Debits must come before credits in ``postings``: the balance is checked
    to cover all debits, so no ledger row ever shows a negative balance.
    The caller holds a transaction (``transaction.atomic``).
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("wallet.post must run inside transaction.atomic")
    postings = [p for p in postings if p.amount != 0]
    if not postings:
        return Wallet.objects.values_list("balance", flat=True).get(pk=wallet_id)
    debits = -sum(p.amount for p in postings if p.amount < 0)
    delta = sum(p.amount for p in postings)
    balance_after = _move(wallet_id, delta=delta, debits=debits)
    if balance_after is None:
        raise InsufficientChips(_("Not enough chips for this bet."))
    _append_entries(
        wallet_id,
        _entry_rows(postings, balance_after - delta),
        round_id=None if round is None else round.pk,
        actor_id=None if actor is None else actor.pk,
    )
    return balance_after


def _entry_rows(postings: Sequence[Posting], balance: int) -> list[tuple[str, int, int, str]]:
    """The ledger rows (kind, amount, balance after, reason) of postings
    applied in order to ``balance``."""
    rows = []
    for p in postings:
        balance += p.amount
        rows.append((p.kind, p.amount, balance, p.reason[:255]))
    return rows


def post_round(
    *,
    wallet_id: int,
    balance: int,
    postings: Sequence[Posting],
    round: Round,
    with_round: Sequence[tuple[str, Sequence[Any]]] = (),
) -> int:
    """Store a new round and apply its postings: ``post``'s UPDATE and
    ledger rows and the round's INSERT (and the statements ``with_round``,
    such as the profile's next seed) as one statement on PostgreSQL, which
    runs them all or none; one after another elsewhere. Returns the balance
    after and gives ``round`` its id.

    ``balance`` is the wallet's balance under the caller's lock
    (``rounds.lock_wallet_at``): the ledger rows' balances are worked out from
    it, and the UPDATE still refuses a debit the balance does not cover.

    One statement in place of four: a round's writes cost 0.36 ms of client
    CPU and 0.28 ms of PostgreSQL's as four, 0.20 and 0.18 as one
    (docs/scaling.md).
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("wallet.post_round must run inside transaction.atomic")
    postings = [p for p in postings if p.amount != 0]
    if connection.vendor != "postgresql" or not postings:
        for statement, values in with_round:
            with plain_cursor() as cursor:
                cursor.execute(statement, values)
        insert(round)
        return post(wallet_id=wallet_id, postings=postings, round=round)
    debits = -sum(p.amount for p in postings if p.amount < 0)
    delta = sum(p.amount for p in postings)
    quote = connection.ops.quote_name
    insert_sql, insert_params = insert_statement(round)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    entries = _entry_rows(postings, balance)
    parts = [f"extra{i} AS ({sql})" for i, (sql, _params) in enumerate(with_round)]
    params: list[Any] = [value for _sql, values in with_round for value in values]
    parts.append(f"r AS ({insert_sql})")
    params += insert_params
    parts.append(
        f"w AS (UPDATE {quote(Wallet._meta.db_table)} "  # noqa: S608 - names are ours
        "SET balance = balance + %s, updated_at = %s "
        "WHERE id = %s AND balance >= %s RETURNING balance)"
    )
    params += [delta, now, wallet_id, debits]
    columns = ", ".join(quote(c) for c in _ENTRY_COLUMNS)
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(entries))
    # The rows in the postings' order (the ledger's ids follow it), and only
    # once the wallet's UPDATE took the chips (no row from w: no entries).
    parts.append(
        f"l AS (INSERT INTO {quote(LedgerEntry._meta.db_table)} ({columns}) "  # noqa: S608 - names are ours
        f"SELECT %s, v.kind, v.amount, v.after, r.{quote('id')}, v.reason, NULL, %s "
        f"FROM r, w, (VALUES {values}) AS v(n, kind, amount, after, reason) ORDER BY v.n)"
    )
    params += [wallet_id, now]
    for n, (kind, amount, after, reason) in enumerate(entries):
        params += [n, kind, amount, after, reason]
    sql = f"WITH {', '.join(parts)} SELECT r.{quote('id')}, w.balance FROM r LEFT JOIN w ON TRUE"  # noqa: S608 - names are ours
    with plain_cursor() as cursor:
        cursor.execute(sql, params)
        round_id, balance_after = cursor.fetchone()
    if balance_after is None:  # the transaction is rolled back: the round goes with it
        raise InsufficientChips(_("Not enough chips for this bet."))
    stored(round, round_id)
    return int(balance_after)


_ENTRY_COLUMNS = (
    "wallet_id",
    "kind",
    "amount",
    "balance_after",
    "round_id",
    "reason",
    "actor_id",
    "created_at",
)


def _append_entries(
    wallet_id: int,
    rows: Sequence[tuple[str, int, int, str]],
    *,
    round_id: int | None,
    actor_id: int | None,
) -> None:
    """The ledger rows (kind, amount, balance after, reason) in one INSERT.

    Plain SQL, as ``_move``: every round posts here, and ``bulk_create``
    spent three times the statement's own CPU preparing it.
    """
    table = connection.ops.quote_name(LedgerEntry._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in _ENTRY_COLUMNS)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    values = ", ".join(["(" + ", ".join(["%s"] * len(_ENTRY_COLUMNS)) + ")"] * len(rows))
    params: list[Any] = []
    for kind, amount, after, reason in rows:
        params += [wallet_id, kind, amount, after, round_id, reason, actor_id, now]
    with plain_cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({columns}) VALUES {values}", params)  # noqa: S608 - names are ours


def _move(wallet_id: int, *, delta: int, debits: int) -> int | None:
    """Add ``delta`` to the balance if it covers ``debits``; the balance
    after, or None when it does not cover them (nothing changed).

    One conditional UPDATE ... RETURNING (PostgreSQL, and SQLite since 3.35)
    instead of an UPDATE and a SELECT: the ORM's update() returns no values.
    """
    table = connection.ops.quote_name(Wallet._meta.db_table)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with plain_cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET balance = balance + %s, updated_at = %s "  # noqa: S608 - names are ours
            "WHERE id = %s AND balance >= %s RETURNING balance",
            [delta, now, wallet_id, debits],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def new_server_seed_hex() -> str:
    return new_server_seed().hex()


def new_client_seed() -> str:
    return secrets.token_hex(8)


def log_first_commitment(profile: Profile) -> None:
    """A new profile's first committed seed goes into the public log with it."""
    append_pending(
        commitment=server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        nonce=profile.nonce,
        player_pk=profile.user_id,
    )


@transaction.atomic
def open_account(*, user: User) -> Wallet:
    """Create the player's wallet and profile, granting the starting chips.

    The grant is tied to the wallet's creation, so it happens exactly once
    however many times this is called (a user's creation, the lobby of an
    account made before accounts were opened at creation).
    """
    profile, made = Profile.objects.get_or_create(
        user=user,
        defaults={"client_seed": new_client_seed(), "next_server_seed": new_server_seed_hex()},
    )
    if made:
        log_first_commitment(profile)
    wallet, created = Wallet.objects.get_or_create(user=user)
    grant = settings.CASINO_STARTING_CHIPS * UNITS_PER_CHIP
    if created and grant > 0:
        post(
            wallet_id=wallet.pk, postings=[Posting(LedgerEntry.Kind.GRANT, grant, "starting chips")]
        )
        wallet.refresh_from_db()
    return wallet


def open_new_users_account(sender, instance, created=False, raw=False, **kwargs) -> None:
    """``post_save`` of a user: every account made (sign-up, the operator's
    pages, ``createsuperuser``) has its wallet, profile and starting chips
    from the start, so no read ever opens one. A demo account opens its own,
    with demo chips (``services.demo.start_demo`` marks it ``opens_own_account``)."""
    if created and not raw and not getattr(instance, "opens_own_account", False):
        open_account(user=instance)


@transaction.atomic
def claim_daily_topup(*, user: User, today: dt.date | None = None) -> int:
    """Give the daily top-up to a player at zero; return the new balance."""
    today = today or timezone.localdate()
    wallet = Wallet.objects.select_for_update().get(user=user)
    if wallet.balance != 0:
        raise GameError(_("The daily top-up is for players whose balance is zero."), code="topup")
    if wallet.last_topup_on == today:
        raise GameError(
            _("You have already claimed today's top-up. Come back tomorrow."), code="topup"
        )
    changed = (
        Wallet.objects.filter(pk=wallet.pk, balance=0)
        .exclude(last_topup_on=today)
        .update(last_topup_on=today)
    )
    if changed != 1:  # lost a race with another claim
        raise GameError(
            _("You have already claimed today's top-up. Come back tomorrow."), code="topup"
        )
    amount = settings.CASINO_DAILY_TOPUP_CHIPS * UNITS_PER_CHIP
    return post(
        wallet_id=wallet.pk, postings=[Posting(LedgerEntry.Kind.TOPUP, amount, "daily top-up")]
    )


def refuse_demo_wallet(wallet: Wallet) -> None:
    """Operators never adjust demo chips: they are the visitor's to refill,
    and a demo is deleted a day after its last use, which would leave the
    adjustment's audit entry naming nothing."""
    if Profile.objects.filter(user_id=wallet.user_id, demo=True).exists():
        raise GameError(
            _(
                "%(player)s is a demo account: its demo chips are not adjusted by operators. "
                "Nothing was changed."
            )
            % {"player": wallet.user},
            code="demo",
        )


@transaction.atomic
def adjust_balance(*, user: User, amount: int, reason: str, actor: User) -> int:
    """An operator's credit (amount > 0) or debit (amount < 0) with a reason."""
    reason = (reason or "").strip()
    if not reason:
        raise GameError(_("An adjustment needs a reason."), code="reason")
    if amount == 0:
        raise GameError(_("An adjustment needs a non-zero amount."), code="amount")
    wallet = Wallet.objects.select_for_update().get(user=user)
    refuse_demo_wallet(wallet)
    before = wallet.balance
    after = post(
        wallet_id=wallet.pk,
        postings=[Posting(LedgerEntry.Kind.ADJUSTMENT, amount, reason)],
        actor=actor,
    )
    AuditEntry.objects.create(
        actor=actor,
        action="wallet.adjust",
        object_type="wallet",
        object_id=str(wallet.pk),
        object_repr=str(user)[:200],
        before={"balance": before},
        after={"balance": after, "amount": amount, "reason": reason},
    )
    return after


def ledger_mismatches() -> list[tuple[Wallet, int]]:
    """Wallets whose balance is not the sum of their ledger rows, read in
    one statement: one snapshot of both. Read as two (the sums, then the
    balances), a round settled in between showed its wallet off by its
    payout while tables were dealing (bench/live.py)."""
    sums = (
        LedgerEntry.objects.filter(wallet=OuterRef("pk"))
        .values("wallet")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    wallets = (
        Wallet.objects.select_related("user")
        .annotate(total=Coalesce(Subquery(sums), 0))
        .exclude(balance=F("total"))
        .order_by("pk")
    )
    return [(wallet, wallet.total) for wallet in wallets]
