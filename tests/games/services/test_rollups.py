"""The kept totals (games/services/rollups.py) against a full recompute from
the rounds, after every step of random play: rounds won and lost, War ties
left open, settled later or surrendered at a time-out, voids and refunds,
logins, zone changes and clock jumps across midnight and clock changes. The
players' days, sessions' nets and the tables' hours (the operator
dashboard's takings) alike."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.db.models import BigIntegerField, Count, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import LossLimit, PlayerDay, Profile, Round, Table, TableHour
from games.selectors import play_safe as reads
from games.selectors.dashboard import takings
from games.selectors.rollups import differences
from games.services import baccarat as baccarat_service
from games.services import play_safe, repair
from games.services import war as war_service
from games.war.rules import first_cards_tied
from tests.seeds import find_seed

UTC = dt.UTC
CHIP = 100
# Zones whose midnights are not whole UTC hours, or move with the seasons.
ZONES = [
    "UTC",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "America/St_Johns",
    "Pacific/Chatham",
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
]
# Two days before the United States' clocks go forward (8 March 2026).
START = dt.datetime(2026, 3, 6, 20, 0, tzinfo=UTC)

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("baccarat"), st.integers(0, 10_000), st.sampled_from(["player", "banker"])
        ),
        st.tuples(st.just("war"), st.integers(0, 10_000)),
        st.tuples(st.just("tie"), st.integers(1, 5)),
        st.tuples(st.just("decide"), st.sampled_from(["war", "surrender"]), st.booleans()),
        st.tuples(st.just("void"), st.integers(0, 100)),
        st.tuples(st.just("login")),
        st.tuples(st.just("zone"), st.sampled_from(ZONES)),
        st.tuples(st.just("clock"), st.integers(1, 36 * 60)),  # minutes forward
    ),
    min_size=1,
    max_size=14,
)


def seed_next(user, seed: str, client: str = "prop") -> None:
    Profile.objects.filter(user=user).update(next_server_seed=seed, client_seed=client, nonce=0)


def tie_seed() -> str:
    return find_seed("rollups-tie", "prop", 6, first_cards_tied)


def windows_from_rounds(user, now: dt.datetime) -> dict[str, int]:
    """Each loss-limit period's net loss summed over the rounds themselves."""
    zone = reads.zone_of(Profile.objects.get(user=user))
    out = {}
    ante = Cast(KT("bets__ante"), BigIntegerField())
    for period in reads.PERIODS:
        start, end = reads.period_bounds(period, now, zone)
        sums = (
            Round.objects.filter(player=user, created_at__gte=start, created_at__lt=end)
            .exclude(status=Round.Status.VOID)
            .aggregate(
                bet=Sum("total_bet"),
                back=Sum("total_return"),
                raise_=Sum(ante, filter=Q(status=Round.Status.OPEN)),
            )
        )
        out[period] = (sums["bet"] or 0) + (sums["raise_"] or 0) - (sums["back"] or 0)
    return out


def kept_windows(user, now: dt.datetime) -> dict[str, int]:
    zone = reads.zone_of(Profile.objects.get(user=user))
    windows = {period: reads.period_bounds(period, now, zone) for period in reads.PERIODS}
    return reads._net_losses(user, windows)


def takings_from_rounds() -> dict[str, tuple[int, int, int, int]]:
    """Each table's settled rounds, stakes, returns and players who sat in
    (settled or open rounds), summed over the rounds themselves."""
    out = {}
    for table in Table.objects.all():
        rounds = Round.objects.filter(table=table)
        settled = rounds.filter(status=Round.Status.SETTLED).aggregate(
            n=Count("id"), bet=Sum("total_bet"), back=Sum("total_return")
        )
        players = rounds.exclude(status=Round.Status.VOID).values("player").distinct().count()
        out[table.slug] = (settled["n"], settled["bet"] or 0, settled["back"] or 0, players)
    return out


def kept_takings() -> dict[str, tuple[int, int, int, int]]:
    return {
        row.table.slug: (row.rounds, row.bet, row.returned, row.players)
        for row in takings(since=START - dt.timedelta(days=1))
    }


@pytest.mark.django_db
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_kept_totals_match_the_rounds_after_every_step(make_player, steps):
    # Each example on its own: rolled back, so a failure shrinks to its own steps.
    with transaction.atomic():
        play(make_player(chips=1_000_000), steps)
        transaction.set_rollback(True)


def play(player, steps) -> None:
    baccarat = Table.objects.get(slug="baccarat-classic")
    war = Table.objects.get(slug="casino-war")
    clock = START
    play_safe.start_session(user=player, now=clock)
    for n, step in enumerate(steps):
        kind = step[0]
        if kind == "baccarat":
            seed_next(player, hashlib.sha256(f"b-{step[1]}".encode()).hexdigest())
            baccarat_service.play(
                user=player, table=baccarat, bets={step[2]: 10 * CHIP}, slip_key=f"s{n}", now=clock
            )
        elif kind in ("war", "tie"):
            if Round.objects.filter(player=player, status=Round.Status.OPEN).exists():
                continue  # a waiting tie is decided first
            if kind == "war":
                seed_next(player, hashlib.sha256(f"w-{step[1]}".encode()).hexdigest())
            else:
                seed_next(player, tie_seed())
            ante = 5 * CHIP * (step[1] if kind == "tie" else 1)
            war_service.play(
                user=player, table=war, ante=ante, tie_bet=CHIP, slip_key=f"s{n}", now=clock
            )
        elif kind == "decide":
            waiting = Round.objects.filter(player=player, status=Round.Status.OPEN).first()
            if waiting is None:
                continue
            # late: the time-out's surrender (or a decision past the deadline).
            if step[2] or not war_service.timed_out(waiting, now=clock):
                war_service.decide(
                    user=player, round_id=waiting.pk, decision=step[1], now=clock, late=step[2]
                )
        elif kind == "void":
            candidates = list(
                Round.objects.filter(player=player).exclude(status=Round.Status.VOID).order_by("id")
            )
            if candidates:
                rnd = candidates[step[1] % len(candidates)]
                repair.refund(repair.Problem(rnd.pk, str(player), "checked by a test", 0))
        elif kind == "login":
            # A login comes after the rounds before it, never at their instant.
            clock += dt.timedelta(seconds=1)
            play_safe.start_session(user=player, now=clock)
        elif kind == "zone":
            play_safe.set_time_zone(user=player, name=step[1])
        else:
            clock += dt.timedelta(minutes=step[1])
        assert differences() == []
        assert kept_windows(player, clock) == windows_from_rounds(player, clock)
        assert kept_takings() == takings_from_rounds()


def play_a_round(player, now: dt.datetime | None = None) -> None:
    """10 chips on PLAYER at Baccarat Classic, through the round's pipeline."""
    baccarat_service.play(
        user=player,
        table=Table.objects.get(slug="baccarat-classic"),
        bets={"player": 10 * CHIP},
        slip_key="a",
        now=now,
    )


def test_audit_rollups_names_a_total_written_wrong(make_player, capsys):
    player = make_player(chips=1_000)
    play_a_round(player)
    call_command("audit_rollups")
    assert "kept totals ok" in capsys.readouterr().out
    PlayerDay.objects.filter(player=player).update(staked=1)
    Profile.objects.filter(user=player).update(session_net=12_345)
    TableHour.objects.filter(player=player).update(on_player=7)
    with pytest.raises(CommandError, match="3 kept total"):
        call_command("audit_rollups")
    err = capsys.readouterr().err
    assert f"player {player.pk} day" in err and "kept Totals(rounds=1, staked=1" in err
    assert f"player {player.pk} session net: kept 12345" in err
    classic = Table.objects.get(slug="baccarat-classic")
    assert f"table {classic.pk} version {classic.current_version_id} hour " in err
    assert f"UTC player {player.pk}: on_player kept 7, rounds say 1000" in err


def test_a_zone_change_moves_the_rounds_to_the_new_local_days(make_player):
    """A round at 23:30 UTC is on the next day in Tokyo: the statement and
    the daily loss follow the zone the player has now."""
    player = make_player(chips=1_000)
    played = dt.datetime(2026, 4, 30, 23, 30, tzinfo=UTC)
    play_a_round(player, now=played)
    assert [m["month"] for m in reads.statement_months(player)] == ["2026-04"]
    play_safe.set_time_zone(user=player, name="Asia/Tokyo")
    assert [m["month"] for m in reads.statement_months(player)] == ["2026-05"]
    assert set(PlayerDay.objects.filter(player=player).values_list("day", flat=True)) == {
        dt.date(2026, 5, 1)
    }
    assert LossLimit.objects.filter(user=player).count() == 0


def test_audit_rollups_rebuild_writes_the_totals_again(make_player, capsys):
    player = make_player(chips=1_000)
    play_a_round(player)
    kept = list(TableHour.objects.values())
    PlayerDay.objects.filter(player=player).delete()
    TableHour.objects.all().delete()
    with pytest.raises(CommandError, match="2 kept total"):
        call_command("audit_rollups")
    call_command("audit_rollups", "--rebuild")
    assert "kept totals ok" in capsys.readouterr().out
    assert PlayerDay.objects.filter(player=player).exists()
    assert [dict(row, id=0) for row in TableHour.objects.values()] == [
        dict(row, id=0) for row in kept
    ]
