"""The one pipeline every game's round goes through, and what it needs.

``place_round`` takes the player, the table, the bet and the idempotency key
(the slip key), and a game's *dealer* (``Dealer``: how that game checks a
bet and deals a round). In one transaction it locks the wallet, finds a
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import structlog
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import rows
from games.cards import server_seed_hash
from games.display import format_chips
from games.errors import BetRefused, GameError, InsufficientChips, TableClosed
from games.labels import AREA_LABELS
from games.models import UNITS_PER_CHIP, Profile, Round, Table, TableVersion, Wallet
from games.money import bet_step
from games.sealing import seal
from games.selectors.players import profile_for, wallet_for
from games.selectors.tables import table_from_row, table_version
from games.services import metrics, play_safe
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

    @property
    def next_seed_hash(self) -> str:
        return server_seed_hash(bytes.fromhex(self.profile.next_server_seed))


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


def seeds_update(profile: Profile) -> tuple[str, list[Any]]:
    """The UPDATE that stores the profile's next seed (sealed) and nonce."""
    table = connection.ops.quote_name(Profile._meta.db_table)
    return (
        f"UPDATE {table} SET next_server_seed = %s, nonce = %s WHERE id = %s",  # noqa: S608 - names are ours
        [seal(profile.next_server_seed), profile.nonce, profile.pk],
    )


def round_max_bet(
    user: User, version: TableVersion, profile: Profile | None = None
) -> tuple[int, bool]:
    """The most the player may stake in one round here, and whether it is
    their personal limit (lower than the table's) that sets it. ``profile``,
    when the caller has the player's profile already, saves reading it."""
    if profile is not None:
        personal = profile.personal_max_bet
    else:
        personal = Profile.objects.values_list("personal_max_bet", flat=True).get(user=user)
    if personal is not None and personal < version.max_bet:
        return personal, True
    return version.max_bet, False


# ------------------------------------------------------------------ the bet check


@dataclass(frozen=True)
class BetLimits:
    """What one round may hold, in units: per-area MIN/MAX, the round's MAX
    BET (the table's, or the player's personal max when lower) and the step
    of a stake, with the game's own rules of a slip."""

    areas: Mapping[str, tuple[int, int]]  # area -> (min, max); only the areas offered
    max_bet: int
    personal: bool  # the MAX BET is the player's own lower limit
    step: int = UNITS_PER_CHIP  # every stake is a multiple of this (the table's smallest chip)
    required: str | None = None  # the area no bet goes without (War's ANTE)
    raised_to_min: frozenset[str] = frozenset()  # a stake under MIN is raised to it (seed 004)
    exclusive: tuple[str, ...] = ()  # at most one of these per round (PLAYER, BANKER)
    # The area a later decision stakes once more (War's raise equals the
    # ante): the MAX BET bounds the round with it (SPEC section 5).
    staked_again: str | None = None
    # The player's own controls: a break or a due reality check refuses
    # every bet, a loss limit bounds what the round may stake.
    gate: play_safe.BetGate = play_safe.OPEN_GATE

    def area_min(self, area: str) -> int:
        return self.areas[area][0]

    def area_max(self, area: str) -> int:
        return self.areas[area][1]

    def most_staked(self, stakes: Mapping[str, int]) -> int:
        """Everything the round may come to stake: the bets, and the raise."""
        again = stakes.get(self.staked_again, 0) if self.staked_again else 0
        return sum(stakes.values()) + again

    def largest_staked_again(self, stakes: Mapping[str, int]) -> int:
        """The largest stake on ``staked_again`` the MAX BET leaves room for
        beside the other ``stakes`` (War: the largest ante that can still go
        to war with this tie bet), within the area's MAX, in whole steps; 0
        when none reaches the area's MIN."""
        if self.staked_again is None or self.staked_again not in self.areas:
            return 0
        low, high = self.areas[self.staked_again]
        others = sum(v for area, v in stakes.items() if area != self.staked_again)
        most = min(high, (self.max_bet - others) // 2)
        most -= most % self.step
        return most if most >= max(low, self.step) else 0


def bet_limits(
    *,
    user: User,
    version: TableVersion,
    areas: Sequence[str],
    profile: Profile | None = None,
    chips: Sequence[Any] = (),
    required: str | None = None,
    raised_to_min: frozenset[str] = frozenset(),
    exclusive: tuple[str, ...] = (),
    staked_again: str | None = None,
) -> BetLimits:
    """The limits of a round played now under ``version`` by ``user``
    (``profile``: the player's, when the caller has read it already) at a
    table with these ``chips`` (their values set the step of a stake).

    Of the game's ``areas``, those the paytable pays are offered; a missing
    limit falls back to one chip and the table's MAX BET.
    """
    if profile is None:
        profile = Profile.objects.get(user=user)
    max_bet, personal = round_max_bet(user, version, profile)
    offered: dict[str, tuple[int, int]] = {}
    for area in areas:
        if area not in version.pays:
            continue
        limit = (version.limits or {}).get(area) or {}
        offered[area] = (
            int(limit.get("min") or UNITS_PER_CHIP),
            int(limit.get("max") or version.max_bet),
        )
    return BetLimits(
        areas=offered,
        max_bet=max_bet,
        personal=personal,
        step=bet_step(chips),
        required=required,
        raised_to_min=raised_to_min,
        exclusive=exclusive,
        staked_again=staked_again,
        gate=play_safe.bet_gate(user=user, profile=profile),
    )


@dataclass(frozen=True)
class CheckedBet:
    """A bet that passed ``check_bets``: the stakes (areas with chips only)
    and, for an area whose stake was raised to its MIN, what was asked."""

    stakes: dict[str, int]
    raised_from: dict[str, int]


def _label(area: str) -> str:
    return str(AREA_LABELS.get(area, area))


def _step_refusal(step: int) -> BetRefused:
    if step == UNITS_PER_CHIP:
        return BetRefused(_("Bets are made in whole chips."), code="chips")
    return BetRefused(
        _("Bets are made in steps of %(step)s chips.") % {"step": format_chips(step)},
        code="chips",
    )


def _max_bet_refusal(limits: BetLimits, stakes: Mapping[str, int]) -> BetRefused:
    """Over the MAX BET: the table's or the player's own, and when the raise
    is what does not fit, which stake still allows it."""
    amount = format_chips(limits.max_bet)
    code = "personal_max" if limits.personal else "max_bet"
    if sum(stakes.values()) > limits.max_bet or limits.staked_again is None:
        if limits.personal:
            message = _("Your personal max bet is %(max)s chips per round.")
        else:
            message = _("The MAX BET for one round is %(max)s chips.")
        return BetRefused(message % {"max": amount}, code=code)
    most = limits.largest_staked_again(stakes)
    values = {"max": amount, "area": _label(limits.staked_again), "most": format_chips(most)}
    if not most:
        if limits.personal:
            message = _(
                "Your personal max bet is %(max)s chips per round, a war's raise included: "
                "with this bet no %(area)s can go to war."
            )
        else:
            message = _(
                "The MAX BET for one round is %(max)s chips, a war's raise included: "
                "with this bet no %(area)s can go to war."
            )
    elif limits.personal:
        message = _(
            "Your personal max bet is %(max)s chips per round, a war's raise included: "
            "the largest %(area)s that can still go to war is %(most)s chips."
        )
    else:
        message = _(
            "The MAX BET for one round is %(max)s chips, a war's raise included: "
            "the largest %(area)s that can still go to war is %(most)s chips."
        )
    return BetRefused(message % values, code=code)


def check_bets(*, bets: Mapping[str, int], limits: BetLimits, balance: int) -> CheckedBet:
    """The one check of a bet, for every game, at BET or DEAL: every stake a
    whole number of the table's step on an area offered, at least one chip
    (on the required area), never two exclusive areas, each area within its
    MIN and MAX (or raised to its MIN where the rules say so), everything
    the round may stake (a war's raise included) within the MAX BET, and the
    balance covering the stakes.

    Before all that, the player's own controls (``play_safe``): a break or a
    due reality check refuses any bet; after it, a loss limit refuses what
    could take the period's net loss past it, the raise included.

    Raises ``BetRefused`` / ``InsufficientChips`` with the first problem
    found, before anything is written.
    """
    blocked = limits.gate.blocked
    if blocked is not None:
        raise BetRefused(blocked.message, code=blocked.code)
    stakes: dict[str, int] = {}
    for area, amount in bets.items():
        if area not in limits.areas:
            raise BetRefused(
                _("There is no %(area)s bet at this table.") % {"area": area}, code="area"
            )
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise _step_refusal(limits.step)
        if amount % limits.step:
            raise _step_refusal(limits.step)
        if amount:
            stakes[area] = amount
    if limits.required is not None and not stakes.get(limits.required):
        raise BetRefused(
            _("Place at least one chip on %(area)s.") % {"area": _label(limits.required)},
            code="empty",
        )
    if not stakes:
        raise BetRefused(_("Place at least one chip on a bet area."), code="empty")
    both = [area for area in limits.exclusive if stakes.get(area)]
    if len(both) > 1:
        raise BetRefused(
            _("%(first)s and %(second)s cannot both be bet in the same round.")
            % {"first": _label(both[0]), "second": _label(both[1])},
            code="both_sides",
        )
    raised_from: dict[str, int] = {}
    for area in limits.areas:  # the table's order, so the message does not depend on the slip's
        if area not in stakes:
            continue
        low, high = limits.areas[area]
        if stakes[area] < low and area in limits.raised_to_min:
            raised_from[area], stakes[area] = stakes[area], low
        if stakes[area] < low:
            raise BetRefused(
                _("The minimum bet on %(area)s is %(min)s chips.")
                % {"area": _label(area), "min": format_chips(low)},
                code="area_min",
            )
        if stakes[area] > high:
            raise BetRefused(
                _("The maximum bet on %(area)s is %(max)s chips.")
                % {"area": _label(area), "max": format_chips(high)},
                code="area_max",
            )
    if limits.most_staked(stakes) > limits.max_bet:
        raise _max_bet_refusal(limits, stakes)
    room = limits.gate.loss
    if room is not None and limits.most_staked(stakes) > room.left:
        raise play_safe.loss_refusal(room)
    total = sum(stakes.values())
    if total > balance:
        raise InsufficientChips(
            _("Not enough chips: this bet needs %(total)s and your balance is %(balance)s.")
            % {"total": format_chips(total), "balance": format_chips(balance)}
        )
    return CheckedBet(stakes=stakes, raised_from=raised_from)


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
            play_safe.record_refusal(user=user, code=refusal.code)  # the round rolled back
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
    seeds = next_seeds(profile)
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
        settled_at=now if settled else None,
        decision_deadline=dealt.decision_deadline,
    )
    # The whole round is decided before it is stored: the next seed, the
    # round, the chips and the ledger rows that point at it, in one
    # statement on PostgreSQL.
    posted = post_round(
        wallet_id=wallet.pk,
        balance=wallet.balance,
        postings=dealt.postings,
        round=rnd,
        with_round=[seeds_update(profile)],
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
