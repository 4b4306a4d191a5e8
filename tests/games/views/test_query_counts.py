"""How many queries a player's table pages and rounds cost: one round is one
request, and these bounds only ever go down (a regression here is a
slower table for every player)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Profile, Round, Table
from games.services import live, play_safe, rollups
from tests.live import shoe_under_way
from tests.seeds import find_seed, war_cases
from tests.tables import shown_version

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def tab(client, make_player):
    client.force_login(make_player(chips=1_000))
    return client


def queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code == 200
    return len(captured)


def test_a_baccarat_round_costs_one_page_and_one_bet(tab):
    page = reverse("baccarat_table", args=["baccarat-classic"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    shown = {"table_version": shown_version("baccarat-classic")}
    tab.get(page)  # the first visit may write the session
    # 7: the header's session net result (play safe) is the profile's kept net.
    assert queries(lambda: tab.get(page)) <= 7
    # 14: on SQLite the round's day row and table hour (services.rollups)
    # and the next commitment's leaf of the public log are statements of
    # their own; on PostgreSQL all three are part of the round's one statement.
    assert queries(lambda: tab.post(bet, {"slip_key": "k", "player": "10", **shown}, **HTMX)) <= 14


def test_a_war_round_costs_one_page_and_one_deal(tab):
    # A deal that does not tie (a tie also reads the last settled round for REPEAT).
    seed = find_seed("query-count-war", "qc", 6, lambda shoe: "tie" not in war_cases(shoe))
    Profile.objects.update(next_server_seed=seed, client_seed="qc", nonce=0)
    page = reverse("war_table", args=["casino-war"])
    deal = reverse("war_deal", args=["casino-war"])
    tab.get(page)
    assert queries(lambda: tab.get(page)) <= 6  # the header's session net: one read
    assert queries(lambda: tab.post(deal, {"ante": "5", "slip_key": "k"}, **HTMX)) <= 14


def test_loss_limits_cost_two_queries_per_check_whatever_the_periods(tab):
    """A player with a daily, weekly and monthly loss limit: the limits in
    force and the three periods' losses, one query each, at each check
    (BET checks once in the round and once for the answer's slip)."""
    player = User.objects.get(pk=tab.session["_auth_user_id"])
    for period in ("day", "week", "month"):
        play_safe.set_loss_limit(user=player, period=period, amount=90_000)
    page = reverse("baccarat_table", args=["baccarat-classic"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    shown = {"table_version": shown_version("baccarat-classic")}
    tab.get(page)
    assert queries(lambda: tab.get(page)) <= 9
    assert queries(lambda: tab.post(bet, {"slip_key": "k", "player": "10", **shown}, **HTMX)) <= 18


def add_history(player, count: int) -> None:
    """``count`` more settled rounds this month, copies of the player's last
    (their seq and slip key their own), made by one INSERT ... SELECT, and
    the kept totals rebuilt as the rounds say."""
    last = Round.objects.filter(player=player, game="baccarat").latest("seq")
    columns = [f.column for f in Round._meta.concrete_fields if not f.primary_key]
    copied = {"seq": "r.seq + n.i", "slip_key": "'bulk-' || (r.seq + n.i)"}
    quote = connection.ops.quote_name
    table = quote(Round._meta.db_table)
    names = ", ".join(quote(c) for c in columns)
    values = ", ".join(copied.get(c, f"r.{quote(c)}") for c in columns)
    numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s)"
    # The names are the model's own; the values are parameters.
    insert = f"{numbers} INSERT INTO {table} ({names}) SELECT {values} FROM n, {table} r"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(f"{insert} WHERE r.id = %s", [count, last.pk])
    assert Round.objects.filter(player=player, slip_key__startswith="bulk-").count() >= count
    rollups.rebuild_all()


def test_pages_and_bets_cost_the_same_queries_at_10_and_10_000_rounds(tab):
    """Every read a round or a page makes is bounded: a player with all
    three loss limits set, at 10 rounds this month and at 10,000."""
    player = User.objects.get(pk=tab.session["_auth_user_id"])
    for period in ("day", "week", "month"):
        play_safe.set_loss_limit(user=player, period=period, amount=10_000_000)
    table = reverse("baccarat_table", args=["baccarat-classic"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    shown = {"table_version": shown_version("baccarat-classic")}
    seed = find_seed("query-count-war", "qc", 6, lambda shoe: "tie" not in war_cases(shoe))
    keys = iter(range(10**6))

    def deal_war():
        Profile.objects.filter(user=player).update(next_server_seed=seed, client_seed="qc", nonce=0)
        return tab.post(
            reverse("war_deal", args=["casino-war"]),
            {"ante": "5", "slip_key": f"w{next(keys)}"},
            **HTMX,
        )

    reads = {
        "table page": lambda: tab.get(table),
        "bet": lambda: tab.post(
            bet, {"slip_key": f"b{next(keys)}", "player": "10", **shown}, **HTMX
        ),
        "war deal": deal_war,
        "history": lambda: tab.get(reverse("history")),
        "history summary": lambda: tab.get(reverse("history_summary"), **HTMX),
        "history summary, a month": lambda: tab.get(
            reverse("history_summary"),
            {"date_from": "2026-01-01", "date_to": "2026-12-31", "result": "lose"},
            **HTMX,
        ),
        "play-safe page": lambda: tab.get(reverse("play_safe")),
        "statement": lambda: tab.get(reverse("play_safe_statement")),
    }
    tab.post(bet, {"slip_key": "first", "player": "10", **shown}, **HTMX)
    add_history(player, 9)
    for call in reads.values():
        call()  # the first visit may write the session
    big = same_count_at_10_000(player, reads)
    # No sum or count over the rounds: the kept totals answer.
    for name, sql in big.items():
        summed = [q for q in sql if '"games_round"' in q and ("SUM(" in q or "COUNT(" in q)]
        assert summed == [], name


def test_the_dashboard_costs_the_same_queries_at_10_and_10_000_rounds(tab, client):
    """The operator dashboard (every table, or one; a day of hours, a month
    of days) reads the kept hours: the same statements at 10 rounds at the
    table and at 10,000, and no sum or count over the rounds."""
    player = User.objects.get(pk=tab.session["_auth_user_id"])
    bet = reverse("baccarat_bet", args=["baccarat-classic"])
    shown = {"table_version": shown_version("baccarat-classic")}
    tab.post(bet, {"slip_key": "first", "player": "10", **shown}, **HTMX)
    add_history(player, 9)
    client.force_login(User.objects.create_superuser("operator", "op@example.com", None))
    dashboard = reverse("admin:games_dashboard")
    reads = {
        f"{period} {table or 'all tables'}": lambda period=period, table=table: client.get(
            dashboard, {"period": period, "table": table}
        )
        for period in ("24h", "30d")
        for table in ("", "baccarat-classic")
    }
    big = same_count_at_10_000(player, reads)
    for name, sql in big.items():
        assert [q for q in sql if '"games_round"' in q] == [], name


def same_count_at_10_000(player, reads) -> dict[str, list[str]]:
    """Each read's statements now and again once ``player`` has 10,000
    rounds: the same number of them; those at 10,000, by read."""
    small = {name: statements(call) for name, call in reads.items()}
    add_history(player, 10_000 - Round.objects.filter(player=player).count())
    big = {name: statements(call) for name, call in reads.items()}
    assert {name: len(sql) for name, sql in big.items()} == {
        name: len(sql) for name, sql in small.items()
    }
    return big


def statements(call) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code == 200
    return [q["sql"] for q in captured]


def test_a_live_bet_costs_a_fixed_number_of_queries(tab):
    """BET at a live table, on a coup past the shoe's first: the round's own
    statements, and an answer drawn from the round in hand (a player has one
    round a coup; placing it settled nothing, so the last settled coup on
    the page stands)."""
    table = Table.objects.get(slug="baccarat-live")
    now = timezone.now()
    shoe_under_way(table, next_opens_at=now - dt.timedelta(seconds=1))
    assert live.advance(table, now=now).did == "opened"
    bet = reverse("baccarat_bet", args=["baccarat-live"])
    shown = {"table_version": shown_version("baccarat-live")}
    # 17 on SQLite (20 when the answer read the coup, the player's round on
    # it and their last settled round again).
    assert queries(lambda: tab.post(bet, {"slip_key": "k", "player": "10", **shown}, **HTMX)) <= 17
