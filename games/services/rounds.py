"""The one pipeline every game's round goes through, and what it needs.

``place_round`` takes the player, the table, the bet and the idempotency key
(the slip key), and a game's *dealer* (``Dealer``: how that game checks a
bet, through ``services.bets``, and deals a round). In one transaction it locks the wallet, finds a
round already made with the same key (a double click, a second tab, a
retried request: that round is the answer and nothing is charged again),
locks the profile, checks the bet against the limits, takes the provably
fair seeds, deals, stores the round in one INSERT, posts the ledger rows and
schedules the game's push for after the commit. The database's unique
(player, slip_key) is the last word when two requests with one key race.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import structlog
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from commitlog.leaves import pending_leaf
from games import rows
from games.cards import server_seed_hash
from games.errors import BetRefused, GameError, TableClosed
from games.models import Profile, Round, Table, TableVersion, Wallet
from games.sealing import seal
from games.selectors.players import profile_for, wallet_for
from games.selectors.tables import table_from_row, table_version
from games.services import bets, metrics, rollups
from games.services.faults import maybe_fail
from games.services.push import push
from games.services.tables import snapshot_version
from games.services.wallet import Posting, new_server_seed_hex, post_round

SLIP_KEY_MAX = 64

log = structlog.stdlib.get_logger(__name__)


@dataclass(frozen=True)
class Seeds:
    # hex; revealed on the round page once the round is over, never in a repr
    server_seed: str = field(repr=False)
    server_seed_hash: str  # what the player saw before betting
    client_seed: str
    nonce: int

    @property
    def server_seed_bytes(self) -> bytes:
        return bytes.fromhex(self.server_seed)


@dataclass
class Dealt:
    """A round as a game's dealer decided it, before it is stored."""

    status: str  # Round.Status
    bets: dict[str, int]
    returns: dict[str, int]
    cards: list[str]
    detail: dict[str, Any]
    postings: list[Posting]  # debits first: ``post`` checks the balance covers them
    winner: str = ""
    player_pair: bool = False
    banker_pair: bool = False
    decision_deadline: dt.datetime | None = None
    coup_id: int | None = None  # a live table's bet: the coup it waits for


class Dealer(Protocol):
    """How one game checks a bet and deals a round (``place_round`` does the rest)."""

    @property
    def game(self) -> str:
        """The Game the rounds are stored as."""
        ...

    @property
    def stale_slip(self) -> str:
        """The refusal for a slip key that cannot be used here."""
        ...

    def check(
        self, *, user: User, table: Table, version: TableVersion, profile: Profile,
        balance: int, open_round: bool,
    ) -> Any: ...  # fmt: skip

    def shoe_seeds(self) -> Seeds | None:
        """The seeds of a shoe the round is dealt from when it is not the
        player's own (a live table's); None: the player's committed seed."""
        ...

    def deal(
        self, *, stakes: Any, seeds: Seeds, version: TableVersion, balance: int, now: dt.datetime
    ) -> Dealt: ...

    def pushes(self, rnd: Round) -> list[tuple[str, dict[str, Any]]]:
        """(group, event) to send once the stored round commits."""
        ...


@dataclass(frozen=True)
class Placed:
    """What BET or DEAL answers with: the round, and the player's rows as it left them."""

    round: Round
    balance: int  # the wallet after the round's postings
    profile: Profile  # with the next round's committed seed
    replayed: bool = False  # the slip key had made this round before: nothing was charged


def require_open(table: Table) -> None:
    if not table.enabled:
        raise _closed()


def _closed() -> TableClosed:
    return TableClosed(_("This table is closed. Please choose another table in the lobby."))


def current_version(table: Table) -> TableVersion:
    """The version a round starting now is played under (already loaded when
    the table was read by ``selectors.tables.game_table``; otherwise from the
    same per-process memo of versions)."""
    if table.current_version_id is None:
        return snapshot_version(table=table)
    if Table.current_version.is_cached(table) and table.current_version is not None:
        return table.current_version
    return table_version(table.current_version_id)


@dataclass(frozen=True)
class LockedWallet:
    """The player's wallet row as the lock read it: what a round needs of it."""

    pk: int
    balance: int


def _for_update() -> str:
    # SQLite has no row locks: its IMMEDIATE transactions serialise writers.
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def lock_wallet_at(user: User, table: Table) -> tuple[LockedWallet, Table]:
    """The player's wallet, locked for the rest of the transaction, and
    ``table`` as its row is now, in one statement: a round reads the table
    in its own transaction (closing a table or publishing a version counts
    from the next round on) without a statement of its own. ``table`` only
    names the table: a socket may hold one read when it opened.

    A table no longer there is refused as closed.
    """
    wallets = connection.ops.quote_name(Wallet._meta.db_table)
    tables = connection.ops.quote_name(Table._meta.db_table)
    lock = " FOR UPDATE OF w" if connection.features.has_select_for_update_of else _for_update()
    with rows.plain_cursor() as cursor:
        cursor.execute(
            f"SELECT w.id, w.balance, {rows.columns(Table, 't')} "  # noqa: S608 - names are ours
            f"FROM {wallets} w LEFT JOIN {tables} t ON t.id = %s WHERE w.user_id = %s{lock}",
            [table.pk, user.pk],
        )
        row = cursor.fetchone()
    if row is None:
        raise Wallet.DoesNotExist(f"player {user.pk} has no wallet")
    if row[2] is None:
        raise _closed()
    return LockedWallet(pk=int(row[0]), balance=int(row[1])), table_from_row(row[2:])


def lock_wallet(user: User) -> LockedWallet:
    """The player's wallet, locked for the rest of the transaction.

    Plain SQL (as ``wallet._move``): a War decision and the start of a
    break take it; a round takes ``lock_wallet_at``. The ORM's query
    building cost four times the statement itself (bench: 0.33 ms against
    0.09 ms of CPU).
    """
    table = connection.ops.quote_name(Wallet._meta.db_table)
    with rows.plain_cursor() as cursor:
        cursor.execute(
            f"SELECT id, balance FROM {table} WHERE user_id = %s{_for_update()}",  # noqa: S608 - names are ours
            [user.pk],
        )
        row = cursor.fetchone()
    if row is None:
        raise Wallet.DoesNotExist(f"player {user.pk} has no wallet")
    return LockedWallet(pk=int(row[0]), balance=int(row[1]))


@dataclass
class LockedProfile:
    """The player's profile, locked, with what the round reads beside it."""

    profile: Profile
    last_seq: int  # the player's last round number at the table (0: none yet)
    existing_round_id: int | None  # the round this slip key already made
    open_round: bool  # a round of the player at the table waits for a decision


def lock_profile(user: User, *, table: Table, slip_key: str) -> LockedProfile:
    """The player's profile (seeds, personal limit), locked for the rest of
    the transaction, with the player's last round number at ``table``, the
    round ``slip_key`` already made and whether a round of the player at
    ``table`` still waits for a decision (a War tie), in one statement.

    Rounds take it after the wallet, always in that order. Read after the
    wallet lock, so (at READ COMMITTED, a snapshot per statement) it sees
    every round of the player committed before: another of the player's
    rounds held the wallet until its commit.
    """
    profiles = connection.ops.quote_name(Profile._meta.db_table)
    rounds = connection.ops.quote_name(Round._meta.db_table)
    sql = (
        f"SELECT {rows.columns(Profile, 'p')}, "  # noqa: S608 - names are ours
        f"(SELECT MAX(r.seq) FROM {rounds} r WHERE r.player_id = %s AND r.table_id = %s), "
        f"(SELECT r.id FROM {rounds} r WHERE r.player_id = %s AND r.slip_key = %s), "
        f"(SELECT MIN(r.id) FROM {rounds} r "
        f"WHERE r.player_id = %s AND r.table_id = %s AND r.status = %s) "
        f"FROM {profiles} p WHERE p.user_id = %s{_for_update()}"
    )
    params: list[int | str] = [
        user.pk, table.pk, user.pk, slip_key, user.pk, table.pk, str(Round.Status.OPEN), user.pk,
    ]  # fmt: skip
    with rows.plain_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise Profile.DoesNotExist(f"player {user.pk} has no profile")
    profile = rows.instance(Profile, row)
    last_seq, existing, open_round_id = row[-3:]
    return LockedProfile(
        profile=profile,
        last_seq=int(last_seq or 0),
        existing_round_id=None if existing is None else int(existing),
        open_round=open_round_id is not None,
    )


def next_seeds(profile: Profile) -> Seeds:
    """Use the committed server seed for this round and commit the next one.

    ``profile`` is the player's, locked (``lock_profile``). The player saw
    ``sha256(next_server_seed)`` before betting; after this call the profile
    (in memory) holds a fresh seed (its hash is what the table shows for the
    next round) and the nonce has moved on by one. ``seeds_update`` is the
    statement that stores them, run with the round's (``wallet.post_round``).
    """
    seeds = Seeds(
        server_seed=profile.next_server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        client_seed=profile.client_seed,
        nonce=profile.nonce,
    )
    profile.next_server_seed = new_server_seed_hex()
    profile.nonce += 1
    return seeds


def session_update(profile: Profile, rnd: Round) -> list[tuple[str, list[Any]]]:
    """The UPDATE that moves the session's net by ``rnd``'s result, for a
    round that leaves the player's seeds as they were (a live table's)."""
    term, values = rollups.session_term(rnd, rollups.share(rnd).net)
    name = connection.ops.quote_name(Profile._meta.db_table)
    return [(f"UPDATE {name} SET {term} WHERE id = %s", [*values, profile.pk])]  # noqa: S608 - names are ours


def seeds_update(
    profile: Profile, rnd: Round | None = None, *, game: str, table: str
) -> list[tuple[str, list[Any]]]:
    """The UPDATE that stores the profile's next seed (sealed) and nonce, and
    moves the session's net by ``rnd``'s result (``services.rollups``); and
    the INSERT of the next commitment into the public log
    (commitlog/leaves.py): stored together or not at all."""
    name = connection.ops.quote_name(Profile._meta.db_table)
    term, values = rollups.session_term(rnd, rollups.share(rnd).net) if rnd else ("", [])
    commitment = server_seed_hash(bytes.fromhex(profile.next_server_seed))
    return [
        (
            f"UPDATE {name} SET next_server_seed = %s, nonce = %s"  # noqa: S608 - names are ours
            + (f", {term}" if term else "")
            + " WHERE id = %s",
            [seal(profile.next_server_seed), profile.nonce, *values, profile.pk],
        ),
        pending_leaf(
            commitment=commitment,
            nonce=profile.nonce,
            player_pk=profile.user_id,
            game=game,
            table=table,
        ),
    ]


def outcome(total_bet: int, total_return: int) -> str:
    if total_return > total_bet:
        return Round.Outcome.WIN
    if total_return < total_bet:
        return Round.Outcome.LOSE
    return Round.Outcome.PUSH


def sum_postings(postings: Sequence[Posting]) -> int:
    return sum(p.amount for p in postings)


# ------------------------------------------------------------------ the pipeline


def place_round(
    *,
    user: User,
    table: Table,
    slip_key: str,
    dealer: Dealer,
    now: dt.datetime | None = None,
) -> Placed:
    """Play one round of ``dealer``'s game; idempotent per ``slip_key``."""
    started = time.time()
    slip_key = (slip_key or "").strip()
    # Every log line from here on names the player, and the round once it has
    # an id (a failure after the INSERT names the round it rolled back).
    structlog.contextvars.bind_contextvars(user_id=user.pk)
    structlog.contextvars.unbind_contextvars("round_id")
    try:
        if not slip_key or len(slip_key) > SLIP_KEY_MAX:
            raise BetRefused(dealer.stale_slip, code="slip")
        placed = _place(
            user=user, table=table, slip_key=slip_key, dealer=dealer, now=now, started=started
        )
    except GameError as refusal:
        metrics.refused(dealer.game, refusal.code)
        if isinstance(refusal, BetRefused):
            bets.count_refusal(user=user, code=refusal.code)  # the round rolled back
        raise
    except IntegrityError:
        # The same key raced itself on a database that does not serialise
        # writers: the other request made the round.
        existing = Round.objects.filter(player=user, slip_key=slip_key).first()
        if existing is None:
            raise
        return _replayed(existing, user=user, table=table, dealer=dealer)
    # Committed: counted once, never for a replayed slip.
    if not placed.replayed and placed.round.status == Round.Status.SETTLED:
        metrics.settled(placed.round, table=table.slug, demo=placed.profile.demo)
    return placed


def _replayed(existing: Round, *, user: User, table: Table, dealer: Dealer) -> Placed:
    if existing.table_id != table.pk or existing.game != dealer.game:
        raise BetRefused(dealer.stale_slip, code="slip")
    existing.table = table
    return Placed(existing, wallet_for(user).balance, profile_for(user), replayed=True)


@transaction.atomic
def _place(
    *,
    user: User,
    table: Table,
    slip_key: str,
    dealer: Dealer,
    now: dt.datetime | None,
    started: float,
) -> Placed:
    # The table as it is now (``table`` may be a socket's older read).
    wallet, table = lock_wallet_at(user, table)
    require_open(table)
    # Under the wallet lock a racing request with the same slip has either
    # committed its round (found here) or not started.
    locked = lock_profile(user, table=table, slip_key=slip_key)
    if locked.existing_round_id is not None:
        existing = Round.objects.get(pk=locked.existing_round_id)
        return _replayed(existing, user=user, table=table, dealer=dealer)
    version = current_version(table)
    profile = locked.profile
    stakes = dealer.check(
        user=user,
        table=table,
        version=version,
        profile=profile,
        balance=wallet.balance,
        open_round=locked.open_round,
    )
    # Stored with the round, in its statement (wallet.post_round).
    shoe_seeds = dealer.shoe_seeds()
    seeds = shoe_seeds or next_seeds(profile)
    now = now or timezone.now()
    dealt = dealer.deal(
        stakes=stakes, seeds=seeds, version=version, balance=wallet.balance, now=now
    )
    expected = wallet.balance + sum_postings(dealt.postings)
    total_bet = sum(dealt.bets.values())
    total_return = sum(dealt.returns.values())
    settled = dealt.status == Round.Status.SETTLED
    rnd = Round(
        player=user,
        table=table,
        version=version,
        game=dealer.game,
        status=dealt.status,
        seq=locked.last_seq + 1,
        slip_key=slip_key,
        server_seed=seeds.server_seed,  # revealed on the round page once it is over
        server_seed_hash=seeds.server_seed_hash,
        client_seed=seeds.client_seed,
        nonce=seeds.nonce,
        bets=dealt.bets,
        returns=dealt.returns,
        total_bet=total_bet,
        total_return=total_return,
        balance_before=wallet.balance,
        balance_after=expected if settled else None,
        outcome=outcome(total_bet, total_return) if settled else "",
        cards=dealt.cards,
        detail=dealt.detail,
        winner=dealt.winner,
        player_pair=dealt.player_pair,
        banker_pair=dealt.banker_pair,
        created_at=now,
        settled_at=now if settled else None,
        decision_deadline=dealt.decision_deadline,
        coup_id=dealt.coup_id,
    )
    # The whole round is decided before it is stored: the next seed, the
    # round, the chips and the ledger rows that point at it, in one
    # statement on PostgreSQL.
    posted = post_round(
        wallet_id=wallet.pk,
        balance=wallet.balance,
        postings=dealt.postings,
        round=rnd,
        # The player's kept totals and the public log move with the round.
        with_round=[
            *(
                session_update(profile, rnd)
                if shoe_seeds
                else seeds_update(profile, rnd, game=dealer.game, table=table.slug)
            ),
            *rollups.new_round_statements(rnd, profile),
        ],
    )
    structlog.contextvars.bind_contextvars(round_id=rnd.pk)
    maybe_fail(f"{dealer.game}.after_debit")
    if posted != expected:  # impossible while the wallet is locked; never store a lie
        raise GameError(_("The round could not be settled. Nothing was taken."), code="fault")
    # bet_at: the socket that shows the result counts BET-to-result from it.
    for group, event in dealer.pushes(rnd):
        push(group, {**event, "bet_at": started})
    transaction.on_commit(partial(log_round, "round_placed", rnd))
    return Placed(rnd, posted, profile)


def log_round(event: str, rnd: Round) -> None:
    """One line for a round once it is committed: what was staked and
    returned, never its seed or its cards."""
    log.info(
        event,
        round_id=rnd.pk,
        game=rnd.game,
        table=rnd.table.slug,
        status=rnd.status,
        total_bet=rnd.total_bet,
        total_return=rnd.total_return,
    )
