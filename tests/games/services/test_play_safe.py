"""Play safe (games/services/play_safe.py): loss limits, reality checks,
time-outs and self-exclusion, each checked by the one bet check before any
chip moves, with an injected clock where time matters."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.errors import BetRefused, GameError
from games.models import (
    AppendOnlyError,
    AuditEntry,
    LedgerEntry,
    LimitRefusal,
    LossLimit,
    PlayBreak,
    Profile,
    Round,
    Table,
    Wallet,
)
from games.selectors import play_safe as reads
from games.services import baccarat as baccarat_service
from games.services import play_safe
from games.services import war as war_service
from tests.seeds import find_seed, war_cases

pytestmark = pytest.mark.django_db

CHIP = 100
UTC = dt.UTC


def war_table() -> Table:
    return Table.objects.get(slug="casino-war")


def deal_next(user, wanted) -> None:
    """The player's next War round deals a shoe ``wanted`` says yes to."""
    seed = find_seed("play-safe", "ps", 6, wanted)
    Profile.objects.filter(user=user).update(next_server_seed=seed, client_seed="ps", nonce=0)


def lose_war(user, chips: int, key: str, now: dt.datetime | None = None) -> Round:
    deal_next(user, lambda shoe: war_cases(shoe) == {"lose"})
    rnd = war_service.play(
        user=user, table=war_table(), ante=chips * CHIP, tie_bet=0, slip_key=key, now=now
    ).round
    assert rnd.outcome == Round.Outcome.LOSE
    return rnd


def ledger_rows(user) -> int:
    return LedgerEntry.objects.filter(wallet__user=user).count()


# ------------------------------------------------------------------ loss limits


def test_it_refuses_a_bet_that_could_pass_the_daily_loss_limit_before_any_chip_moves(make_player):
    player = make_player(chips=1_000)
    play_safe.set_loss_limit(user=player, period="day", amount=50 * CHIP)
    lose_war(player, 20, "a")
    rows, balance = ledger_rows(player), player.wallet.__class__.objects.get(user=player).balance

    with pytest.raises(BetRefused) as refused:
        baccarat_service.play(
            user=player,
            table=Table.objects.get(slug="baccarat-classic"),
            bets={"player": 31 * CHIP},
            slip_key="b",
        )

    assert refused.value.code == "loss_limit"
    assert "daily loss limit of 50 chips" in refused.value.message
    assert "30 chips are left" in refused.value.message
    assert ledger_rows(player) == rows
    assert Wallet.objects.get(user=player).balance == balance
    assert LimitRefusal.objects.filter(user=player, code="loss_limit").count() == 1


def test_it_counts_a_wars_raise_against_the_limit(make_player):
    """A War ante of 30 may come to stake 60 with its raise: past a limit of 50."""
    player = make_player(chips=1_000)
    play_safe.set_loss_limit(user=player, period="day", amount=50 * CHIP)
    with pytest.raises(BetRefused) as refused:
        war_service.play(user=player, table=war_table(), ante=30 * CHIP, tie_bet=0, slip_key="w")
    assert refused.value.code == "loss_limit"
    war_service.play(user=player, table=war_table(), ante=25 * CHIP, tie_bet=0, slip_key="w2")


def test_a_war_waiting_for_its_decision_keeps_room_for_its_raise(make_player):
    """Ante 10 on a tie: 20 of a limit of 30 is spoken for until the decision,
    so a 15-chip bet elsewhere is refused and the war can still be fought."""
    player = make_player(chips=1_000)
    play_safe.set_loss_limit(user=player, period="day", amount=30 * CHIP)
    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    rnd = war_service.play(
        user=player, table=war_table(), ante=10 * CHIP, tie_bet=0, slip_key="tie"
    ).round
    with pytest.raises(BetRefused) as refused:
        baccarat_service.play(
            user=player,
            table=Table.objects.get(slug="baccarat-classic"),
            bets={"player": 15 * CHIP},
            slip_key="other",
        )
    assert "10 chips are left" in refused.value.message
    assert war_service.decide(user=player, round_id=rnd.pk, decision="war").status == "settled"


def test_it_shows_the_reset_time_in_the_players_zone(make_player):
    player = make_player(chips=1_000)
    Profile.objects.filter(user=player).update(time_zone="Asia/Tokyo")
    play_safe.set_loss_limit(user=player, period="day", amount=0)
    with pytest.raises(BetRefused) as refused:
        war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="z")
    tokyo = timezone.now().astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))
    tomorrow = tokyo.date() + dt.timedelta(days=1)
    assert f"{tomorrow:%Y-%m-%d} 00:00 (Asia/Tokyo)" in refused.value.message


def test_a_lower_limit_applies_at_once_and_a_higher_one_after_24_hours(make_player):
    player = make_player()
    now = dt.datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    play_safe.set_loss_limit(user=player, period="week", amount=100 * CHIP, now=now)
    assert reads.limits_in_force(player, now)["week"] == 100 * CHIP

    play_safe.set_loss_limit(
        user=player, period="week", amount=500 * CHIP, now=now + dt.timedelta(hours=1)
    )
    later = now + dt.timedelta(hours=1)
    assert reads.limits_in_force(player, later)["week"] == 100 * CHIP
    pending = reads.pending_changes(player, later)["week"]
    assert pending.amount == 500 * CHIP
    assert pending.effective_at == later + dt.timedelta(hours=24)
    assert (
        reads.limits_in_force(player, later + dt.timedelta(hours=23, minutes=59))["week"]
        == 100 * CHIP
    )
    assert reads.limits_in_force(player, later + dt.timedelta(hours=24))["week"] == 500 * CHIP

    # Lowering again applies at once and drops a pending raise.
    play_safe.set_loss_limit(user=player, period="week", amount=50 * CHIP, now=later)
    play_safe.set_loss_limit(user=player, period="week", amount=900 * CHIP, now=later)
    play_safe.set_loss_limit(user=player, period="week", amount=40 * CHIP, now=later)
    assert reads.limits_in_force(player, later + dt.timedelta(days=3))["week"] == 40 * CHIP
    assert "week" not in reads.pending_changes(player, later)


def test_removing_a_limit_waits_24_hours(make_player):
    player = make_player()
    now = dt.datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    play_safe.set_loss_limit(user=player, period="day", amount=10 * CHIP, now=now)
    play_safe.set_loss_limit(user=player, period="day", amount=None, now=now)
    assert reads.limits_in_force(player, now + dt.timedelta(hours=23))["day"] == 10 * CHIP
    assert reads.limits_in_force(player, now + dt.timedelta(hours=24))["day"] is None


def test_the_tightest_period_applies(make_player):
    player = make_player(chips=1_000)
    play_safe.set_loss_limit(user=player, period="month", amount=20 * CHIP)
    play_safe.set_loss_limit(user=player, period="day", amount=500 * CHIP)
    with pytest.raises(BetRefused) as refused:
        baccarat_service.play(
            user=player,
            table=Table.objects.get(slug="baccarat-classic"),
            bets={"banker": 21 * CHIP},
            slip_key="t",
        )
    assert "monthly loss limit of 20 chips" in refused.value.message


@pytest.mark.parametrize(
    ("zone", "period", "before", "after"),
    [
        # Midnight in Tokyo is 15:00 UTC the day before.
        ("Asia/Tokyo", "day", "2026-03-10T14:59", "2026-03-10T15:00"),
        ("UTC", "day", "2026-03-10T23:59", "2026-03-11T00:00"),
        # New York in March 2026 is UTC-4 after the 8th: Monday 16th 00:00 = 04:00 UTC.
        ("America/New_York", "week", "2026-03-16T03:59", "2026-03-16T04:00"),
        # London in summer time: 1 May 00:00 BST = 30 April 23:00 UTC.
        ("Europe/London", "month", "2026-04-30T22:59", "2026-04-30T23:00"),
    ],
)
def test_each_period_resets_at_midnight_in_the_players_zone(
    make_player, zone, period, before, after
):
    player = make_player(chips=1_000)
    Profile.objects.filter(user=player).update(time_zone=zone)
    played_at = dt.datetime.fromisoformat(before).replace(tzinfo=UTC)
    play_safe.set_loss_limit(
        user=player, period=period, amount=100 * CHIP, now=played_at - dt.timedelta(days=40)
    )
    lose_war(player, 30, "r", now=played_at)
    profile = Profile.objects.get(user=player)

    [room] = reads.loss_rooms(player, profile, played_at + dt.timedelta(seconds=30))
    assert room.lost == 30 * CHIP
    reset = dt.datetime.fromisoformat(after).replace(tzinfo=UTC)
    assert room.resets_at == reset
    [fresh] = reads.loss_rooms(player, profile, reset)
    assert fresh.lost == 0
    assert fresh.left == 100 * CHIP


def test_a_demo_account_has_no_loss_limit(make_player):
    player = make_player(chips=1_000)
    Profile.objects.filter(user=player).update(demo=True)
    with pytest.raises(GameError):
        play_safe.set_loss_limit(user=player, period="day", amount=0)
    # Rows written some other way still do not bind demo chips.
    LossLimit.objects.create(
        user=player, period="day", amount=0, requested_at=timezone.now(),
        effective_at=timezone.now(),
    )  # fmt: skip
    Profile.objects.filter(user=player).update(loss_limits_set=True)
    war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="d")


def test_every_limit_change_is_in_the_audit_log(make_player):
    player = make_player()
    play_safe.set_loss_limit(user=player, period="day", amount=50 * CHIP)
    entry = AuditEntry.objects.get(action="play_safe.loss_limit", object_id=str(player.pk))
    assert entry.actor == player
    assert entry.after["limit"] == "50"


# ------------------------------------------------------------------ breaks


def test_a_time_out_refuses_every_bet_and_ends_every_session(make_player):
    player = make_player(chips=1_000)
    browsers = [Client(), Client()]
    for browser in browsers:
        browser.force_login(player)
    assert Session.objects.count() == 2

    pause = play_safe.take_break(user=player, length="24h")

    assert Session.objects.count() == 0
    assert pause.ends_at - pause.starts_at == dt.timedelta(hours=24)
    with pytest.raises(BetRefused) as refused:
        war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="x")
    assert refused.value.code == "on_break"
    assert "time-out until" in refused.value.message
    with pytest.raises(BetRefused):
        baccarat_service.play(
            user=player,
            table=Table.objects.get(slug="baccarat-classic"),
            bets={"player": CHIP},
            slip_key="y",
        )
    assert not Round.objects.filter(player=player).exists()
    assert AuditEntry.objects.filter(action="play_safe.timeout", object_id=str(player.pk)).exists()


@pytest.mark.parametrize(
    ("length", "ends"),
    [
        ("1w", dt.datetime(2026, 2, 7, 10, 0, tzinfo=UTC)),
        ("1m", dt.datetime(2026, 2, 28, 10, 0, tzinfo=UTC)),
        ("6w", dt.datetime(2026, 3, 14, 10, 0, tzinfo=UTC)),
        ("6m", dt.datetime(2026, 7, 31, 10, 0, tzinfo=UTC)),
        ("1y", dt.datetime(2027, 1, 31, 10, 0, tzinfo=UTC)),
        ("5y", dt.datetime(2031, 1, 31, 10, 0, tzinfo=UTC)),
    ],
)
def test_each_length_ends_when_it_says(make_player, length, ends):
    player = make_player()
    start = dt.datetime(2026, 1, 31, 10, 0, tzinfo=UTC)
    pause = play_safe.take_break(user=player, length=length, now=start)
    assert pause.ends_at == ends
    assert reads.active_break(player, ends - dt.timedelta(seconds=1)) == pause
    assert reads.active_break(player, ends) is None


def test_a_break_cannot_be_shortened_only_lengthened(make_player):
    player = make_player()
    now = dt.datetime(2026, 1, 1, tzinfo=UTC)
    play_safe.take_break(user=player, length="1y", now=now)
    with pytest.raises(GameError) as refused:
        play_safe.take_break(user=player, length="6w", now=now + dt.timedelta(days=1))
    assert refused.value.code == "shorter"
    longer = play_safe.take_break(user=player, length="5y", now=now + dt.timedelta(days=1))
    assert reads.active_break(player, now + dt.timedelta(days=400)) == longer


def test_a_stored_break_cannot_be_changed_or_deleted(make_player):
    player = make_player()
    pause = play_safe.take_break(user=player, length="6m")
    pause.ends_at = timezone.now()
    with pytest.raises(AppendOnlyError):
        pause.save()
    with pytest.raises(AppendOnlyError):
        pause.delete()
    assert PlayBreak.objects.get(pk=pause.pk).ends_at > timezone.now() + dt.timedelta(days=150)


def test_a_war_round_waiting_for_a_decision_is_surrendered_at_a_break(make_player):
    player = make_player(chips=1_000)
    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    rnd = war_service.play(
        user=player, table=war_table(), ante=10 * CHIP, tie_bet=0, slip_key="tie"
    ).round
    assert rnd.status == Round.Status.OPEN

    play_safe.take_break(user=player, length="24h")

    rnd.refresh_from_db()
    assert rnd.status == Round.Status.SETTLED
    assert rnd.detail["decision"] == "surrender"
    assert rnd.total_return == 5 * CHIP  # half the ante back, nothing more staked


def test_a_demo_account_cannot_take_a_break(make_player):
    player = make_player()
    Profile.objects.filter(user=player).update(demo=True)
    with pytest.raises(GameError):
        play_safe.take_break(user=player, length="24h")


# ------------------------------------------------------------------ reality checks


def test_a_due_reality_check_pauses_the_next_round_until_answered(make_player):
    player = make_player(chips=1_000)
    start = timezone.now() - dt.timedelta(minutes=20)
    play_safe.start_session(user=player, now=start)
    play_safe.set_reality_interval(user=player, minutes=15, now=start)

    with pytest.raises(BetRefused) as refused:
        war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="1")
    assert refused.value.code == "reality_check"
    assert not Round.objects.filter(player=player).exists()

    play_safe.answer_reality_check(user=player)
    war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="2")
    profile = Profile.objects.get(user=player)
    assert profile.reality_due_at > timezone.now() + dt.timedelta(minutes=14)


def test_a_reality_check_never_stops_a_round_mid_way(make_player):
    """A War tie's decision is part of the round already started."""
    player = make_player(chips=1_000)
    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    rnd = war_service.play(
        user=player, table=war_table(), ante=10 * CHIP, tie_bet=0, slip_key="t"
    ).round
    Profile.objects.filter(user=player).update(
        reality_check_minutes=15, reality_due_at=timezone.now() - dt.timedelta(minutes=1)
    )
    settled = war_service.decide(user=player, round_id=rnd.pk, decision="war")
    assert settled.status == Round.Status.SETTLED


def test_off_means_no_reality_check(make_player):
    player = make_player(chips=1_000)
    start = timezone.now() - dt.timedelta(hours=5)
    play_safe.start_session(user=player, now=start)
    play_safe.set_reality_interval(user=player, minutes=0, now=start)
    war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="1")
    with pytest.raises(GameError):
        play_safe.set_reality_interval(user=player, minutes=7)


def test_the_session_summary_counts_the_sessions_rounds_only(make_player):
    player = make_player(chips=1_000)
    lose_war(player, 10, "old", now=timezone.now() - dt.timedelta(days=1))
    start = timezone.now() - dt.timedelta(minutes=42)
    play_safe.start_session(user=player, now=start)
    lose_war(player, 7, "new")
    summary = reads.session_summary(player, Profile.objects.get(user=player))
    assert summary.net == -7 * CHIP
    assert dt.timedelta(minutes=42) <= summary.played < dt.timedelta(minutes=43)


def test_the_login_page_is_reached_by_no_one_on_a_break(make_player):
    player = make_player()
    play_safe.take_break(user=player, length="6m")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post(
        reverse("login"), {"username": player.username, "password": "pw-Secret-123"}
    )
    assert response.status_code == 200
    assert "excluded yourself until" in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.engines
def test_the_statement_agrees_with_the_ledger(make_player):
    """The statement's figures are the chips that moved, not a story."""
    player = make_player(chips=1_000)
    table = Table.objects.get(slug="baccarat-classic")
    for i in range(6):
        baccarat_service.play(
            user=player,
            table=table,
            bets={"player" if i % 2 else "banker": (5 + i) * CHIP},
            slip_key=f"s{i}",
        )
    deal_next(player, lambda shoe: "tie" not in war_cases(shoe))
    war_service.play(user=player, table=war_table(), ante=3 * CHIP, tie_bet=CHIP, slip_key="w")
    [month] = reads.statement_months(player)
    moved = LedgerEntry.objects.filter(wallet__user=player, round__isnull=False)
    staked = -sum(e.amount for e in moved if e.kind == LedgerEntry.Kind.BET)
    returned = sum(e.amount for e in moved if e.kind != LedgerEntry.Kind.BET)
    assert month["rounds"] == 7
    assert (month["staked"], month["returned"]) == (staked, returned)
    assert month["net"] == returned - staked


@pytest.mark.parametrize("minutes", [60, 0])
def test_a_due_reality_check_is_not_cleared_by_changing_its_interval(make_player, minutes):
    """A player whose check was due posted a new interval (or off) and played
    on without ever answering: the check that is due stays due."""
    player = make_player(chips=1_000)
    start = timezone.now() - dt.timedelta(minutes=20)
    play_safe.start_session(user=player, now=start)
    play_safe.set_reality_interval(user=player, minutes=15, now=start)

    with pytest.raises(GameError) as refused:
        play_safe.set_reality_interval(user=player, minutes=minutes)
    assert refused.value.code == "reality_check"
    with pytest.raises(BetRefused) as blocked:
        war_service.play(user=player, table=war_table(), ante=CHIP, tie_bet=0, slip_key="1")
    assert blocked.value.code == "reality_check"

    play_safe.answer_reality_check(user=player)
    play_safe.set_reality_interval(user=player, minutes=minutes)  # now it may change
    assert Profile.objects.get(user=player).reality_check_minutes == minutes


def test_a_limit_lowered_while_a_war_waits_keeps_its_raise_under_it(make_player):
    """Ante 5 on a tie with no limit, then a daily limit of 1 (at once): going
    to war would stake 5 more past it, so only surrender is left."""
    player = make_player(chips=1_000)
    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    rnd = war_service.play(
        user=player, table=war_table(), ante=5 * CHIP, tie_bet=0, slip_key="tie"
    ).round
    play_safe.set_loss_limit(user=player, period="day", amount=1 * CHIP)
    balance = Wallet.objects.get(user=player).balance

    with pytest.raises(BetRefused) as refused:
        war_service.decide(user=player, round_id=rnd.pk, decision="war")
    assert refused.value.code == "loss_limit"
    assert "surrender" in refused.value.message
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN
    assert Wallet.objects.get(user=player).balance == balance

    settled = war_service.decide(user=player, round_id=rnd.pk, decision="surrender")
    assert settled.status == Round.Status.SETTLED


def test_a_player_ahead_goes_to_war_only_within_what_the_limit_leaves(make_player):
    """Winnings buy no room past a loss limit: 50 chips up, a tie at ante 20,
    then a daily limit of 10. The table says 10 are left, so the raise of 20
    is refused as a bet of 20 would be; at ante 5 a war is fought."""
    player = make_player(chips=1_000)
    deal_next(player, lambda shoe: war_cases(shoe) == {"win"})
    war_service.play(user=player, table=war_table(), ante=50 * CHIP, tie_bet=0, slip_key="win")
    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    big = war_service.play(
        user=player, table=war_table(), ante=20 * CHIP, tie_bet=0, slip_key="tie"
    ).round
    play_safe.set_loss_limit(user=player, period="day", amount=10 * CHIP)
    room = reads.tightest(
        reads.loss_rooms(player, Profile.objects.get(user=player), timezone.now())
    )
    assert room is not None and room.left == 10 * CHIP  # what the table shows

    with pytest.raises(BetRefused) as refused:
        war_service.decide(user=player, round_id=big.pk, decision="war")
    assert refused.value.code == "loss_limit"
    assert Round.objects.get(pk=big.pk).status == Round.Status.OPEN
    war_service.decide(user=player, round_id=big.pk, decision="surrender")

    deal_next(player, lambda shoe: "tie" in war_cases(shoe))
    small = war_service.play(
        user=player, table=war_table(), ante=5 * CHIP, tie_bet=0, slip_key="tie2"
    ).round
    assert war_service.decide(user=player, round_id=small.pk, decision="war").status == "settled"


def test_the_time_zone_stays_while_a_loss_limit_is_set(make_player):
    """Moving to a zone just past midnight started a fresh day at once: a
    raise without the 24 hours' wait. With a limit set the zone stays."""
    player = make_player(chips=1_000)
    play_safe.set_time_zone(user=player, name="Europe/London")  # no limit: free to move
    play_safe.set_loss_limit(user=player, period="day", amount=20 * CHIP)
    with pytest.raises(GameError) as refused:
        play_safe.set_time_zone(user=player, name="America/St_Johns")
    assert refused.value.code == "zone_locked"
    assert Profile.objects.get(user=player).time_zone == "Europe/London"

    play_safe.set_loss_limit(user=player, period="day", amount=None)  # removal: 24 h away
    with pytest.raises(GameError):
        play_safe.set_time_zone(user=player, name="America/St_Johns")
