"""The operator's numbers: live paytable figures and per-table takings."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

from django.utils import timezone

from games.baccarat.odds import rtp
from games.models import Profile, Round, Table
from games.money import decimal_pays
from games.presets import CLASSIC_PAYS, WAR_PAYS
from games.selectors.dashboard import (
    expected_loss,
    live_paytable,
    pay_figures,
    percent,
    period_takings,
    table_series,
    takings,
)
from games.services import baccarat, repair
from games.services import war as war_service
from games.services.tables import save_table, table_snapshot
from games.war.odds import exact_edge
from games.war.rules import first_cards_tied
from tests.seeds import find_seed


def by_key(figures):
    return {f.key: f for f in figures}


def test_it_gives_the_classic_figures_exactly():
    figures = by_key(pay_figures(game="baccarat", pays=CLASSIC_PAYS, decks=8))
    exact = rtp(decimal_pays(CLASSIC_PAYS), 8)
    assert figures["banker"].rtp == exact["banker"]
    assert figures["banker"].edge == 1 - exact["banker"]
    assert [figures[k].rtp_percent for k in ("banker", "player", "tie")] == [
        "98.94%",
        "98.76%",
        "85.64%",
    ]
    assert not any(f.warnings for f in figures.values())


def test_it_gives_the_war_edges_per_ante():
    figures = by_key(pay_figures(game="war", pays=WAR_PAYS, decks=6))
    edges = exact_edge(6, decimal_pays(WAR_PAYS))
    assert figures["ante"].edge == edges["war"]
    assert figures["ante"].edge_percent == "2.88%"
    assert figures["ante"].surrender_edge == edges["surrender"]
    assert figures["raise"].edge == edges["war"]
    assert figures["tie_bet"].rtp == 1 - edges["tie_bet"]


def test_it_warns_on_a_house_losing_paytable():
    figures = by_key(pay_figures(game="war", pays={**WAR_PAYS, "raise": "4"}, decks=6))
    assert figures["raise"].warnings and figures["ante"].warnings
    assert not figures["tie_bet"].warnings


def test_it_rounds_percentages_half_up():
    assert percent(Fraction(98765, 100000)) == "98.77%"
    assert percent(Fraction(1, 8)) == "12.50%"
    assert percent(None) == ""


def test_it_explains_an_impossible_deck_count():
    live = live_paytable(game="baccarat", decks="0", pays=CLASSIC_PAYS)
    assert live.error and live.decks is None
    assert all(f.rtp is None for f in live.figures)


def test_expected_loss_weights_each_area_by_its_stake(db):
    classic = Table.objects.get(slug="baccarat-classic")
    exact = rtp(decimal_pays(CLASSIC_PAYS), 8)
    loss = expected_loss(version=classic.current_version, stakes={"banker": 1000, "tie": 100})
    assert loss == 1000 * (1 - exact["banker"]) + 100 * (1 - exact["tie"])
    war = Table.objects.get(slug="casino-war")
    edges = exact_edge(6, decimal_pays(WAR_PAYS))
    assert expected_loss(version=war.current_version, stakes={"ante": 500, "tie_bet": 100}) == (
        500 * edges["war"] + 100 * edges["tie_bet"]
    )


def play(user, table, bets, key, *, now=None):
    """A Baccarat round through the round's pipeline (which keeps the hours
    the takings read), played ``now`` or at the time given."""
    return baccarat.play(user=user, table=table, bets=bets, slip_key=key, now=now).round


def test_it_sums_today_and_the_week_per_table(make_player):
    classic = Table.objects.get(slug="baccarat-classic")
    alice, bob = make_player(chips=1_000), make_player(chips=1_000)
    now = timezone.now()
    today = [play(alice, classic, {"banker": 1_000}, f"a{i}") for i in range(2)]
    play(bob, classic, {"player": 2_000}, "b0", now=now - dt.timedelta(days=3))
    play(bob, classic, {"player": 2_000}, "b1", now=now - dt.timedelta(days=8))

    midnight = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    day = takings(since=midnight)
    week = takings(since=midnight - dt.timedelta(days=6))
    day_row = next(r for r in day if r.table == classic)
    week_row = next(r for r in week if r.table == classic)
    assert (day_row.rounds, day_row.bet, day_row.players) == (2, 2_000, 1)
    assert day_row.returned == sum(r.total_return for r in today)
    assert (week_row.rounds, week_row.bet, week_row.players) == (3, 4_000, 2)
    assert week_row.actual_hold == 1 - Fraction(week_row.returned, 4_000)
    exact = rtp(decimal_pays(CLASSIC_PAYS), 8)
    assert (
        week_row.theoretical_hold
        == (2_000 * (1 - exact["banker"]) + 2_000 * (1 - exact["player"])) / 4_000
    )
    social = next(r for r in week if r.table.slug == "baccarat-social")
    assert (social.rounds, social.actual_hold, social.theoretical_hold) == (0, None, None)


def test_it_weights_each_round_by_the_version_it_was_played_under(make_player):
    classic = Table.objects.get(slug="baccarat-classic")
    player = make_player(chips=1_000)
    play(player, classic, {"tie": 1_000}, "v1")
    before = table_snapshot(classic)
    classic.pays = {**classic.pays, "tie": "8"}
    save_table(table=classic, actor=None, before=before)
    play(player, classic, {"tie": 1_000}, "v2")
    row = next(
        r for r in takings(since=timezone.now() - dt.timedelta(hours=1)) if r.table == classic
    )
    nine = rtp(decimal_pays(CLASSIC_PAYS), 8)["tie"]
    eight = rtp(decimal_pays({**CLASSIC_PAYS, "tie": "8"}), 8)["tie"]
    assert row.theoretical_loss == 1_000 * (1 - nine) + 1_000 * (1 - eight)


def test_it_leaves_void_rounds_out_and_counts_open_rounds_players(make_player):
    """A refunded round counts nowhere; a War tie waiting for its decision
    seats its player, without money until it is settled."""
    classic = Table.objects.get(slug="baccarat-classic")
    war = Table.objects.get(slug="casino-war")
    player = make_player(chips=1_000)
    rnd = play(player, classic, {"banker": 1_000}, "void")
    repair.refund(repair.Problem(rnd.pk, str(player), "checked by a test", -1_000))
    seed = find_seed("dashboard-tie", "dash", war.decks, first_cards_tied)
    Profile.objects.filter(user=player).update(next_server_seed=seed, client_seed="dash", nonce=0)
    waiting = war_service.play(user=player, table=war, ante=500, tie_bet=0, slip_key="tie").round
    assert waiting.status == Round.Status.OPEN
    since = timezone.now() - dt.timedelta(hours=1)
    rows = {r.table.slug: r for r in takings(since=since)}
    assert (rows["baccarat-classic"].rounds, rows["baccarat-classic"].players) == (0, 0)
    assert (rows["casino-war"].rounds, rows["casino-war"].bet, rows["casino-war"].players) == (
        0,
        0,
        1,
    )
    war_service.decide(user=player, round_id=waiting.pk, decision="surrender")
    (settled,) = takings(since=since, table=war)
    assert (settled.rounds, settled.bet, settled.players) == (1, 500, 1)


# --- the figures over time (the dashboard's charts) ------------------------------------


def test_the_last_24_hours_have_one_point_per_hour_summing_to_the_period(make_player):
    classic = Table.objects.get(slug="baccarat-classic")
    alice, bob = make_player(chips=1_000), make_player(chips=1_000)
    now = timezone.now()
    rounds = [
        play(alice, classic, {"banker": 1_000}, "h0"),
        play(bob, classic, {"player": 2_000}, "h1"),
        play(alice, classic, {"tie": 1_000}, "h2", now=now - dt.timedelta(hours=5)),
        play(bob, classic, {"banker": 700}, "h3", now=now - dt.timedelta(hours=30)),
    ]

    (series,) = table_series(period="24h", now=now, table=classic)
    points = series.points
    assert len(points) == 24
    assert [p.end for p in points[:-1]] == [p.start for p in points[1:]]  # back to back
    assert points[0].start <= now - dt.timedelta(hours=23) and points[-1].end > now
    assert [p.rounds for p in points[-1:]] == [2] and points[-6].rounds == 1
    assert sum(p.rounds for p in points) == 3  # the round 30 hours ago is out
    assert points[-1].players == 2 and points[-6].players == 1
    assert points[-1].rounds_per_hour == 2  # a whole hour's rate, even early in the hour

    (whole,) = [r for r in period_takings(period="24h", now=now) if r.table == classic]
    assert sum(p.bet for p in points) == whole.bet == 4_000
    assert sum(p.returned for p in points) == whole.returned
    assert sum((p.theoretical_loss for p in points), Fraction(0)) == whole.theoretical_loss
    exact = rtp(decimal_pays(CLASSIC_PAYS), 8)
    assert points[-6].theoretical_hold == 1 - exact["tie"]
    assert points[-6].actual_hold == 1 - Fraction(rounds[2].total_return, 1_000)
    assert all(p.actual_hold is None for p in points if not p.bet)


def test_a_week_has_one_point_per_calendar_day(make_player):
    classic = Table.objects.get(slug="baccarat-classic")
    player = make_player(chips=1_000)
    now = timezone.now()
    play(player, classic, {"banker": 1_000}, "d0", now=now - dt.timedelta(days=3))
    play(player, classic, {"banker": 1_000}, "d1")
    by_slug = {s.table.slug: s for s in table_series(period="7d", now=now)}
    assert set(by_slug) == set(Table.objects.values_list("slug", flat=True))
    points = by_slug["baccarat-classic"].points
    assert len(points) == 7
    assert [timezone.localtime(p.start).hour for p in points] == [0] * 7
    assert timezone.localdate(points[-1].start) == timezone.localdate(now)
    assert [p.rounds for p in points] == [0, 0, 0, 1, 0, 0, 1]
    assert all(p.rounds == 0 for p in by_slug["baccarat-social"].points)
