"""Reads of the player's own controls (docs/play-safe.md): the periods and
their net losses, the loss limits in force and pending, the break in force,
whether a reality check is due, the session's summary and the monthly
statement. The writes are ``services.play_safe``'s; the bet check
(``services.bets``) reads through here.

Each takes the clock (``now``) it is asked about.
"""

from __future__ import annotations

import calendar
import datetime as dt
import zoneinfo
from dataclasses import dataclass, replace

from django.contrib.auth.models import User
from django.utils import timezone

from games.models import LossLimit, PlayBreak, Profile
from games.selectors.rollups import months, window_totals, zone_named

PERIODS = (LossLimit.Period.DAY, LossLimit.Period.WEEK, LossLimit.Period.MONTH)


def zone_of(profile: Profile | None) -> zoneinfo.ZoneInfo:
    return zone_named(profile.time_zone if profile is not None else "UTC")


def add_months(moment: dt.datetime, months: int) -> dt.datetime:
    """The same wall-clock time ``months`` later, on the month's last day
    when the day does not exist there (31 January + 1 month: 28/29 February)."""
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def period_bounds(
    period: str, now: dt.datetime, zone: dt.tzinfo
) -> tuple[dt.datetime, dt.datetime]:
    """The start and the end (the next start) of the period holding ``now``,
    at local midnights in ``zone``."""
    local = now.astimezone(zone)
    midnight = dt.datetime.combine(local.date(), dt.time(), tzinfo=zone)
    if period == LossLimit.Period.DAY:
        start = midnight
        end = dt.datetime.combine(local.date() + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    elif period == LossLimit.Period.WEEK:
        monday = local.date() - dt.timedelta(days=local.weekday())
        start = dt.datetime.combine(monday, dt.time(), tzinfo=zone)
        end = dt.datetime.combine(monday + dt.timedelta(days=7), dt.time(), tzinfo=zone)
    else:
        first = local.date().replace(day=1)
        start = dt.datetime.combine(first, dt.time(), tzinfo=zone)
        end = add_months(start, 1)
    return start, end


def local_time(moment: dt.datetime, profile: Profile | None) -> str:
    """A moment as the player reads it: their zone's date and time, and the zone."""
    zone = zone_of(profile)
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"


def _net_losses(user: User, windows: dict[str, tuple[dt.datetime, dt.datetime]]) -> dict[str, int]:
    """The net loss of each window (period: start, end at local midnights),
    in one query over the player's kept day rows (``selectors.rollups``).

    A War round waiting for its decision may still stake its raise (the ante
    once more): it counts as lost already, so no other bet meanwhile can
    leave the raise past the limit.
    """
    days = {period: (start.date(), end.date()) for period, (start, end) in windows.items()}
    return {period: totals.net_loss for period, totals in window_totals(user.pk, days).items()}


def limits_in_force(user: User, now: dt.datetime) -> dict[str, int | None]:
    """Each period's limit at ``now`` (None: none)."""
    found: dict[str, int | None] = {}
    rows = (
        LossLimit.objects.filter(user=user, cancelled_at__isnull=True, effective_at__lte=now)
        .order_by("period", "-effective_at", "-id")
        .values_list("period", "amount")
    )
    for period, amount in rows:
        found.setdefault(period, amount)
    return {period: found.get(period) for period in PERIODS}


def pending_changes(user: User, now: dt.datetime) -> dict[str, LossLimit]:
    """The raises and removals waiting for their day, by period."""
    pending = LossLimit.objects.filter(
        user=user, cancelled_at__isnull=True, effective_at__gt=now
    ).order_by("-effective_at", "-id")
    found: dict[str, LossLimit] = {}
    for row in pending:
        found.setdefault(row.period, row)
    return found


@dataclass(frozen=True)
class LossRoom:
    """The tightest of the player's loss limits now: what is left of it."""

    period: str
    limit: int
    net_loss: int  # below 0 while the player is ahead
    resets_at: dt.datetime
    zone: str

    @property
    def lost(self) -> int:
        """What the limit counts as lost: winnings buy no room past the limit."""
        return max(0, self.net_loss)

    @property
    def left(self) -> int:
        return max(0, self.limit - self.lost)

    def without(self, stake: int) -> LossRoom:
        """The room as it was before ``stake`` counted as lost."""
        return replace(self, net_loss=self.net_loss - stake)


def loss_rooms(user: User, profile: Profile, now: dt.datetime) -> list[LossRoom]:
    """Every period with a limit in force, with its net loss so far."""
    if profile.demo or not profile.loss_limits_set:
        return []
    zone = zone_of(profile)
    limits = {
        period: limit for period, limit in limits_in_force(user, now).items() if limit is not None
    }
    windows = {period: period_bounds(period, now, zone) for period in limits}
    lost = _net_losses(user, windows)
    return [
        LossRoom(period, limit, lost[period], windows[period][1], zone.key)
        for period, limit in limits.items()
    ]


def tightest(rooms: list[LossRoom]) -> LossRoom | None:
    return min(rooms, key=lambda room: (room.left, room.resets_at)) if rooms else None


def active_break(user: User, now: dt.datetime | None = None) -> PlayBreak | None:
    """The break in force with the latest end, if any."""
    now = now or timezone.now()
    return (
        PlayBreak.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now)
        .order_by("-ends_at")
        .first()
    )


def reality_due(profile: Profile, now: dt.datetime) -> bool:
    return bool(
        profile.reality_check_minutes
        and profile.reality_due_at is not None
        and now >= profile.reality_due_at
    )


@dataclass(frozen=True)
class SessionSummary:
    started_at: dt.datetime | None
    played: dt.timedelta
    net: int  # units: returns less stakes of the session's rounds

    @property
    def played_minutes(self) -> int:
        return int(self.played.total_seconds() // 60)


def session_summary(
    user: User,
    profile: Profile | None = None,
    now: dt.datetime | None = None,
    started: dt.datetime | None = None,
) -> SessionSummary:
    """Time played and net result since ``started`` (or the profile's
    session start: the latest login)."""
    now = now or timezone.now()
    if started is None and profile is not None:
        started = profile.session_started_at
    if started is None:
        return SessionSummary(None, dt.timedelta(0), 0)
    # The session's net is kept on the profile (``services.rollups``): the
    # latest login's session.
    if profile is None:
        profile = Profile.objects.filter(user=user).only("session_net").first()
    net = profile.session_net if profile is not None else 0
    return SessionSummary(started, max(dt.timedelta(0), now - started), net)


def statement_months(user: User) -> list[dict]:
    """Each month's rounds, stakes, returns and net, newest first, months in
    the player's zone (the zone the day rows are kept in)."""
    return [
        {
            "month": month,
            "rounds": totals.rounds,
            "staked": totals.staked,
            "returned": totals.returned,
            "net": totals.net,
        }
        for month, totals in months(user.pk)
    ]
