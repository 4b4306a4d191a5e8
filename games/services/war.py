"""Casino War rounds: DEAL, the tie decision (WAR or SURRENDER) and its time limit.

A round is fixed when DEAL is pressed: the shoe is shuffled from the player's
committed seeds and the first two cards are dealt. Without a tie the round is
settled in the same transaction. On a tie the round stays OPEN (the ante and
the tie bet are taken, the tie bet is paid at once since it only depends on
the first two cards) and waits for the player's decision; ``decide`` re-derives
the same shoe from the stored seeds, so the burns and the war cards were fixed
at DEAL time too. Everything a waiting round needs is in the database, so it
survives a log-out, a lost socket or a server restart.

The decision has a time limit (the round's version ``decision_timeout``).
The server stores the deadline on the round and is the authority on it: the
table's websocket consumer takes the player off the table when it passes,
``decide`` refuses a late decision (over HTTP too, which sends the page off
the table), and coming back to the table after that (``back_at_table``)
restarts the countdown with the same cards. A reload while the countdown
runs shows the seconds left: it buys no time.

Amounts are minor units (1 chip = 100 units); bets are whole chips.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.cards import Card
from games.errors import BetRefused, GameError
from games.models import Game, LedgerEntry, Profile, Round, Table, TableVersion
from games.money import decimal_pays
from games.selectors import war as war_selectors
from games.selectors.players import is_demo
from games.services import bets, metrics, rollups, rounds
from games.services.push import push, war_group
from games.services.wallet import Posting, post
from games.verify import derive_shoe
from games.war.rules import BURNS, DECISIONS, WarRound, play_war, rank_value, settle_war

# A decision that left the browser just before the countdown ended may arrive
# a moment after the deadline; it still counts.
DECISION_GRACE = dt.timedelta(seconds=2)

# Where each card sits in Round.cards for a war: player, dealer, three burns,
# then the war cards (the order ``play_war`` takes them from the shoe).
WAR_CARD_COUNT = 2 + BURNS + 2

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WarBet:
    """A checked bet, in units."""

    ante: int
    tie_bet: int
    # The ante the player asked for when it was under the table minimum and
    # was raised to it (None when it was not raised).
    raised_from: int | None

    @property
    def total(self) -> int:
        return self.ante + self.tie_bet


group_name = war_group  # the name the consumer and the tests use


def timed_out(rnd: Round, *, now: dt.datetime | None = None) -> bool:
    """Whether an open round's decision deadline has passed (with the grace)."""
    if rnd.status != Round.Status.OPEN or rnd.decision_deadline is None:
        return False
    return (now or timezone.now()) > rnd.decision_deadline + DECISION_GRACE


def _notify(user_id: int, table_slug: str) -> None:
    """Tell the player's table consumers that their waiting round changed
    (a tie opened, a countdown restarted, a decision settled it)."""
    push(war_group(user_id), {"type": "war.update", "slug": table_slug})


def _tie_bet_return(player: Card, dealer: Card, tie_bet: int, version: TableVersion) -> int:
    """The tie bet is settled on the first two cards alone, through the same
    ``settle_war`` as the rest (its other keys are ignored here)."""
    first = WarRound(player, dealer, True, "surrender", None, None, "surrender")
    return settle_war(first, 0, tie_bet, decimal_pays(version.pays))["tie_bet"]


def surrender_back(*, ante: int, version: TableVersion) -> int:
    """What SURRENDER gives back of the ante (half, floored), by the core's rules."""
    tied = WarRound(Card("2", "S"), Card("2", "H"), True, "surrender", None, None, "surrender")
    return settle_war(tied, ante, 0, decimal_pays(version.pays))["ante"]


@dataclass(frozen=True)
class WarDealer:
    """Casino War's part of the round pipeline (``rounds.place_round``): DEAL
    takes the bets and deals one card each; a tie leaves the round OPEN for
    the player's decision (the tie bet is paid at once: it depends on the
    first two cards only)."""

    ante: int
    tie_bet: int
    # The table's version the player's page showed (``bets.check_terms``).
    shown_version: int | bets.Terms = bets.IN_FORCE
    game: str = Game.WAR

    @property
    def stale_slip(self) -> str:
        return _("This bet slip is not valid. Please reload the table.")

    def shoe_seeds(self) -> None:
        return None  # each round is dealt from the player's own committed seed

    def check(
        self,
        *,
        user: User,
        table: Table,
        version: TableVersion,
        profile: Profile,
        balance: int,
        open_round: bool,
    ) -> WarBet:
        if open_round:
            raise GameError(
                _("Finish your war decision first: WAR or SURRENDER."), code="open_round"
            )
        limits = bets.war_limits(user=user, version=version, profile=profile, chips=table.chips)
        bets.check_terms(shown=self.shown_version, version=version, limits=limits, balance=balance)
        checked = bets.check_bets(
            bets={"ante": self.ante, "tie_bet": self.tie_bet}, limits=limits, balance=balance
        )
        return WarBet(
            ante=checked.stakes["ante"],
            tie_bet=checked.stakes.get("tie_bet", 0),
            raised_from=checked.raised_from.get("ante"),
        )

    def deal(
        self,
        *,
        stakes: WarBet,
        seeds: rounds.Seeds,
        version: TableVersion,
        balance: int,
        now: dt.datetime,
    ) -> rounds.Dealt:
        bet = stakes
        shoe = derive_shoe(seeds.server_seed, seeds.client_seed, seeds.nonce, version.decks)
        player, dealer = shoe[0], shoe[1]
        tied = rank_value(player) == rank_value(dealer)
        bets = {"ante": bet.ante}
        if bet.tie_bet:
            bets["tie_bet"] = bet.tie_bet
        detail: dict[str, Any] = {
            "tied": tied,
            "decision": None,
            "result": None,
            "ante_raised_from": bet.raised_from,
        }
        postings = [
            Posting(LedgerEntry.Kind.BET, -bet.ante, "war ante"),
            Posting(LedgerEntry.Kind.BET, -bet.tie_bet, "war tie bonus"),
        ]
        if tied:
            tie_back = _tie_bet_return(player, dealer, bet.tie_bet, version)
            postings.append(Posting(LedgerEntry.Kind.PAYOUT, tie_back, "war tie bonus pays"))
            # What the player holds while the decision waits (the tie bet is paid).
            detail["balance_at_tie"] = balance + rounds.sum_postings(postings)
            return rounds.Dealt(
                status=Round.Status.OPEN,
                bets=bets,
                returns={"tie_bet": tie_back} if bet.tie_bet else {},
                cards=[str(player), str(dealer)],
                detail=detail,
                postings=postings,
                decision_deadline=now + dt.timedelta(seconds=version.decision_timeout),
            )
        war_round = play_war(shoe, None)
        back = settle_war(war_round, bet.ante, bet.tie_bet, decimal_pays(version.pays))
        postings += [
            Posting(LedgerEntry.Kind.PAYOUT, back["ante"], "war ante pays"),
            Posting(LedgerEntry.Kind.PAYOUT, back["tie_bet"], "war tie bonus pays"),
        ]
        returns = {"ante": back["ante"]}
        if bet.tie_bet:
            returns["tie_bet"] = back["tie_bet"]
        detail["result"] = war_round.result
        return rounds.Dealt(
            status=Round.Status.SETTLED,
            bets=bets,
            returns=returns,
            cards=[str(player), str(dealer)],
            detail=detail,
            postings=postings,
            winner=war_round.result,
        )

    def pushes(self, rnd: Round) -> list[tuple[str, dict[str, Any]]]:
        """A tie opens a countdown: the table's socket starts watching it."""
        if rnd.status != Round.Status.OPEN:
            return []
        return [(war_group(rnd.player_id), {"type": "war.update", "slug": rnd.table.slug})]


def play(
    *,
    user: User,
    table: Table,
    ante: int,
    tie_bet: int,
    slip_key: str,
    shown_version: int | None = None,
    now: dt.datetime | None = None,
) -> rounds.Placed:
    """DEAL: take the bets, deal one card each and settle, or open the tie decision.

    ``shown_version``: the number of the table's version (paytable and
    limits) the player's page showed; one that is not the version in force
    is refused with ``bets.TableChanged`` before anything is taken. None (a
    DEAL naming no version) plays under the version in force.

    ``slip_key`` identifies one press of DEAL: sending the same slip again
    (a double click, a retried request) returns the round it made and charges
    nothing more.
    """
    started = time.time()
    terms = bets.IN_FORCE if shown_version is None else shown_version
    dealer = WarDealer(ante=ante, tie_bet=tie_bet, shown_version=terms)
    placed = rounds.place_round(user=user, table=table, slip_key=slip_key, dealer=dealer, now=now)
    metrics.result_sent(Game.WAR, started)  # the answer carries the result (or the tie)
    return placed


def deal(
    *,
    user: User,
    table: Table,
    ante: int,
    tie_bet: int,
    slip_key: str,
    now: dt.datetime | None = None,
) -> Round:
    """``play``, for callers that only need the stored round."""
    return play(
        user=user, table=table, ante=ante, tie_bet=tie_bet, slip_key=slip_key, now=now
    ).round


def decide(
    *,
    user: User,
    round_id: int,
    decision: str,
    now: dt.datetime | None = None,
    late: bool = False,
) -> Round:
    """Settle the player's waiting tie: go to WAR (a raise equal to the ante)
    or SURRENDER (half the ante back, floored). ``late``: settle even after
    the deadline (a player starting a break: the round is never left open).

    Settled under the round's own version, whatever the table's paytable is
    now. A round that is already settled is refused and nothing moves.
    """
    structlog.contextvars.bind_contextvars(user_id=user.pk, round_id=round_id)
    started = time.time()
    try:
        rnd = _decide(user=user, round_id=round_id, decision=decision, now=now, late=late)
    except GameError as refusal:
        metrics.refused(Game.WAR, refusal.code)
        raise
    metrics.settled(rnd, table=rnd.table.slug, demo=is_demo(user))
    metrics.result_sent(Game.WAR, started)
    return rnd


@transaction.atomic
def _decide(
    *, user: User, round_id: int, decision: str, now: dt.datetime | None, late: bool
) -> Round:
    if decision not in DECISIONS:
        raise BetRefused(_("Choose WAR or SURRENDER."))
    now = now or timezone.now()
    wallet = rounds.lock_wallet(user)
    rnd = (
        Round.objects.select_for_update()
        .select_related("version", "table")
        .filter(pk=round_id, player=user, game=Game.WAR)
        .first()
    )
    if rnd is None:
        raise GameError(_("There is no such round."), code="missing")
    if rnd.status != Round.Status.OPEN:
        raise GameError(_("This round is already settled."), code="settled")
    if timed_out(rnd, now=now) and not late:
        raise GameError(
            _(
                "Time ran out for this decision. Return to the table to resume the round "
                "with the same cards."
            ),
            code="timeout",
        )

    ante = int(rnd.bets["ante"])
    tie_bet = int(rnd.bets.get("tie_bet", 0))
    waiting = rollups.share(rnd)
    if decision == "war":
        bets.check_raise(user=user, ante=ante, balance=wallet.balance, now=now)

    version = rnd.version
    shoe = derive_shoe(rnd.server_seed, rnd.client_seed, rnd.nonce, version.decks)
    if [str(c) for c in shoe[:2]] != rnd.cards[:2]:
        # The stored cards are the shuffle's; a mismatch means the round was
        # tampered with or the shuffle changed: never settle on it.
        raise GameError(_("This round cannot be settled. Please contact support."), code="shoe")
    war_round = play_war(shoe, decision)
    back = settle_war(war_round, ante, tie_bet, decimal_pays(version.pays))

    postings: list[Posting] = []
    staked = dict(rnd.bets)
    if decision == "war":
        staked["raise"] = ante
        postings.append(Posting(LedgerEntry.Kind.BET, -ante, "war raise"))
    postings.append(Posting(LedgerEntry.Kind.PAYOUT, back["ante"], "war ante pays"))
    if decision == "war":
        postings.append(Posting(LedgerEntry.Kind.PAYOUT, back["raise"], "war raise pays"))
    # The tie bet was paid at DEAL; it is only recorded here.
    balance_after = post(wallet_id=wallet.pk, postings=postings, round=rnd)

    returns = {"ante": back["ante"]}
    if decision == "war":
        returns["raise"] = back["raise"]
        rnd.cards = [str(c) for c in shoe[:WAR_CARD_COUNT]]
    if tie_bet:
        returns["tie_bet"] = int(rnd.returns.get("tie_bet", back["tie_bet"]))
    rnd.bets = staked
    rnd.returns = returns
    rnd.total_bet = sum(staked.values())
    rnd.total_return = sum(returns.values())
    rnd.balance_after = balance_after
    rnd.outcome = rounds.outcome(rnd.total_bet, rnd.total_return)
    rnd.winner = war_round.result
    rnd.detail = {**rnd.detail, "decision": decision, "result": war_round.result}
    rnd.status = Round.Status.SETTLED
    rnd.settled_at = now
    rnd.decision_deadline = None
    rnd.save(
        update_fields=[
            "cards",
            "bets",
            "returns",
            "total_bet",
            "total_return",
            "balance_after",
            "outcome",
            "winner",
            "detail",
            "status",
            "settled_at",
            "decision_deadline",
        ]
    )
    rollups.record(rnd, before=waiting)
    _notify(user.pk, rnd.table.slug)
    transaction.on_commit(partial(rounds.log_round, "round_decided", rnd))
    return rnd


@transaction.atomic
def resume(*, user: User, table: Table, now: dt.datetime | None = None) -> Round | None:
    """The player is back at the table: their waiting round, if any, as
    ``back_at_table`` leaves it (the same cards; nothing is dealt again)."""
    rnd = war_selectors.open_round(user=user, table=table)
    if rnd is None:
        return None
    return back_at_table(rnd, now=now)


def back_at_table(rnd: Round, *, now: dt.datetime | None = None) -> Round:
    """A waiting round as the table shows it: one whose time ran out (the
    player was taken off the table) with a fresh countdown; one whose
    countdown still runs as it is, so a reload buys no time."""
    if timed_out(rnd, now=now):
        return restart_countdown(rnd, now=now)
    return rnd


def restart_countdown(rnd: Round, *, now: dt.datetime | None = None) -> Round:
    """A waiting round's countdown starts again (the player is back at the table)."""
    now = now or timezone.now()
    rnd.decision_deadline = now + dt.timedelta(seconds=rnd.version.decision_timeout)
    Round.objects.filter(pk=rnd.pk, status=Round.Status.OPEN).update(
        decision_deadline=rnd.decision_deadline
    )
    _notify(rnd.player_id, rnd.table.slug)
    return rnd
