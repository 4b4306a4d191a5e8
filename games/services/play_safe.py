"""Play that stays play: the player's own controls, set and taken here
(docs/play-safe.md). Their reads are ``selectors.play_safe``'s; the bet
check (``services.bets``) refuses before any chip moves a bet during a
time-out or self-exclusion, while a reality check waits for an answer, or
one that would let a period's net loss pass the player's limit, for every
game, whatever sent it.

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

import datetime as dt
import functools
import zoneinfo

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.sessions import end_user_sessions
from games.display import format_chips
from games.errors import GameError
from games.models import AuditEntry, LossLimit, PlayBreak, Profile, Round
from games.selectors.play_safe import (
    PERIODS,
    active_break,
    add_months,
    limits_in_force,
    local_time,
    pending_changes,
    reality_due,
)
from games.services import rollups, rounds, war
from games.services.bets import LOSS_LIMIT, ON_BREAK, REALITY_CHECK
from games.services.sockets import end_player_sockets

RAISE_DELAY = dt.timedelta(hours=24)
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

# The refusals the operator's report counts (``bets.COUNTED``), in words.
REFUSAL_LABELS = {
    LOSS_LIMIT: gettext_lazy("Loss limit"),
    ON_BREAK: gettext_lazy("Time-out or self-exclusion"),
    REALITY_CHECK: gettext_lazy("Reality check due"),
}
SESSION_STARTED = "play_safe_started"


# ------------------------------------------------------------------ time


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
    if name != before:
        rollups.rebuild_days(user=user)  # every local midnight moved
    _audit(user=user, action="play_safe.time_zone", before={"zone": before}, after={"zone": name})


# ------------------------------------------------------------------ loss limits


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


@transaction.atomic
def take_break(*, user: User, length: str, now: dt.datetime | None = None) -> PlayBreak:
    """Start a time-out or self-exclusion now: end every session and socket
    of the account, settle any War round waiting for a decision. A break
    ending sooner than one already in force is refused (it would shorten it)."""
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
        session_net=0,
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


def answer_reality_check(*, user: User, now: dt.datetime | None = None) -> None:
    """The player answered: the next check is one interval from now."""
    now = now or timezone.now()
    profile = Profile.objects.only("reality_check_minutes").get(user=user)
    if profile.reality_check_minutes:
        Profile.objects.filter(pk=profile.pk).update(
            reality_due_at=now + dt.timedelta(minutes=profile.reality_check_minutes)
        )
