"""Reads behind the operator's "find a player" screens: the search box's
matches and one player's page (balance, lifetime and 30-day play, last
rounds, adjustments, personal max bet, account state and its history).

Staff look players up by what a player tells them: a username, an e-mail
address or an account number.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Case, Count, F, Q, QuerySet, Sum, Value, When
from django.utils import timezone

from games.models import AuditEntry, LedgerEntry, Round
from games.selectors.demo import real_users

SEARCH_LIMIT = 20
RECENT_ROUNDS = 20
RECENT_ADJUSTMENTS = 20
RECENT_DAYS = 30


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[User]:
    """Players whose username or e-mail contains ``query``, or whose id it is;
    an exact username or id first. Each carries ``balance`` (None without a wallet: staff)."""
    query = query.strip()
    if not query:
        return []
    match = Q(username__icontains=query) | Q(email__icontains=query)
    exact = Q(username__iexact=query)
    if query.isascii() and query.isdigit() and len(query) <= 18:
        match |= Q(pk=int(query))
        exact |= Q(pk=int(query))
    users = (
        real_users(User.objects.filter(match))
        .annotate(
            rank=Case(When(exact, then=Value(0)), default=Value(1)),
            balance=F("wallet__balance"),
        )
        .order_by("rank", "username", "pk")
    )
    return list(users[:limit])


@dataclass(frozen=True)
class Play:
    """Settled and open rounds over a period (void rounds were refunded)."""

    rounds: int = 0
    bet: int = 0
    returned: int = 0

    @property
    def net(self) -> int:
        """The player's result: returned less bet."""
        return self.returned - self.bet


def _play(rounds: QuerySet[Round]) -> Play:
    row = rounds.exclude(status=Round.Status.VOID).aggregate(
        n=Count("id"), bet=Sum("total_bet"), ret=Sum("total_return")
    )
    return Play(rounds=row["n"] or 0, bet=row["bet"] or 0, returned=row["ret"] or 0)


@dataclass(frozen=True)
class PlayerOverview:
    player: User
    balance: int | None
    lifetime: Play
    recent: Play
    recent_days: int
    rounds: list[Round]
    adjustments: list[LedgerEntry]
    personal_max_bet: int | None
    account_history: list[AuditEntry]


def player_overview(*, player: User, now: dt.datetime | None = None) -> PlayerOverview:
    now = now or timezone.now()
    wallet = getattr(player, "wallet", None)
    profile = getattr(player, "profile", None)
    rounds = Round.objects.filter(player=player)
    since = now - dt.timedelta(days=RECENT_DAYS)
    adjustments = (
        LedgerEntry.objects.filter(wallet__user=player, kind=LedgerEntry.Kind.ADJUSTMENT)
        .select_related("actor")
        .order_by("-id")[:RECENT_ADJUSTMENTS]
    )
    history = (
        AuditEntry.objects.filter(object_type="player", object_id=str(player.pk))
        .select_related("actor")
        .order_by("-id")[:RECENT_ADJUSTMENTS]
    )
    return PlayerOverview(
        player=player,
        balance=wallet.balance if wallet is not None else None,
        lifetime=_play(rounds),
        recent=_play(rounds.filter(created_at__gte=since)),
        recent_days=RECENT_DAYS,
        rounds=list(rounds.select_related("table").order_by("-id")[:RECENT_ROUNDS]),
        adjustments=list(adjustments),
        personal_max_bet=profile.personal_max_bet if profile is not None else None,
        account_history=list(history),
    )
