"""What a live table shows everybody (``LiveView``) and what it shows one
player (``seat``): read once per event and table by the dealer, never per
player (games/presenters/live.py renders it once per language)."""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import cast

import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Count, Q
from django.utils import timezone

from commitlog.keys import pseudonym
from games.baccarat.live import seal
from games.baccarat.rules import AREAS
from games.models import Coup, Round, Shoe, ShoeSeed, Table
from games.selectors.roads import RoadWindow, coup_roads, dealt_coups, shown_coups

# The roads and the squeeze's navigator read the shoe's dealt coups (a shoe
# holds about 80; even 8 decks of four-card coups would not reach 100).
ROAD_COUPS = 100
WINNERS_SHOWN = 5

logger = logging.getLogger(__name__)


# Who is at a live table: their sockets mark them (games/services/
# reveal_marks.py). With Redis, a sorted set per table (player -> when their
# mark lapses); without, this process's memory (make run: one process).
PRESENT_MARKS: dict[str, dict[int, float]] = {}


def present_key(slug: str) -> str:
    return f"live-present:{slug}"


def present(slug: str) -> set[int]:
    """The players whose mark at the live table has not lapsed."""
    now = time.time()
    if not settings.REDIS_URL:
        return {u for u, until in PRESENT_MARKS.get(slug, {}).items() if until > now}
    try:
        members = _redis().zrangebyscore(cache.make_key(present_key(slug)), f"({now}", "+inf")
    except Exception:  # the cache is down: the table counts its bettors only
        logger.warning("could not read who is at %s", slug, exc_info=True)
        return set()
    return {int(cast(bytes, m)) for m in members}


@functools.cache
def _redis() -> redis.Redis:
    """One client per process, for the dealer's reads."""
    return redis.Redis.from_url(settings.REDIS_URL)


@dataclass(frozen=True)
class LiveView:
    table: Table
    coup: Coup | None
    shoe: Shoe | None
    now: dt.datetime
    players: (
        int  # at the table: watching (a socket open there), or with a bet on this coup or the last
    )
    shares: dict[str, int]  # per area, percent of the coup's stakes (while betting)
    staked: int  # units on the coup, every player together
    roads: RoadWindow
    winners: list[tuple[str, int]]  # (pseudonym, net won) on the last dealt coup
    last: Coup | None  # the last dealt coup (the board shows its cards)
    # A new shoe's first coup: seeds committed with bets, and revealed since
    # betting closed; the commitments' seal, fixed at the close.
    committed: int = 0
    revealed: int = 0
    seal: str = ""
    # The cards of the shoe's coups dealt before ``coup`` (everybody at the
    # table saw them): the squeeze's navigator takes them out of the shoe.
    seen: tuple[str, ...] = ()

    @property
    def betting(self) -> bool:
        return self.coup is not None and self.coup.status == Coup.Status.BETTING

    @property
    def revealing(self) -> bool:
        return self.coup is not None and self.coup.status == Coup.Status.REVEALING

    @property
    def new_shoe(self) -> bool:
        """Bets on this coup commit the players' seeds to the shoe's shuffle."""
        return self.betting and self.shoe is not None and not self.shoe.entropy

    @property
    def seconds_left(self) -> int:
        if not self.betting or self.coup is None:
            return 0
        return max(0, int((self.coup.closes_at - self.now).total_seconds() + 0.999))


def live_view(table: Table, *, now: dt.datetime | None = None) -> LiveView:
    now = now or timezone.now()
    coup = Coup.objects.filter(table=table).select_related("shoe").order_by("-id").first()
    shoe = coup.shoe if coup is not None else None
    dealt = dealt_coups(shoe.pk, limit=ROAD_COUPS) if shoe is not None else []
    last = dealt[-1] if dealt else None
    on_coup = Counter[str]()
    players = present(table.slug)
    if coup is not None:
        for player_id, stakes in Round.objects.filter(coup=coup).values_list("player_id", "bets"):
            players.add(player_id)
            on_coup.update({area: int(stakes.get(area, 0)) for area in AREAS})
    winners: list[tuple[str, int]] = []
    if last is not None:
        settled = Round.objects.filter(coup=last).values_list(
            "player_id", "total_bet", "total_return"
        )
        for player_id, bet, back in settled:
            players.add(player_id)
            if back > bet:
                winners.append((pseudonym(player_id)[:8], back - bet))
        winners.sort(key=lambda w: -w[1])
    staked = sum(on_coup.values())
    committed = revealed = 0
    if shoe is not None and not shoe.entropy and shoe.ended_at is None:
        counts = ShoeSeed.objects.filter(shoe=shoe).aggregate(
            committed=Count("pk"), revealed=Count("pk", filter=~Q(seed=""))
        )
        committed, revealed = counts["committed"], counts["revealed"]
    return LiveView(
        table=table,
        coup=coup,
        shoe=shoe,
        now=now,
        players=len(players),
        shares={a: round(100 * on_coup[a] / staked) if staked else 0 for a in AREAS},
        staked=staked,
        roads=coup_roads(shown_coups(dealt, now)),  # not a coup whose cards still slide in
        winners=winners[:WINNERS_SHOWN],
        last=last,
        committed=committed,
        revealed=revealed,
        seal=seal(shoe.commitments) if shoe is not None and shoe.commitments else "",
        seen=tuple(
            card for c in dealt if coup is None or c.number < coup.number for card in c.cards
        ),
    )


@dataclass(frozen=True)
class Seat:
    """One player at a live table: their bet on the coup taking bets and
    their last settled bet there."""

    stake: dict[str, int]
    last: Round | None


def last_settled(*, player_id: int, table_id: int) -> Round | None:
    """The player's last settled bet at the table."""
    return (
        Round.objects.filter(player_id=player_id, table_id=table_id, status=Round.Status.SETTLED)
        .order_by("-id")
        .first()
    )


def seat(*, user: User, table: Table, coup: Coup | None) -> Seat:
    current = (
        Round.objects.filter(player=user, table=table, coup=coup).first()
        if coup is not None
        else None
    )
    return Seat(
        stake=dict(current.bets)
        if current is not None and current.status == Round.Status.OPEN
        else {},
        last=last_settled(player_id=user.pk, table_id=table.pk),
    )
