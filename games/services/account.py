"""A player's PIN and personal max bet (seed 004's "bet options"), and the
daily top-up claim.

A player may set a max bet per round lower than the tables' maximums. It
applies at once to every bet in every game (``bets.round_max_bet`` reads
it). It can be changed once per week, weeks starting on Friday at 00:00 in
New York (America/New_York, whatever the season), and every change is
confirmed with a 4-6 digit PIN. The PIN is hashed like a password; wrong PINs
are counted and, after ``PIN_FAILURE_LIMIT`` of them, PIN checks are locked
for ``PIN_LOCK``.

Amounts are minor units (1 chip = 100 units); the limit is whole chips.
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games.display import format_chips
from games.errors import GameError
from games.models import UNITS_PER_CHIP, Profile, Round, Table, Wallet
from games.services import wallet as wallet_service

WEEK_ZONE = ZoneInfo("America/New_York")
WEEK_STARTS_ON = 4  # Friday (Monday is 0)
PIN_PATTERN = re.compile(r"^[0-9]{4,6}$")
PIN_FAILURE_LIMIT = 5
PIN_LOCK = dt.timedelta(minutes=15)


class PinRefused(GameError):
    code = "pin"


# --- the weekly window (pure) --------------------------------------------------


def week_start(now: dt.datetime) -> dt.datetime:
    """The Friday 00:00 New York time that starts the week ``now`` is in.

    Computed on the New York calendar, so a week that spans a daylight saving
    change is 167 or 169 hours long, as a New Yorker's week is. Midnight is
    never skipped or repeated in New York (the clocks change at 02:00).
    Returned in UTC: Python subtracts and compares two datetimes that share a
    zone by their wall clocks, which would make every week 168 hours.
    """
    if now.tzinfo is None:
        raise ValueError("week_start needs an aware datetime")
    local = now.astimezone(WEEK_ZONE)
    day = local.date() - dt.timedelta(days=(local.weekday() - WEEK_STARTS_ON) % 7)
    return _new_york_midnight(day)


def _new_york_midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=WEEK_ZONE).astimezone(dt.UTC)


def next_change_allowed(last_change: dt.datetime | None) -> dt.datetime | None:
    """When a player who last changed their max bet at ``last_change`` may
    change it again: the start of the following week (None: any time)."""
    if last_change is None:
        return None
    start = week_start(last_change).astimezone(WEEK_ZONE)
    return _new_york_midnight(start.date() + dt.timedelta(days=7))


def can_change_now(last_change: dt.datetime | None, now: dt.datetime) -> bool:
    allowed = next_change_allowed(last_change)
    return allowed is None or now >= allowed


# --- PIN -----------------------------------------------------------------------


def pin_locked(profile: Profile, now: dt.datetime) -> bool:
    return profile.pin_locked_until is not None and profile.pin_locked_until > now


def _locked_message(profile: Profile) -> str:
    until = timezone.localtime(profile.pin_locked_until, WEEK_ZONE)
    return _("Too many wrong attempts. PIN checks are locked until %(time)s (New York time).") % {
        "time": until.strftime("%Y-%m-%d %H:%M")
    }


def _record_failure(profile: Profile, now: dt.datetime) -> None:
    """Count a wrong PIN (or password); lock PIN checks at the limit."""
    failures = profile.pin_failures + 1
    if failures >= PIN_FAILURE_LIMIT:
        profile.pin_failures = 0
        profile.pin_locked_until = now + PIN_LOCK
    else:
        profile.pin_failures = failures
    profile.save(update_fields=["pin_failures", "pin_locked_until"])


def _record_success(profile: Profile) -> None:
    if profile.pin_failures or profile.pin_locked_until:
        profile.pin_failures = 0
        profile.pin_locked_until = None
        profile.save(update_fields=["pin_failures", "pin_locked_until"])


def check_pin_format(pin: str) -> str:
    pin = (pin or "").strip()
    if not PIN_PATTERN.match(pin):
        raise PinRefused(_("A PIN is 4 to 6 digits."), code="pin_format")
    return pin


# The two changes below are not decorated with ``transaction.atomic``: a wrong
# PIN must be counted even though the change is refused, so the failure is
# committed in its own transaction and the refusal raised after it.


def set_pin(
    *,
    user: User,
    password: str,
    new_pin: str,
    current_pin: str = "",
    now: dt.datetime | None = None,
) -> None:
    """Set the player's PIN. The account password is always needed; changing
    an existing PIN needs the current PIN too. Wrong answers count towards
    the lock."""
    new_pin = check_pin_format(new_pin)
    now = now or timezone.now()
    refusal: GameError | None = None
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if pin_locked(profile, now):
            raise PinRefused(_locked_message(profile), code="pin_locked")
        if not user.check_password(password or ""):
            _record_failure(profile, now)
            refusal = PinRefused(_("The password is not correct."), code="password")
        elif profile.pin_hash and not check_password((current_pin or "").strip(), profile.pin_hash):
            _record_failure(profile, now)
            refusal = PinRefused(_("The current PIN is not correct."))
        else:
            profile.pin_hash = make_password(new_pin)
            profile.pin_failures = 0
            profile.pin_locked_until = None
            profile.save(update_fields=["pin_hash", "pin_failures", "pin_locked_until"])
    if refusal is not None:
        if pin_locked(profile, now):
            raise PinRefused(_locked_message(profile), code="pin_locked")
        raise refusal


def tables_max_bet() -> int:
    """The highest MAX BET of any table: a personal max bet must be below it."""
    return Table.objects.aggregate(m=Max("max_bet"))["m"] or 0


def check_personal_max_bet(max_bet: int | None) -> None:
    if max_bet is None:
        return
    if not isinstance(max_bet, int) or isinstance(max_bet, bool) or max_bet % UNITS_PER_CHIP:
        raise GameError(_("The max bet is a whole number of chips."), code="max_bet")
    if max_bet < UNITS_PER_CHIP:
        raise GameError(_("The max bet is at least 1 chip."), code="max_bet")
    ceiling = tables_max_bet()
    if max_bet >= ceiling:
        raise GameError(
            _("Your max bet must be below the tables' maximum of %(max)s.")
            % {"max": format_chips(ceiling)},
            code="max_bet",
        )


def set_personal_max_bet(
    *, user: User, max_bet: int | None, pin: str, now: dt.datetime | None = None
) -> Profile:
    """Change the player's personal max bet per round (units; None removes it).

    Once per week (see ``next_change_allowed``), confirmed with the PIN.
    """
    check_personal_max_bet(max_bet)
    now = now or timezone.now()
    refusal: GameError | None = None
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if not profile.pin_hash:
            raise PinRefused(_("Set a PIN first."), code="no_pin")
        allowed = next_change_allowed(profile.max_bet_changed_at)
        if allowed is not None and now < allowed:
            raise GameError(
                _("You can change your max bet again from %(time)s (New York time).")
                % {"time": allowed.astimezone(WEEK_ZONE).strftime("%Y-%m-%d %H:%M")},
                code="week",
            )
        if pin_locked(profile, now):
            raise PinRefused(_locked_message(profile), code="pin_locked")
        if not check_password((pin or "").strip(), profile.pin_hash):
            _record_failure(profile, now)
            refusal = PinRefused(_("The PIN is not correct."))
        else:
            _record_success(profile)
            profile.personal_max_bet = max_bet
            profile.max_bet_changed_at = now
            profile.save(update_fields=["personal_max_bet", "max_bet_changed_at"])
    if refusal is not None:
        if pin_locked(profile, now):
            raise PinRefused(_locked_message(profile), code="pin_locked")
        raise refusal
    return profile


# --- the daily top-up -------------------------------------------------------------


@transaction.atomic
def claim_daily_topup(*, user: User, today: dt.date | None = None) -> int:
    """The daily top-up, for a player whose chips are all settled.

    A War tie waiting for its decision (or any open round) holds stakes that
    are not in the wallet: a balance of zero then does not mean the player
    is out of chips, so the claim waits until the round settles. The wallet
    row is locked first, as a deal locks it, so a round cannot open between
    this check and the top-up. Returns the new balance.
    """
    Wallet.objects.select_for_update().filter(user=user).first()
    waiting = (
        Round.objects.filter(player=user, status=Round.Status.OPEN)
        .select_related("table")
        .order_by("id")
        .first()
    )
    if waiting is not None:
        raise GameError(
            _(
                "You have a round waiting for your decision at %(table)s. Finish it "
                "before claiming the daily top-up: its stakes are still in play."
            )
            % {"table": waiting.table.local_name},
            code="topup_open_round",
        )
    return wallet_service.claim_daily_topup(user=user, today=today)
