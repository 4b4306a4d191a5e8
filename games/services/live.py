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
window; at the close it deals the coup and settles its bets (a new shoe's
first coup waits ``REVEAL_SECONDS`` first, while the players who committed
a seed with their bet reveal it: ``reveal``); a coup left
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
from django.utils.translation import gettext_noop

from commitlog.keys import pseudonym
from commitlog.leaves import append_pending
from games.baccarat import live as shoe_rules
from games.baccarat.rules import Coup as DealtCoup
from games.baccarat.rules import settle
from games.cards import Card
from games.errors import BetRefused
from games.models import (
    Coup,
    Game,
    LedgerEntry,
    Profile,
    Round,
    Shoe,
    ShoeSeed,
    Table,
    TableVersion,
)
from games.money import decimal_pays
from games.selectors.live import last_settled
from games.services import bets as bet_check
from games.services import live_squeeze, rollups, rounds
from games.services.baccarat import coup_record, payout_postings, stake_postings
from games.services.bets import IN_FORCE, Terms
from games.services.push import push
from games.services.reveal_marks import others_open
from games.services.wallet import Posting, new_server_seed_hex, post

# Between a coup's result and the next window: the reveal's time on screen.
RESULT_SECONDS = 6
# After a new shoe's first betting window: the players' browsers reveal the
# seeds they committed (games/baccarat/live.py), then the shoe is shuffled.
REVEAL_SECONDS = 3
UNDECIDED = (Coup.Status.BETTING, Coup.Status.REVEALING)


def live_group(table: Table) -> str:
    """The Channels group of every socket at a live table."""
    return f"live-{table.slug}"


def seat_group(user_id: int) -> str:
    """The Channels group of one player's live-table sockets: their own figures."""
    return f"live-seat-{user_id}"


def last_coup(rnd: Round | None) -> dict[str, Any] | None:
    """A player's settled bet as their seat shows it: its round, coup,
    stake and return."""
    if rnd is None:
        return None
    return {
        "round": rnd.pk,
        "coup": rnd.detail.get("coup"),
        "staked": rnd.total_bet,
        "returned": rnd.total_return,
    }


def _tell_player(rnd: Round) -> None:
    """The player's new balance and last settled coup once their bet is
    settled or refunded: their socket draws their seat from this alone. (Read
    from the database instead, 800 bettors' seats after each deal held up
    the next coup's BETs on their socket worker's database thread.)"""
    last = (
        rnd
        if rnd.status == Round.Status.SETTLED
        else last_settled(player_id=rnd.player_id, table_id=rnd.table_id)
    )
    push(
        seat_group(rnd.player_id),
        {
            "type": "live.seat",
            "table": rnd.table_id,
            "balance": rnd.balance_after,
            "last": last_coup(last),
        },
    )


# ------------------------------------------------------------------ betting


def _for_share() -> str:
    # Bets share the coup's row; the deal takes it alone, so it waits for
    # every bet in flight and every bet after it sees the coup dealt.
    return " FOR SHARE" if connection.vendor == "postgresql" else ""


def _shared_coup(table: Table) -> Coup | None:
    """The table's latest coup, its row shared for the transaction."""
    name = connection.ops.quote_name(Coup._meta.db_table)
    found = list(
        Coup.objects.raw(
            f"SELECT * FROM {name} WHERE table_id = %s ORDER BY id DESC LIMIT 1{_for_share()}",  # noqa: S608 - names are ours
            [table.pk],
        )
    )
    return found[0] if found else None


def betting_coup(table: Table) -> Coup | None:
    """The table's coup now taking bets (its row shared for the transaction)."""
    coup = _shared_coup(table)
    return coup if coup is not None and coup.status == Coup.Status.BETTING else None


def _commitment(text: str) -> str:
    digest = text.strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise BetRefused(
            _("The seed commitment must be a SHA-256 in hexadecimal. Nothing was taken."),
            code="commit",
        )
    return digest


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
    # SHA-256 hex of the player's secret seed, sent with a bet on a new
    # shoe's first coup (ignored on the others).
    commit: str = ""
    # The coup the page showed taking bets (its id): a BET that reaches the
    # server after that coup closed is refused, not staked on the next one.
    meant: str = ""
    game: str = Game.BACCARAT
    # The coup taking bets, read (its row shared) by place_bet before the
    # wallet is locked: the deal's lock order.
    coup: Coup | None = field(default=None, init=False)
    seeds: rounds.Seeds | None = field(default=None, init=False)
    shoe_seed: ShoeSeed | None = field(default=None, init=False)
    balance_after: int = field(default=0, init=False)  # once the stake is taken

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
        coup = self.coup
        if coup is None or (self.now or timezone.now()) >= coup.closes_at:
            raise closed()
        if self.meant and self.meant != str(coup.pk):
            raise closed()  # the coup on the player's screen closed; this is the next one
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
        shoe = Shoe.objects.only("commitment", "entropy").get(pk=coup.shoe_id)
        if self.commit and not shoe.entropy:
            self.shoe_seed = ShoeSeed(shoe=shoe, player=user, commitment=_commitment(self.commit))
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
        if self.coup is None:  # check() refused the slip already
            raise closed()
        if self.shoe_seed is not None:
            self.shoe_seed.save()
        postings = stake_postings(stakes)
        self.balance_after = balance + rounds.sum_postings(postings)
        return rounds.Dealt(
            status=Round.Status.OPEN,
            bets=stakes,
            returns={},
            cards=[],
            # "seed": the shoe whose shuffle awaits this player's seed.
            detail={"live": True, "coup": self.coup.number}
            | ({"seed": self.coup.shoe_id} if self.shoe_seed is not None else {}),
            postings=postings,
            coup_id=self.coup.pk,
        )

    def pushes(self, rnd: Round) -> list[tuple[str, dict[str, Any]]]:
        """The player's other tabs at the table, if they have one open, hear
        their stake and balance (the tab that bet hears BET's answer; the
        table's stakes go out with the dealer's state)."""
        if not others_open(rnd.player_id, rnd.table.slug):
            return []
        event = {"type": "live.placed", "table": rnd.table_id, "stake": dict(rnd.bets)}
        return [(seat_group(rnd.player_id), {**event, "balance": self.balance_after})]


def place_bet(
    *,
    user: User,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    shown_version: int | None | Terms = IN_FORCE,
    commit: str = "",
    coup: str = "",
    now: dt.datetime | None = None,
) -> rounds.Placed:
    """Stake a slip on the coup taking bets at ``table`` (refused once it
    has closed); idempotent per ``slip_key`` as every round. ``commit``:
    the player's seed commitment, kept when the coup is a new shoe's first;
    ``coup``: the id of the coup the page showed, refused if it has closed."""
    if not table.live:
        raise BetRefused(_("This table deals each player's own rounds."), code="not_live")
    dealer = LiveDealer(
        bets=dict(bets), shown_version=shown_version, commit=commit, meant=coup, now=now
    )
    try:
        with transaction.atomic():
            # Locks in the deal's order: the coup (shared), then the wallet
            # (place_round). The deal holds the coup, then each bettor's
            # wallet; a BET that took its wallet first, by a player already
            # on the coup, deadlocked with it (bench/live.py, 1,000 players).
            dealer.coup = betting_coup(table)
            return rounds.place_round(
                user=user, table=table, slip_key=slip_key, dealer=dealer, now=now
            )
    except BetRefused as refusal:
        # place_round counted the refusal inside this transaction, which
        # rolled back with it: counted here, once.
        bet_check.count_refusal(user=user, code=refusal.code)
        raise


def reveal(*, user: User, table: Table, seed: str, now: dt.datetime | None = None) -> ShoeSeed:
    """The player's secret seed for the new shoe, revealed after its first
    coup's betting closed: it must hash to the commitment they made with
    their bet, and arrive before the shoe is shuffled."""
    now = now or timezone.now()
    try:
        shoe_rules.contribution("-", seed)
    except ValueError:
        raise BetRefused(
            _("A seed is 1 to 64 characters of text, without ':' or a line break."), code="seed"
        ) from None
    with transaction.atomic():
        coup = _shared_coup(table)
        if (
            coup is None
            or coup.status != Coup.Status.REVEALING
            or now >= coup.closes_at + dt.timedelta(seconds=REVEAL_SECONDS)
        ):
            raise BetRefused(_("There is no seed to reveal now."), code="no_reveal")
        mine = (
            ShoeSeed.objects.select_for_update().filter(shoe_id=coup.shoe_id, player=user).first()
        )
        if mine is None:
            raise BetRefused(_("You committed no seed to this shoe."), code="no_commit")
        if shoe_rules.seed_commitment(seed) != mine.commitment:
            raise BetRefused(
                _("This seed does not match the commitment sent with your bet."),
                code="mismatch",
            )
        if not mine.seed:
            mine.seed, mine.revealed_at = seed, now
            mine.save(update_fields=["seed", "revealed_at"])
        return mine


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
        Table.objects.filter(
            Q(live=True, enabled=True) | Q(coups__status__in=[*UNDECIDED, Coup.Status.SQUEEZING])
        )
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
    shoe's first coup had no bet: its window opened again), "revealing" (a
    new shoe's commitments fixed, its players' seeds awaited) or "" (nothing
    was due); a squeezed coup (``live_squeeze``): "squeezing" (dealt face
    down), "peeled" (a card opened, the next peel began), "squeezed" (its
    last card opened and its bets settled)."""

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
            if coup is not None and coup.status == Coup.Status.SQUEEZING:
                return _open_squeezed(coup, now)  # the cards are drawn: they open
            if coup is None or coup.status not in UNDECIDED:
                return Step("")
            _void_coup(
                coup,
                now,
                gettext_noop(
                    "The table closed before this coup was dealt; every bet on it is refunded."
                ),
            )
            return Step("void", coup)
        if coup is not None and coup.status == Coup.Status.SQUEEZING:
            return _squeeze_step(coup, now)
        if coup is None or coup.status not in UNDECIDED:
            resting = (
                coup is not None
                and coup.dealt_at is not None
                and (now < coup.dealt_at + dt.timedelta(seconds=RESULT_SECONDS))
            )
            if resting:
                return Step("")
            if coup is not None and coup.status == Coup.Status.DEALT:
                _settle_open(coup, now)  # bets its dealer left open
            return Step("opened", _next_coup(locked, coup, now))
        revealing = coup.status == Coup.Status.REVEALING
        due = coup.closes_at + dt.timedelta(seconds=REVEAL_SECONDS if revealing else 0)
        if now < due:
            return Step("")
        if now >= due + (coup.closes_at - coup.opens_at):
            _void_coup(
                coup,
                now,
                gettext_noop("The coup was not dealt in time; every bet on it is refunded."),
            )
            return Step("void", coup)
        shoe = Shoe.objects.select_for_update().get(pk=coup.shoe_id)
        if shoe.entropy:
            return _deal_coup(coup, shoe, now)
        if revealing:
            return _shuffle_and_deal(coup, shoe, now)
        return _close_first_coup(coup, shoe, now)


def _next_coup(table: Table, last: Coup | None, now: dt.datetime) -> Coup:
    if last is None or last.shoe.ended_at is not None:
        return _open_coup(table, _new_shoe(table, rounds.current_version(table), now), 1, now)
    return _open_coup(table, last.shoe, last.number + 1, now)


def _close_first_coup(coup: Coup, shoe: Shoe, now: dt.datetime) -> Step:
    """A new shoe's first betting window closed: its commitments are fixed
    and the players reveal their seeds. With no bet, the window opens again
    (the shoe waits for a player); with bets but no commitment, the coup is
    void and the shoe, unshuffled, is put away."""
    if not Round.objects.filter(coup=coup, status=Round.Status.OPEN).exists():
        seconds = coup.closes_at - coup.opens_at
        coup.opens_at, coup.closes_at = now, now + seconds
        coup.save(update_fields=["opens_at", "closes_at"])
        return Step("waiting", coup)
    committed = ShoeSeed.objects.filter(shoe=shoe).values_list("player_id", "commitment")
    shoe.commitments = sorted(f"{pseudonym(player)}:{digest}" for player, digest in committed)
    if not shoe.commitments:
        return _unshuffled(
            coup,
            shoe,
            now,
            gettext_noop(
                "No player committed a seed to the new shoe, so it could not be shuffled; every bet on this coup is refunded."
            ),
        )
    shoe.save(update_fields=["commitments"])
    coup.status = Coup.Status.REVEALING
    coup.save(update_fields=["status"])
    return Step("revealing", coup)


def _shuffle_and_deal(coup: Coup, shoe: Shoe, now: dt.datetime) -> Step:
    """The reveals are in: the revealed seeds fix the shoe's order (a
    commitment not revealed counts for nothing), then its first coup is dealt."""
    revealed = ShoeSeed.objects.filter(shoe=shoe).exclude(seed="")
    shoe.contributions = sorted(
        shoe_rules.contribution(pseudonym(player), seed)
        for player, seed in revealed.values_list("player_id", "seed")
    )
    if not shoe.contributions:
        return _unshuffled(
            coup,
            shoe,
            now,
            gettext_noop(
                "No player revealed their seed in time, so the new shoe could not be shuffled; every bet on this coup is refunded."
            ),
        )
    shoe.entropy = shoe_rules.shoe_entropy(shoe.contributions)
    return _deal_coup(coup, shoe, now)


def _unshuffled(coup: Coup, shoe: Shoe, now: dt.datetime, reason: str) -> Step:
    shoe.save(update_fields=["commitments"])
    _void_coup(coup, now, reason)  # and the shoe put away: the next step starts a new one
    return Step("void", coup)


def _deal_coup(coup: Coup, shoe: Shoe, now: dt.datetime) -> Step:
    # What the squeeze's rule reads of each bet, no more: the deal's state
    # waits for this read (loaded whole, 800 bets cost the deal 98 ms).
    waiting = list(
        Round.objects.filter(coup=coup, status=Round.Status.OPEN)
        .select_related("version")
        .only("pk", "player_id", "bets", "total_bet", "version__squeeze_threshold")
        .order_by("player_id")
    )
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
    if live_squeeze.hold(table=coup.table, coup=coup, shoe=shoe, waiting=waiting, now=now):
        return Step("squeezing", coup)  # its bets settle when the cards open
    return Step("dealt", coup)  # its bets settle once its result is out: settle_coup


# Bets settled to a transaction after a deal (settle_coup).
SETTLE_BATCH = 100


def settle_coup(coup: Coup, *, now: dt.datetime | None = None) -> int:
    """Settle the bets still open on a dealt coup, ``SETTLE_BATCH`` to a
    transaction, each under the table's lock; how many it settled. The
    dealer calls it once the cards are in place on every screen and the
    result is out (presenters.live.tick): no balance gives the result away
    before, and no socket waits for a hundred settlements to see the cards.
    Bets a dealer left open (it died in between) are settled before the
    next coup opens."""
    now = now or timezone.now()
    settled = 0
    while True:
        with transaction.atomic():
            _lock_table(coup.table)
            done = _settle_open(coup, now, limit=SETTLE_BATCH)
        settled += done
        if done < SETTLE_BATCH:
            return settled


def _settle_open(coup: Coup, now: dt.datetime, *, limit: int | None = None) -> int:
    """Settle up to ``limit`` bets still open on ``coup`` (dealt): how many."""
    waiting = (
        Round.objects.filter(coup=coup, status=Round.Status.OPEN)
        .select_related("version", "player")
        .order_by("player_id")
    )
    rounds = list(waiting[:limit] if limit else waiting)
    if rounds:
        dealt = live_squeeze.dealt_coup(coup)
        record = coup_record(dealt, decks=int(coup.detail["decks"]))
        for rnd in rounds:
            _settle(rnd, dealt, record, now)
    return len(rounds)


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
    """Refund every bet on ``coup``. ``reason`` is kept in English (marked
    with gettext_noop) and translated where it is shown: the dealer speaks
    to every language at once."""
    coup.status = Coup.Status.VOID
    coup.dealt_at = now
    coup.void_reason = reason
    coup.save(update_fields=["status", "dealt_at", "void_reason"])
    shoe = Shoe.objects.select_for_update().get(pk=coup.shoe_id)
    if not shoe.entropy and shoe.ended_at is None:
        # A new shoe's first coup void, its seeds committed or even revealed:
        # the shoe is put away unshuffled and the next coup starts a new one
        # with a new seed. Kept, its revealed seeds would let the house,
        # which knows them and its own seed, choose a seed that picks the order.
        shoe.ended_at = now
        shoe.save(update_fields=["ended_at"])
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


# ------------------------------------------------------------------ the squeeze
# The squeeze's own rules are in services/live_squeeze.py; these are its
# steps of the dealer, under the table's row lock as every step.


def _squeeze_step(coup: Coup, now: dt.datetime) -> Step:
    """A squeezing coup moves on when its card's time is up."""
    due = live_squeeze.due(coup, now)
    if due == "peel":
        live_squeeze.next_peel(coup, now)
        return Step("peeled", coup)
    if due == "open":
        return _open_squeezed(coup, now)
    return Step("")


def _open_squeezed(coup: Coup, now: dt.datetime) -> Step:
    """Every card of a squeezed coup opens: it is dealt, its bets settled."""
    live_squeeze.open_all(coup, now)
    _settle_open(coup, now)
    return Step("squeezed", coup)


def open_card(*, table: Table, user: User, slot: str, now: dt.datetime | None = None) -> Step:
    """The peeler opens the card they peel (``slot``): the next peel
    begins or, that card the last, the coup is dealt and settled. From
    anyone else, or for another card, it changes nothing (``Step("")``)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock_table(table)
        coup = _latest_coup(locked) if locked is not None else None
        if coup is None or not live_squeeze.may_open(coup, user_id=user.pk, slot=slot):
            return Step("")
        if live_squeeze.is_last(coup):
            return _open_squeezed(coup, now)
        live_squeeze.next_peel(coup, now)
        return Step("peeled", coup)


# ------------------------------------------------------------------ what is public


def shoe_document(shoe: Shoe) -> dict[str, Any] | None:
    """The shoe as published once it has ended (docs/fairness.md, Live
    tables): everything ``python -m games.baccarat.live`` and the browser's
    ``verifyShoe`` replay. None while the shoe is being dealt, and for a
    shoe put away unshuffled (no player's seed: it dealt no card)."""
    if shoe.ended_at is None or not shoe.entropy:
        return None
    coups = shoe.coups.filter(status__in=[Coup.Status.DEALT, Coup.Status.VOID]).order_by("number")
    return {
        "table": shoe.table.slug,
        "shoe": shoe.number,
        "server_seed": shoe.server_seed,
        "commitment": shoe.commitment,
        "decks": shoe.decks,
        "commitments": list(shoe.commitments),
        "contributions": list(shoe.contributions),
        "coups": [
            {"number": c.number, "cards": list(c.cards)}
            | ({"void": True} if c.status == Coup.Status.VOID else {})
            for c in coups
        ],
    }
