"""Demo play is kept apart: after 200 demo rounds on every table the real
ledger audit, the operator dashboard's figures and charts, the floor export,
the player search and a real player's history read exactly as before, and
the audit still checks (and counts apart) the demo wallets."""

from __future__ import annotations

import datetime as dt
import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Round, Table
from games.selectors import history as history_selectors
from games.selectors.dashboard import period_takings, table_series
from games.selectors.history_export import FloorFilter, csv_chunks, floor_rounds
from games.selectors.operator_players import search_players
from games.services import baccarat as baccarat_service
from games.services import demo as demo_service
from games.services import war as war_service
from games.services.wallet import ledger_mismatches

pytestmark = pytest.mark.django_db


def play_rounds(user, n: int, rng: random.Random, tag: str) -> None:
    """``n`` rounds at the three tables, small stakes, War ties surrendered."""
    tables = list(Table.objects.filter(slug__in=["baccarat-social", "baccarat-classic"]))
    war = Table.objects.get(slug="casino-war")
    for i in range(n):
        if i % 4 == 3:
            rnd = war_service.deal(
                user=user, table=war, ante=1_000, tie_bet=0, slip_key=f"{tag}{i}"
            )
            if rnd.status == Round.Status.OPEN:
                war_service.decide(user=user, round_id=rnd.pk, decision="surrender")
        else:
            area = rng.choice(["player", "banker", "tie", "player_pair"])
            baccarat_service.place_bet(
                user=user, table=tables[i % 2], bets={area: 1_000}, slip_key=f"{tag}{i}"
            )
        if i % 50 == 49:
            demo_service.refill(user=user)


def house_figures(real_player) -> dict:
    now = timezone.now()
    today = timezone.localdate(now)
    filters = history_selectors.HistoryFilter(game="", date_from=None, date_to=None, outcome="")
    return {
        "takings": [
            (t.table.slug, t.rounds, t.bet, t.returned, t.players, t.theoretical_loss)
            for t in period_takings(now=now)
        ],
        "series": [
            [
                (p.start, p.rounds, p.bet, p.returned, p.players, p.theoretical_loss)
                for p in s.points
            ]
            for s in table_series(now=now)
        ],
        "floor": "".join(
            csv_chunks(floor_rounds(FloorFilter(today - dt.timedelta(days=1), today)))
        ),
        "search": [u.username for u in search_players("demo")]
        + [u.username for u in search_players("a")],
        "history": [
            r.pk
            for r in history_selectors.history_page(
                player_id=real_player.pk, filters=filters, before=None, after=None
            ).rounds
        ],
        "summary": history_selectors.history_summary(player_id=real_player.pk, filters=filters),
        "mismatches": ledger_mismatches(),
    }


def test_200_demo_rounds_leave_every_real_figure_unchanged(make_player):
    rng = random.Random(18)
    alice = make_player("alice")
    play_rounds(alice, 12, rng, "alice")
    before = house_figures(alice)
    assert any(row[1] for row in before["takings"])
    assert any(p[1] for points in before["series"] for p in points)

    demo = demo_service.start_demo()
    play_rounds(demo, 200, rng, "demo")
    assert Round.objects.filter(player=demo).count() == 200

    after = house_figures(alice)
    assert after == before
    assert after["mismatches"] == []
    out = StringIO()
    call_command("audit_ledger", stdout=out)
    assert "2 wallet(s) match their ledger rows (1 real, 1 demo)" in out.getvalue()
