"""The personal max bet: the weekly window in New York time, the PIN and its
throttle, and the limit refusing bets in both games."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.hashers import check_password

from games.errors import BetRefused, GameError
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services import account, bets, rounds, war
from games.services.account import PinRefused, next_change_allowed, week_start
from games.services.baccarat import place_bet

NY = ZoneInfo("America/New_York")
UTC = dt.UTC
CHIP = 100
PASSWORD = "pw-Secret-123"  # make_player's password


def utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


# --- the weekly window ------------------------------------------------------------


def test_a_week_starts_on_friday_midnight_in_new_york():
    # Thursday 2026-11-12 23:59:59 EST is still the week that began Friday 11-06.
    assert week_start(utc(2026, 11, 13, 4, 59, 59)) == dt.datetime(2026, 11, 6, tzinfo=NY)
    # Friday 00:00 EST (05:00 UTC) starts the next one.
    assert week_start(utc(2026, 11, 13, 5, 0, 0)) == dt.datetime(2026, 11, 13, tzinfo=NY)
    # Friday 03:00 UTC is still Thursday evening in New York.
    assert week_start(utc(2026, 11, 13, 3, 0)).date() == dt.date(2026, 11, 6)


def test_the_week_across_the_november_switch_is_169_hours():
    # Friday 2026-10-30 00:00 EDT (04:00 UTC); clocks go back on Sunday 11-01.
    start = utc(2026, 10, 30, 4, 0)
    assert week_start(start) == start
    allowed = next_change_allowed(start)
    # The next Friday midnight is EST: 05:00 UTC, not 04:00.
    assert allowed == utc(2026, 11, 6, 5, 0)
    assert allowed - start == dt.timedelta(hours=169)
    # 04:30 UTC on 11-06 is Thursday 23:30 in New York: still the old week.
    assert week_start(utc(2026, 11, 6, 4, 30)) == start
    assert not account.can_change_now(start, utc(2026, 11, 6, 4, 59, 59))
    assert account.can_change_now(start, utc(2026, 11, 6, 5, 0))


def test_the_week_across_the_march_switch_is_167_hours():
    # Friday 2026-03-06 00:00 EST (05:00 UTC); clocks go forward on Sunday 03-08.
    changed = utc(2026, 3, 6, 17, 30)
    assert week_start(changed) == utc(2026, 3, 6, 5, 0)
    allowed = next_change_allowed(changed)
    assert allowed == utc(2026, 3, 13, 4, 0)  # Friday 00:00 EDT
    assert allowed - week_start(changed) == dt.timedelta(hours=167)
    assert not account.can_change_now(changed, utc(2026, 3, 13, 3, 59, 59))
    assert account.can_change_now(changed, utc(2026, 3, 13, 4, 0))


def test_a_change_just_before_friday_allows_the_next_one_at_friday_midnight():
    thursday_night = dt.datetime(2026, 11, 5, 23, 59, 59, tzinfo=NY)
    assert next_change_allowed(thursday_night) == dt.datetime(2026, 11, 6, tzinfo=NY)
    friday_midnight = dt.datetime(2026, 11, 6, 0, 0, tzinfo=NY)
    assert next_change_allowed(friday_midnight) == dt.datetime(2026, 11, 13, tzinfo=NY)
    assert next_change_allowed(None) is None


# --- the PIN ----------------------------------------------------------------------------


def test_setting_the_pin_needs_the_account_password_and_is_hashed(make_player):
    user = make_player()
    with pytest.raises(PinRefused):
        account.set_pin(user=user, password="wrong", new_pin="1234")
    assert Profile.objects.get(user=user).pin_hash == ""
    account.set_pin(user=user, password=PASSWORD, new_pin="1234")
    profile = Profile.objects.get(user=user)
    assert profile.pin_hash and "1234" not in profile.pin_hash
    assert check_password("1234", profile.pin_hash)


@pytest.mark.parametrize("pin", ["123", "1234567", "12a4", "", " 12 34"])
def test_a_pin_is_4_to_6_digits(make_player, pin):
    user = make_player()
    with pytest.raises(PinRefused):
        account.set_pin(user=user, password=PASSWORD, new_pin=pin)
    assert Profile.objects.get(user=user).pin_hash == ""


def test_changing_the_pin_needs_the_current_one(make_player):
    user = make_player()
    account.set_pin(user=user, password=PASSWORD, new_pin="1234")
    with pytest.raises(PinRefused):
        account.set_pin(user=user, password=PASSWORD, current_pin="9999", new_pin="5678")
    account.set_pin(user=user, password=PASSWORD, current_pin="1234", new_pin="567890")
    assert check_password("567890", Profile.objects.get(user=user).pin_hash)


def test_wrong_pins_are_throttled(make_player):
    user = make_player()
    account.set_pin(user=user, password=PASSWORD, new_pin="2468")
    now = utc(2026, 11, 20, 12, 0)
    for attempt in range(1, 5):
        with pytest.raises(PinRefused) as refused:
            account.set_personal_max_bet(user=user, max_bet=50 * CHIP, pin="0000", now=now)
        assert refused.value.code == "pin"
        assert Profile.objects.get(user=user).pin_failures == attempt
    with pytest.raises(PinRefused) as refused:
        account.set_personal_max_bet(user=user, max_bet=50 * CHIP, pin="0000", now=now)
    assert refused.value.code == "pin_locked"
    profile = Profile.objects.get(user=user)
    assert profile.pin_locked_until == now + dt.timedelta(minutes=15)
    # Locked: even the right PIN is refused, and nothing changes.
    with pytest.raises(PinRefused) as refused:
        account.set_personal_max_bet(
            user=user, max_bet=50 * CHIP, pin="2468", now=now + dt.timedelta(minutes=14)
        )
    assert refused.value.code == "pin_locked"
    assert Profile.objects.get(user=user).personal_max_bet is None
    # After 15 minutes the right PIN works and the count starts again.
    account.set_personal_max_bet(
        user=user, max_bet=50 * CHIP, pin="2468", now=now + dt.timedelta(minutes=15)
    )
    profile = Profile.objects.get(user=user)
    assert profile.personal_max_bet == 5_000
    assert profile.pin_failures == 0 and profile.pin_locked_until is None


# --- the personal max bet ---------------------------------------------------------------


def test_the_max_bet_changes_once_per_new_york_week(make_player):
    user = make_player()
    account.set_pin(user=user, password=PASSWORD, new_pin="1357")
    # Thursday 2026-11-05 22:00 EST.
    thursday = utc(2026, 11, 6, 3, 0)
    account.set_personal_max_bet(user=user, max_bet=100 * CHIP, pin="1357", now=thursday)
    with pytest.raises(GameError) as refused:
        account.set_personal_max_bet(
            user=user, max_bet=50 * CHIP, pin="1357", now=utc(2026, 11, 6, 4, 59)
        )
    assert refused.value.code == "week"
    assert "2026-11-06 00:00" in refused.value.message
    assert Profile.objects.get(user=user).personal_max_bet == 10_000
    # Friday 00:00 EST: a new week.
    account.set_personal_max_bet(
        user=user, max_bet=50 * CHIP, pin="1357", now=utc(2026, 11, 6, 5, 0)
    )
    profile = Profile.objects.get(user=user)
    assert profile.personal_max_bet == 5_000
    assert profile.max_bet_changed_at == utc(2026, 11, 6, 5, 0)
    # and it can be removed the week after
    account.set_personal_max_bet(user=user, max_bet=None, pin="1357", now=utc(2026, 11, 13, 5))
    assert Profile.objects.get(user=user).personal_max_bet is None


def test_the_max_bet_needs_a_pin_and_must_be_below_the_tables(make_player):
    user = make_player()
    with pytest.raises(PinRefused) as refused:
        account.set_personal_max_bet(user=user, max_bet=10 * CHIP, pin="1234")
    assert refused.value.code == "no_pin"
    account.set_pin(user=user, password=PASSWORD, new_pin="1234")
    highest = Table.objects.order_by("-max_bet").first().max_bet
    for bad in (highest, highest + CHIP, 0, 150):
        with pytest.raises(GameError):
            account.set_personal_max_bet(user=user, max_bet=bad, pin="1234")
    profile = Profile.objects.get(user=user)
    assert profile.personal_max_bet is None and profile.max_bet_changed_at is None


def test_the_personal_max_bet_applies_at_once_to_war(make_player):
    user = make_player(chips=1_000)
    account.set_pin(user=user, password=PASSWORD, new_pin="1234")
    account.set_personal_max_bet(user=user, max_bet=30 * CHIP, pin="1234")
    table = Table.objects.get(slug="casino-war")
    with pytest.raises(BetRefused) as refused:
        war.deal(user=user, table=table, ante=40 * CHIP, tie_bet=0, slip_key="over")
    assert refused.value.code == "personal_max"
    assert "30" in refused.value.message
    assert Wallet.objects.get(user=user).balance == 100_000


def test_the_personal_max_bet_refuses_a_baccarat_bet(make_player):

    user = make_player(chips=1_000)
    account.set_pin(user=user, password=PASSWORD, new_pin="1234")
    account.set_personal_max_bet(user=user, max_bet=30 * CHIP, pin="1234")
    table = Table.objects.get(slug="baccarat-classic")
    assert bets.round_max_bet(user, rounds.current_version(table)) == (3_000, True)
    before = (Wallet.objects.get(user=user).balance, LedgerEntry.objects.count())
    with pytest.raises(BetRefused) as refused:
        place_bet(user=user, table=table, bets={"player": 40 * CHIP}, slip_key="over")
    assert "30" in refused.value.message
    assert (Wallet.objects.get(user=user).balance, LedgerEntry.objects.count()) == before
    assert not Round.objects.filter(player=user).exists()
    # Within the limit the same bet is played.
    place_bet(user=user, table=table, bets={"player": 30 * CHIP}, slip_key="within")
    assert Round.objects.filter(player=user).count() == 1
