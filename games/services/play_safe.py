"""Play that stays play: loss limits, reality checks, time-outs and
self-exclusion (docs/play-safe.md).

The bet check (``rounds.bet_limits`` / ``rounds.check_bets``) asks
``bet_gate`` before any chip moves: a time-out or self-exclusion, a reality
check waiting for an answer, or a bet that would let a period's net loss
pass the player's limit is refused there, for every game, whatever sent it.

Rules, each with an injected clock (``now``):

* Loss limits per day, week (from Monday) and month, each starting at
  midnight in the player's zone (``Profile.time_zone``). Net loss is what
  the period's rounds staked less what they returned (void rounds count
  nothing). Setting or lowering takes effect at once; raising or removing a
  day later, shown as pending meanwhile. The tightest period applies. Demo
  accounts have no loss limits.
* A reality check every 15, 30 or 60 minutes of a session: when it falls
  due the next round is refused until the player answers (keep playing, see
  the history, log out).
* A break (time-out or self-exclusion) starts at once, is append-only
  (``PlayBreak``), ends every session and socket of the account and settles
  a War round waiting for a decision as a surrender: the timed-out decision
  that stakes nothing more. Only a longer break can be taken on top.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import zoneinfo
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import BigIntegerField, Count, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, TruncMonth
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.sessions import end_user_sessions
from casino.sockets import end_player_sockets
from games.display import format_chips
from games.errors import BetRefused, GameError
from games.models import AuditEntry, LimitRefusal, LossLimit, PlayBreak, Profile, Round

RAISE_DELAY = dt.timedelta(hours=24)
PERIODS = (LossLimit.Period.DAY, LossLimit.Period.WEEK, LossLimit.Period.MONTH)
REALITY_INTERVALS = (0, 15, 30, 60)
MAX_LOSS_LIMIT = 10**13  # units: far above any wallet, below BigInteger's range

# (code, label, days or months): the lengths the player may choose.
TIMEOUTS = {
    "24h": (gettext_lazy("24 hours"), dt.timedelta(hours=24), 0),
    "1w": (gettext_lazy("1 week"), dt.timedelta(weeks=1), 0),
    "1m": (gettext_lazy("1 month"), dt.timedelta(0), 1),
    "6w": (gettext_lazy("6 weeks"), dt.timedelta(weeks=6), 0),
}
EXCLUSIONS = {
    "6m": (gettext_lazy("6 months"), dt.timedelta(0), 6),
    "1y": (gettext_lazy("1 year"), dt.timedelta(0), 12),
    "5y": (gettext_lazy("5 years"), dt.timedelta(0), 60),
}

# Refusal codes the operator's report counts.
LOSS_LIMIT = "loss_limit"
ON_BREAK = "on_break"
REALITY_CHECK = "reality_check"
COUNTED = frozenset({LOSS_LIMIT, ON_BREAK, REALITY_CHECK})
REFUSAL_LABELS = {
    LOSS_LIMIT: gettext_lazy("Loss limit"),
    ON_BREAK: gettext_lazy("Time-out or self-exclusion"),
    REALITY_CHECK: gettext_lazy("Reality check due"),
}
SESSION_STARTED = "play_safe_started"


# ------------------------------------------------------------------ time


def zone_of(profile: Profile | None) -> zoneinfo.ZoneInfo:
    name = profile.time_zone if profile is not None else "UTC"
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


@functools.cache
def _zones() -> frozenset[str]:
    # available_timezones() walks the tz database on disk at every call.
    return frozenset(zoneinfo.available_timezones())


def valid_zone(name: str) -> bool:
    return name in _zones()


@transaction.atomic
def set_time_zone(*, user: User, name: str) -> None:
    """The zone the player's days and months start in: audited, as it moves
    when a loss limit's period resets."""
    if not valid_zone(name):
        raise GameError(_("Choose a time zone such as Asia/Tokyo or Europe/London."), code="zone")
    before = Profile.objects.select_for_update().values_list("time_zone", flat=True).get(user=user)
    now = timezone.now()
    if name != before and (
        any(v is not None for v in limits_in_force(user, now).values())
        or pending_changes(user, now)
    ):
        # The zone decides when each period starts: moving it to a zone just
        # past midnight would start a fresh day at once, a raise without the
        # 24 hours' wait.
        raise GameError(
            _(
                "While a loss limit is set, your time zone stays as it is: it decides when "
                "each limit resets. Remove your limits first (that takes 24 hours)."
            ),
            code="zone_locked",
        )
    Profile.objects.filter(user=user).update(time_zone=name)
    _audit(user=user, action="play_safe.time_zone", before={"zone": before}, after={"zone": name})


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


# ------------------------------------------------------------------ loss limits


def _net_losses(user: User, windows: dict[str, tuple[dt.datetime, dt.datetime]]) -> dict[str, int]:
    """The net loss of each window (period: start, end), in one query.

    A War round waiting for its decision may still stake its raise (the ante
    once more): it counts as lost already, so no other bet meanwhile can
    leave the raise past the limit.
    """
    if not windows:
        return {}
    sums = {}
    ante = Cast(KT("bets__ante"), BigIntegerField())
    for period, (start, end) in windows.items():
        window = Q(created_at__gte=start, created_at__lt=end)
        sums[f"{period}_bet"] = Sum("total_bet", filter=window)
        sums[f"{period}_back"] = Sum("total_return", filter=window)
        sums[f"{period}_raise"] = Sum(ante, filter=window & Q(status=Round.Status.OPEN))
    earliest = min(start for start, _end in windows.values())
    totals = (
        Round.objects.filter(player=user, created_at__gte=earliest)
        .exclude(status=Round.Status.VOID)
        .aggregate(**sums)
    )
    return {
        period: max(
            0,
            (totals[f"{period}_bet"] or 0)
            + (totals[f"{period}_raise"] or 0)
            - (totals[f"{period}_back"] or 0),
        )
        for period in windows
    }


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
    lost: int
    resets_at: dt.datetime
    zone: str

    @property
    def left(self) -> int:
        return max(0, self.limit - self.lost)


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


def loss_refusal(room: LossRoom) -> BetRefused:
    label = LossLimit.Period(room.period).label
    resets = (
        f"{room.resets_at.astimezone(zoneinfo.ZoneInfo(room.zone)):%Y-%m-%d %H:%M} ({room.zone})"
    )
    return BetRefused(
        _(
            "This bet could take you past your %(period)s loss limit of %(limit)s chips: "
            "%(left)s chips are left until it resets at %(resets)s."
        )
        % {
            "period": str(label).lower(),
            "limit": format_chips(room.limit),
            "left": format_chips(room.left),
            "resets": resets,
        },
        code=LOSS_LIMIT,
    )


def _audit(*, user: User, action: str, before, after) -> None:
    AuditEntry.objects.create(
        actor=user,
        action=action,
        object_type="play_safe",
        object_id=str(user.pk),
        object_repr=user.get_username()[:200],
        before=before,
        after=after,
    )


def _chips_or_none(amount: int | None) -> str | None:
    return None if amount is None else format_chips(amount)


@transaction.atomic
def set_loss_limit(
    *, user: User, period: str, amount: int | None, now: dt.datetime | None = None
) -> LossLimit:
    """Set the player's ``period`` loss limit to ``amount`` units (None:
    remove it). Tighter takes effect at once; looser a day later. A new
    request replaces a pending one."""
    now = now or timezone.now()
    if period not in PERIODS:
        raise GameError(_("Choose a daily, weekly or monthly limit."), code="period")
    if amount is not None and not 0 <= amount <= MAX_LOSS_LIMIT:
        raise GameError(_("A loss limit is a number of chips, 0 or more."), code="amount")
    profile = Profile.objects.select_for_update().get(user=user)
    if profile.demo:
        raise GameError(_("Demo chips have no loss limits."), code="demo")
    current = limits_in_force(user, now)[period]
    tighter = amount is not None and (current is None or amount <= current)
    LossLimit.objects.filter(
        user=user, period=period, cancelled_at__isnull=True, effective_at__gt=now
    ).update(cancelled_at=now)
    row = LossLimit.objects.create(
        user=user,
        period=period,
        amount=amount,
        requested_at=now,
        effective_at=now if tighter else now + RAISE_DELAY,
    )
    if not profile.loss_limits_set:
        Profile.objects.filter(pk=profile.pk).update(loss_limits_set=True)
    _audit(
        user=user,
        action="play_safe.loss_limit",
        before={"period": period, "limit": _chips_or_none(current)},
        after={
            "period": period,
            "limit": _chips_or_none(amount),
            "in_force_from": row.effective_at.isoformat(),
        },
    )
    return row


# ------------------------------------------------------------------ breaks


def length_label(length: str) -> str:
    found = TIMEOUTS.get(length) or EXCLUSIONS.get(length)
    return str(found[0]) if found else length


def break_end(length: str, start: dt.datetime) -> tuple[str, dt.datetime]:
    """The kind of a break of ``length`` and when it ends."""
    for kind, lengths in (
        (PlayBreak.Kind.TIMEOUT, TIMEOUTS),
        (PlayBreak.Kind.EXCLUSION, EXCLUSIONS),
    ):
        if length in lengths:
            _label, delta, months = lengths[length]
            return kind, add_months(start, months) + delta if months else start + delta
    raise GameError(_("Choose one of the lengths offered."), code="length")


def active_break(user: User, now: dt.datetime | None = None) -> PlayBreak | None:
    """The break in force with the latest end, if any."""
    now = now or timezone.now()
    return (
        PlayBreak.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now)
        .order_by("-ends_at")
        .first()
    )


def break_message(pause: PlayBreak, profile: Profile | None) -> str:
    values = {"until": local_time(pause.ends_at, profile)}
    if pause.kind == PlayBreak.Kind.EXCLUSION:
        return _("You have excluded yourself until %(until)s.") % values
    return _("You are taking a time-out until %(until)s.") % values


@transaction.atomic
def take_break(*, user: User, length: str, now: dt.datetime | None = None) -> PlayBreak:
    """Start a time-out or self-exclusion now: end every session and socket
    of the account, settle any War round waiting for a decision. A break
    ending sooner than one already in force is refused (it would shorten it)."""
    # Here, not at the top: war and rounds import this module.
    from games.services import rounds, war  # noqa: PLC0415

    now = now or timezone.now()
    kind, ends_at = break_end(length, now)
    # The wallet, then the profile: a round's order (rounds._place), so a
    # round racing the break waits instead of deadlocking.
    rounds.lock_wallet(user)
    profile = Profile.objects.select_for_update().get(user=user)
    if profile.demo:
        raise GameError(_("A demo account cannot take a break: sign up first."), code="demo")
    current = active_break(user, now)
    if current is not None and current.ends_at >= ends_at:
        raise GameError(
            _("You already have a break until %(until)s; it cannot be shortened.")
            % {"until": local_time(current.ends_at, profile)},
            code="shorter",
        )
    pause = PlayBreak.objects.create(
        user=user, kind=kind, length=length, starts_at=now, ends_at=ends_at
    )
    Profile.objects.filter(pk=profile.pk).update(break_until=ends_at)
    for rnd in Round.objects.filter(player=user, game="war", status=Round.Status.OPEN):
        war.decide(user=user, round_id=rnd.pk, decision="surrender", now=now, late=True)
    _audit(
        user=user,
        action=f"play_safe.{kind}",
        before=None if current is None else {"until": current.ends_at.isoformat()},
        after={"length": length, "since": now.isoformat(), "until": ends_at.isoformat()},
    )
    end_user_sessions(user.pk)
    transaction.on_commit(lambda: end_player_sockets(user.pk))
    return pause


# ------------------------------------------------------------------ reality checks


def start_session(*, user: User, now: dt.datetime | None = None) -> None:
    """A login starts a session: its clock, net and first reality check."""
    now = now or timezone.now()
    profile = Profile.objects.filter(user=user).only("reality_check_minutes").first()
    if profile is None:
        return
    minutes = profile.reality_check_minutes
    Profile.objects.filter(pk=profile.pk).update(
        session_started_at=now,
        reality_due_at=now + dt.timedelta(minutes=minutes) if minutes else None,
    )


def on_login(sender, request=None, user=None, **kwargs) -> None:
    """``user_logged_in``: every login (sign-up's too) starts a session."""
    if user is None:
        return
    now = timezone.now()
    start_session(user=user, now=now)
    session = getattr(request, "session", None)
    if session is not None:
        # The header reads the session's start here, not from the profile.
        session[SESSION_STARTED] = now.isoformat()


@transaction.atomic
def set_reality_interval(*, user: User, minutes: int, now: dt.datetime | None = None) -> None:
    now = now or timezone.now()
    if minutes not in REALITY_INTERVALS:
        raise GameError(_("Choose off, 15, 30 or 60 minutes."), code="interval")
    profile = Profile.objects.select_for_update().get(user=user)
    before = profile.reality_check_minutes
    if reality_due(profile, now):
        # A new interval (or off) starts after the check that is due, never
        # instead of it.
        raise GameError(
            _("A reality check is due: answer it at the table first."), code="reality_check"
        )
    Profile.objects.filter(user=user).update(
        reality_check_minutes=minutes,
        reality_due_at=now + dt.timedelta(minutes=minutes) if minutes else None,
    )
    _audit(
        user=user,
        action="play_safe.reality_check",
        before={"minutes": before},
        after={"minutes": minutes},
    )


def reality_due(profile: Profile, now: dt.datetime) -> bool:
    return bool(
        profile.reality_check_minutes
        and profile.reality_due_at is not None
        and now >= profile.reality_due_at
    )


def answer_reality_check(*, user: User, now: dt.datetime | None = None) -> None:
    """The player answered: the next check is one interval from now."""
    now = now or timezone.now()
    profile = Profile.objects.only("reality_check_minutes").get(user=user)
    if profile.reality_check_minutes:
        Profile.objects.filter(pk=profile.pk).update(
            reality_due_at=now + dt.timedelta(minutes=profile.reality_check_minutes)
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
    totals = (
        Round.objects.filter(player=user, created_at__gte=started)
        .exclude(status=Round.Status.VOID)
        .aggregate(bet=Sum("total_bet"), back=Sum("total_return"))
    )
    return SessionSummary(
        started, max(dt.timedelta(0), now - started), (totals["back"] or 0) - (totals["bet"] or 0)
    )


def reality_refusal() -> BetRefused:
    return BetRefused(
        _("Time for a reality check: choose how to go on before the next round."),
        code=REALITY_CHECK,
    )


# ------------------------------------------------------------------ the bet check


@dataclass(frozen=True)
class BetGate:
    """What the player's own controls allow of the next round."""

    blocked: GameError | None = None  # no round at all, and why
    loss: LossRoom | None = None  # the tightest loss limit, when one is set


OPEN_GATE = BetGate()


def bet_gate(*, user: User, profile: Profile, now: dt.datetime | None = None) -> BetGate:
    """The player's controls for a round starting ``now``. Reads nothing
    beyond ``profile`` for a player who never set a limit or took a break."""
    now = now or timezone.now()
    if profile.break_until is not None and profile.break_until > now:
        pause = active_break(user, now)
        if pause is not None:
            return BetGate(blocked=BetRefused(break_message(pause, profile), code=ON_BREAK))
    if reality_due(profile, now):
        return BetGate(blocked=reality_refusal())
    room = tightest(loss_rooms(user, profile, now))
    return BetGate(loss=room) if room is not None else OPEN_GATE


def record_refusal(*, user: User, code: str) -> None:
    """Count a refusal by the player's own controls (outside the refused
    round's transaction, which has rolled back)."""
    if code in COUNTED:
        LimitRefusal.objects.create(user=user, code=code)


def statement_months(user: User, zone: dt.tzinfo) -> list[dict]:
    """Each month's rounds, stakes, returns and net, newest first, months in
    the player's zone."""
    rows = (
        Round.objects.filter(player=user)
        .exclude(status=Round.Status.VOID)
        .annotate(month=TruncMonth("created_at", tzinfo=zone))
        .values("month")
        .annotate(rounds=Count("id"), staked=Sum("total_bet"), returned=Sum("total_return"))
        .order_by("-month")
    )
    return [
        {
            "month": row["month"].astimezone(zone).strftime("%Y-%m"),
            "rounds": row["rounds"],
            "staked": row["staked"] or 0,
            "returned": row["returned"] or 0,
            "net": (row["returned"] or 0) - (row["staked"] or 0),
        }
        for row in rows
    ]


def players_with_controls(now: dt.datetime | None = None) -> Q:
    """Players with a loss limit ever set or a break in force (the operator's list)."""
    now = now or timezone.now()
    return Q(loss_limits_set=True) | Q(break_until__gt=now)
