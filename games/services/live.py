"""Live tables: one shoe, many players, dealt on the server's clock.

A live table (``Table.live``) deals coups from one shoe
(``games.baccarat.live``) to everybody at it. Each coup takes bets for the
table version's ``betting_seconds`` (``Coup.opens_at`` to ``closes_at``, the
server's clock). A player's bet is a Round of the table placed by the one
round pipeline (``rounds.place_round``) and checked by ``services.bets`` as
every Baccarat bet is; its stakes are taken at once and it stays OPEN until
its coup is dealt, when the deal's transaction settles every bet on it.

``advance(table)`` moves a table on when its time has come: it opens a shoe
(its seed committed, and logged, before any bet on it) and the next coup's
window; at the close it deals the coup and settles its bets; a coup left
undealt a whole window past its close (its dealer died) is void and its
bets refunded. Every step runs under the table's row lock and looks at the
state it found, so any number of dealers may run at once (a thread in each
serving process, ``manage.py live_dealer`` in the cluster): a coup is dealt
once, and a bet placed after the close, even by a millisecond, is refused.

The shoe's seed is never stored on a round: a live round keeps the shoe's
commitment, the player's own seed and the coup number, and the seed is
published with the whole shoe once its last coup is dealt
(``shoe_document``).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from commitlog.keys import pseudonym
from commitlog.leaves import append_pending
from games.baccarat import live as shoe_rules
from games.baccarat.rules import Coup as DealtCoup
from games.baccarat.rules import settle
from games.cards import Card
from games.errors import BetRefused
from games.models import Coup, Game, LedgerEntry, Profile, Round, Shoe, Table, TableVersion
from games.money import decimal_pays
from games.services import bets as bet_check
from games.services import rollups, rounds
from games.services.baccarat import coup_record, payout_postings, stake_postings
from games.services.bets import IN_FORCE, Terms
from games.services.push import push
from games.services.wallet import Posting, new_server_seed_hex, post

# Between a coup's result and the next window: the reveal's time on screen.
RESULT_SECONDS = 6


def live_group(table: Table) -> str:
    """The Channels group of every socket at a live table."""
    return f"live-{table.slug}"


def seat_group(user_id: int) -> str:
    """The Channels group of one player's live-table sockets: their own figures."""
    return f"live-seat-{user_id}"


def _tell_player(rnd: Round) -> None:
    """The player's new balance once their bet is settled or refunded (their
    socket draws their seat from it)."""
    push(
        seat_group(rnd.player_id),
        {"type": "live.seat", "table": rnd.table_id, "balance": rnd.balance_after},
    )


# ------------------------------------------------------------------ betting


def _for_share() -> str:
    # Bets share the coup's row; the deal takes it alone, so it waits for
    # every bet in flight and every bet after it sees the coup dealt.
    return " FOR SHARE" if connection.vendor == "postgresql" else ""


def betting_coup(table: Table) -> Coup | None:
    """The table's coup now taking bets (its row shared for the transaction)."""
    name = connection.ops.quote_name(Coup._meta.db_table)
    found = list(
        Coup.objects.raw(
            f"SELECT * FROM {name} WHERE table_id = %s ORDER BY id DESC LIMIT 1{_for_share()}",  # noqa: S608 - names are ours
            [table.pk],
        )
    )
    coup = found[0] if found else None
    return coup if coup is not None and coup.status == Coup.Status.BETTING else None


def closed() -> BetRefused:
    return BetRefused(
        _("No more bets: betting on this coup has closed. Bet again when the next coup opens."),
        code="closed",
    )


@dataclass
class LiveDealer:
    """A live table's part of the round pipeline: the bet is checked as any
    Baccarat slip, then staked on the coup taking bets; the round stays
    OPEN until the coup is dealt (``deal_coup``)."""

    bets: Mapping[str, int]
    shown_version: int | None | Terms = IN_FORCE
    now: dt.datetime | None = None
    game: str = Game.BACCARAT
    coup: Coup | None = field(default=None, init=False)
    seeds: rounds.Seeds | None = field(default=None, init=False)

    @property
    def stale_slip(self) -> str:
        return _("This bet slip has expired. Please place your bet again.")

    def check(
        self,
        *,
        user: User,
        table: Table,
        version: TableVersion,
        profile: Profile,
        balance: int,
        open_round: bool,
    ) -> dict[str, int]:
        coup = betting_coup(table)
        if coup is None or (self.now or timezone.now()) >= coup.closes_at:
            raise closed()
        if open_round:
            raise BetRefused(
                _("Your bets on this coup are placed. Wait for the cards."), code="placed"
            )
        stakes = bet_check.check_baccarat_slip(
            bets=self.bets,
            shown=self.shown_version,
            user=user,
            version=version,
            profile=profile,
            chips=table.chips,
            balance=balance,
        )
        shoe = Shoe.objects.only("commitment").get(pk=coup.shoe_id)
        self.coup = coup
        self.seeds = rounds.Seeds(
            server_seed="",  # the shoe's seed is published with the whole shoe
            server_seed_hash=shoe.commitment,
            client_seed=profile.client_seed,
            nonce=coup.number,
        )
        return stakes

    def shoe_seeds(self) -> rounds.Seeds | None:
        return self.seeds

    def deal(
        self,
        *,
        stakes: dict[str, int],
        seeds: rounds.Seeds,
        version: TableVersion,
        balance: int,
        now: Any,
    ) -> rounds.Dealt:
        if self.coup is None:  # check() finds it first
            raise closed()
        return rounds.Dealt(
            status=Round.Status.OPEN,
            bets=stakes,
            returns={},
            cards=[],
            detail={"live": True, "coup": self.coup.number},
            postings=stake_postings(stakes),
            coup_id=self.coup.pk,
        )

    def pushes(self, rnd: Round) -> list[tuple[str, dict[str, Any]]]:
        return []  # the dealer sends the table's stakes every second while bets are open


def place_bet(
    *,
    user: User,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    shown_version: int | None | Terms = IN_FORCE,
    now: dt.datetime | None = None,
) -> rounds.Placed:
    """Stake a slip on the coup taking bets at ``table`` (refused once it
    has closed); idempotent per ``slip_key`` as every round."""
    if not table.live:
        raise BetRefused(_("This table deals each player's own rounds."), code="not_live")
    dealer = LiveDealer(bets=dict(bets), shown_version=shown_version, now=now)
    return rounds.place_round(user=user, table=table, slip_key=slip_key, dealer=dealer, now=now)


# ------------------------------------------------------------------ the dealer


def _lock_table(table: Table) -> Table | None:
    # FOR NO KEY UPDATE: dealers still exclude each other, but a bet in
    # flight inserting its round (whose foreign key takes KEY SHARE on the
    # table's row) does not wait for the dealer, who waits for that bet's
    # share of the coup: FOR UPDATE here deadlocked the two under load
    # (bench/live.py, 300 players).
    return Table.objects.select_for_update(no_key=True).filter(pk=table.pk).first()


def tables_to_deal() -> list[Table]:
    """The open live tables, and any table still holding a coup that takes
    bets (closed or made private since: ``advance`` refunds that coup)."""
    return list(
        Table.objects.filter(Q(live=True, enabled=True) | Q(coups__status=Coup.Status.BETTING))
        .distinct()
        .order_by("pk")
    )


def _latest_coup(table: Table) -> Coup | None:
    return (
        Coup.objects.select_for_update()
        .filter(table=table)
        .select_related("shoe")
        .order_by("-id")
        .first()
    )


@functools.lru_cache(maxsize=16)
def _order(seed_hex: str, entropy: str, decks: int) -> tuple[Card, ...]:
    return tuple(shoe_rules.shoe_order(bytes.fromhex(seed_hex), entropy, decks))


def _new_shoe(table: Table, version: TableVersion, now: dt.datetime) -> Shoe:
    last = (
        Shoe.objects.filter(table=table)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    seed = new_server_seed_hex()
    commitment = rounds.server_seed_hash(bytes.fromhex(seed))
    shoe = Shoe.objects.create(
        table=table,
        number=(last or 0) + 1,
        decks=version.decks,
        server_seed=seed,
        commitment=commitment,
        created_at=now,
    )
    # Logged in the shoe's own transaction, before any bet can see it.
    append_pending(commitment=commitment, nonce=shoe.number, game=Game.BACCARAT, table=table.slug)
    return shoe


def _open_coup(table: Table, shoe: Shoe, number: int, now: dt.datetime) -> Coup:
    seconds = rounds.current_version(table).betting_seconds
    return Coup.objects.create(
        shoe=shoe,
        table=table,
        number=number,
        opens_at=now,
        closes_at=now + dt.timedelta(seconds=seconds),
    )


@dataclass(frozen=True)
class Step:
    """What ``advance`` did: "opened", "dealt", "void", "waiting" (the
    shoe's first coup had no bet: its window opened again) or "" (nothing
    was due)."""

    did: str
    coup: Coup | None = None


def advance(table: Table, *, now: dt.datetime | None = None) -> Step:
    """Move a live table on by one step if one is due now (see the module)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock_table(table)
        if locked is None:
            return Step("")
        coup = _latest_coup(locked)
        if not (locked.live and locked.enabled):
            # An operator closed the table, or made it private, mid-coup.
            if coup is None or coup.status != Coup.Status.BETTING:
                return Step("")
            _void_coup(
                coup,
                now,
                _("The table closed before this coup was dealt; every bet on it is refunded."),
            )
            return Step("void", coup)
        if coup is None or coup.status != Coup.Status.BETTING:
            resting = (
                coup is not None
                and coup.dealt_at is not None
                and (now < coup.dealt_at + dt.timedelta(seconds=RESULT_SECONDS))
            )
            if resting:
                return Step("")
            opened = _next_coup(locked, coup, now)
            step = Step("opened", opened)
        elif now < coup.closes_at:
            return Step("")
        elif now >= coup.closes_at + (coup.closes_at - coup.opens_at):
            _void_coup(coup, now, _("The coup was not dealt in time; every bet on it is refunded."))
            step = Step("void", coup)
        else:
            step = _deal_coup(locked, coup, now)
    return step


def _next_coup(table: Table, last: Coup | None, now: dt.datetime) -> Coup:
    if last is None or last.shoe.ended_at is not None:
        return _open_coup(table, _new_shoe(table, rounds.current_version(table), now), 1, now)
    return _open_coup(table, last.shoe, last.number + 1, now)


def _deal_coup(table: Table, coup: Coup, now: dt.datetime) -> Step:
    shoe = Shoe.objects.select_for_update().get(pk=coup.shoe_id)
    waiting = list(
        Round.objects.filter(coup=coup, status=Round.Status.OPEN)
        .select_related("version", "player")
        .order_by("player_id")
    )
    if not shoe.entropy:
        if not waiting:
            # Nobody has bet on the shoe yet: its order waits for a seed.
            seconds = coup.closes_at - coup.opens_at
            coup.opens_at, coup.closes_at = now, now + seconds
            coup.save(update_fields=["opens_at", "closes_at"])
            return Step("waiting", coup)
        shoe.contributions = sorted(
            shoe_rules.contribution(pseudonym(r.player_id), r.client_seed) for r in waiting
        )
        shoe.entropy = shoe_rules.shoe_entropy(shoe.contributions)
    order = _order(shoe.server_seed, shoe.entropy, shoe.decks)
    start = shoe.position or shoe_rules.burned(order)
    dealt = shoe_rules.coup_at(order, start)
    record = coup_record(dealt, decks=shoe.decks)
    coup.status = Coup.Status.DEALT
    coup.dealt_at = now
    coup.start = start
    coup.cards = record["cards"]
    coup.detail = record["detail"]
    coup.winner = dealt.winner
    coup.player_pair = dealt.player_pair
    coup.banker_pair = dealt.banker_pair
    coup.save()
    shoe.position = start + len(record["cards"])
    if shoe.position >= shoe_rules.cut_position(order):
        shoe.ended_at = now
    shoe.save(update_fields=["contributions", "entropy", "position", "ended_at"])
    for rnd in waiting:
        _settle(rnd, dealt, record, now)
    return Step("dealt", coup)


def _settle(rnd: Round, dealt: DealtCoup, record: dict[str, Any], now: dt.datetime) -> None:
    wallet = rounds.lock_wallet(rnd.player)
    before = rollups.share(rnd)
    back = settle(dealt, rnd.bets, decimal_pays(rnd.version.pays))
    balance = post(
        wallet_id=wallet.pk,
        postings=payout_postings(back),
        round=rnd,
    )
    rnd.returns = back
    rnd.total_return = sum(back.values())
    rnd.balance_after = balance
    rnd.outcome = rounds.outcome(rnd.total_bet, rnd.total_return)
    rnd.status = Round.Status.SETTLED
    rnd.settled_at = now
    rnd.cards = record["cards"]
    rnd.detail = {**record["detail"], "live": True, "coup": rnd.detail.get("coup")}
    rnd.winner = record["winner"]
    rnd.player_pair = record["player_pair"]
    rnd.banker_pair = record["banker_pair"]
    rnd.save(
        update_fields=[
            "returns", "total_return", "balance_after", "outcome", "status", "settled_at",
            "cards", "detail", "winner", "player_pair", "banker_pair",
        ]
    )  # fmt: skip
    rollups.record(rnd, before=before)
    _tell_player(rnd)


def _void_coup(coup: Coup, now: dt.datetime, reason: str) -> None:
    coup.status = Coup.Status.VOID
    coup.dealt_at = now
    coup.save(update_fields=["status", "dealt_at"])
    waiting = Round.objects.filter(coup=coup, status=Round.Status.OPEN).select_related("player")
    for rnd in waiting.order_by("player_id"):
        wallet = rounds.lock_wallet(rnd.player)
        before = rollups.share(rnd)
        balance = post(
            wallet_id=wallet.pk,
            postings=[Posting(LedgerEntry.Kind.REFUND, rnd.total_bet, f"void coup {coup.pk}")],
            round=rnd,
        )
        rnd.status = Round.Status.VOID
        rnd.void_reason = reason
        rnd.settled_at = now
        rnd.balance_after = balance
        rnd.save(update_fields=["status", "void_reason", "settled_at", "balance_after"])
        rollups.record(rnd, before=before)
        _tell_player(rnd)


# ------------------------------------------------------------------ what is public


def shoe_document(shoe: Shoe) -> dict[str, Any] | None:
    """The shoe as published once it has ended (docs/fairness.md, Live
    tables): everything ``python -m games.baccarat.live`` and the browser's
    ``verifyShoe`` replay. None while the shoe is being dealt."""
    if shoe.ended_at is None:
        return None
    coups = shoe.coups.filter(status=Coup.Status.DEALT).order_by("number")
    return {
        "table": shoe.table.slug,
        "shoe": shoe.number,
        "server_seed": shoe.server_seed,
        "commitment": shoe.commitment,
        "decks": shoe.decks,
        "contributions": list(shoe.contributions),
        "coups": [{"number": c.number, "cards": list(c.cards)} for c in coups],
    }
