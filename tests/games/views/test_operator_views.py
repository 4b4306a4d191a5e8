"""The operator console as an operator uses it: the audit log in chips and
words, finding a player and their account page, deactivating and
reactivating an account, the floor export and the dashboard's charts."""

from __future__ import annotations

import copy
import csv
import datetime as dt
import html as html_lib
import io
import math
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import AuditEntry, Profile, Round, Table
from games.selectors.history_export import CHUNK_SIZE, ROWS_PER_CHUNK
from games.services.operator import do_adjustments, set_player_active
from games.services.sockets import SESSION_END, user_group
from games.services.tables import save_table, table_snapshot
from tests.groups import heard
from tests.stored_results import settled_coup

User = get_user_model()
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HTMX = {**EN, "HTTP_HX_REQUEST": "true"}


@pytest.fixture
def operator(db):
    return User.objects.create_superuser("operator", "op@example.com", None)


@pytest.fixture
def op_client(client, operator):
    client.force_login(operator)
    return client


def play_round(
    player, table_slug="baccarat-classic", *, bets=None, when=None, status="settled"
) -> Round:
    """A Baccarat coup dealt from a real shoe, stored as the service would."""
    rnd, _ = settled_coup(
        player,
        bets=bets or {"banker": 1_000},
        client_seed="lucky",
        slug=table_slug,
        status=status,
        created_at=when,
    )
    return rnd


def text(fragment: str) -> str:
    """What a person reads in an HTML fragment: tags dropped, spaces squeezed."""
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def audit_rows(page: str) -> list[dict[str, object]]:
    """The audit log's rows as the operator reads them, newest first."""
    body = page.split('id="result_list"', 1)[1].split("</table>", 1)[0]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S):
        cells = dict(re.findall(r'class="field-(\w+)[^"]*">(.*?)</t[dh]>', row, re.S))
        rows.append(
            {
                "operator": text(cells["operator"]),
                "action": text(cells["action_label"]),
                "object": text(cells["object_link"]),
                "changes": [text(li) for li in re.findall(r"<li>(.*?)</li>", cells["changes"])],
            }
        )
    return rows


# --- the audit log ---------------------------------------------------------------------


@pytest.fixture
def logged_changes(operator, make_player):
    """A lowered max bet, a credit with a reason and a deactivation."""
    Table.objects.filter(slug="baccarat-social").update(max_bet=10_000 * 100)
    social = Table.objects.get(slug="baccarat-social")
    before = copy.deepcopy(table_snapshot(social))
    social.max_bet = 9_000 * 100
    save_table(table=social, actor=operator, before=before)
    bob = make_player("bob", chips=10_000)
    do_adjustments(wallet_ids=[bob.wallet.pk], amount=12_300, reason="goodwill", actor=operator)
    set_player_active(player=bob, active=False, reason="asked to self-exclude", actor=operator)
    return bob


@pytest.mark.engines
def test_the_audit_log_says_who_did_what_to_which_object_in_chips(op_client, logged_changes):
    page = op_client.get(reverse("admin:games_auditentry_changelist"), **EN).content.decode()
    assert audit_rows(page) == [
        {
            "operator": "operator",
            "action": "Player deactivated",
            "object": "bob (Player account)",
            "changes": ["deactivated: asked to self-exclude"],
        },
        {
            "operator": "operator",
            "action": "Balance adjusted",
            "object": "bob (Player's balance)",
            "changes": ["credit 123 chips: goodwill", "balance 10,000 → 10,123 chips"],
        },
        {
            "operator": "operator",
            "action": "Table changed",
            "object": "Baccarat Social (Table)",
            "changes": ["max bet 10,000 → 9,000 chips"],
        },
    ]
    assert "3 audit log entries" in text(page)
    assert "null" not in page.split('id="result_list"', 1)[1].split("</table>", 1)[0]
    # The object links to where it is seen: the player's page, the table's.
    assert reverse("operator_player", args=[logged_changes.pk]) in page
    social = Table.objects.get(slug="baccarat-social")
    assert reverse("admin:games_table_change", args=[social.pk]) in page


@pytest.mark.engines
def test_a_new_table_reads_as_what_it_was_set_to_not_null_to_value(op_client, operator):
    table = Table(
        game="baccarat",
        name="High Limit",
        slug="high-limit",
        decks=8,
        chips=[100, 500],
        pays={
            "player": "2",
            "banker": "1.95",
            "tie": "9",
            "player_pair": "12",
            "banker_pair": "12",
        },
        limits={"player": {"min": 10_000, "max": 5_000_000}},
        max_bet=5_000_000,
    )
    save_table(table=table, actor=operator, before=None)
    (row,) = audit_rows(
        op_client.get(reverse("admin:games_auditentry_changelist"), **EN).content.decode()
    )
    assert row["action"] == "Table created"
    assert "max bet 50,000 chips" in row["changes"]
    assert "TIE x9" in row["changes"]
    assert "PLAYER limits 100–50,000 chips" in row["changes"]
    assert "chip values 100, 500 chips" in row["changes"]
    assert not any("→" in line for line in row["changes"])


@pytest.mark.engines
def test_a_paytable_change_names_the_bet_and_both_multipliers(op_client, operator):
    classic = Table.objects.get(slug="baccarat-classic")
    before = copy.deepcopy(table_snapshot(classic))
    classic.pays = {**classic.pays, "tie": "8"}
    classic.limits = {**classic.limits, "tie": {"min": 100, "max": 50_000}}
    classic.enabled = False
    save_table(table=classic, actor=operator, before=before)
    (row,) = audit_rows(
        op_client.get(reverse("admin:games_auditentry_changelist"), **EN).content.decode()
    )
    old_tie = before["limits"]["tie"]
    assert row["changes"] == [
        "table open → closed",
        "TIE x9 → x8",
        f"TIE limits {old_tie['min'] // 100:,}–{old_tie['max'] // 100:,} → 1–500 chips",
    ]


def test_one_entry_reads_as_a_sentence_on_its_page(op_client, logged_changes):
    entry = AuditEntry.objects.get(action="wallet.adjust")
    page = op_client.get(reverse("admin:games_auditentry_change", args=[entry.pk]), **EN)
    words = text(page.content.decode())
    assert "operator adjusted the balance of bob" in words
    assert "credit 123 chips: goodwill" in words
    one = op_client.get(
        reverse("admin:games_auditentry_changelist"), {"action": "wallet.adjust"}, **EN
    )
    assert "1 audit log entry" in text(one.content.decode())


@pytest.mark.engines
def test_the_audit_log_filters_by_operator_object_type_and_date(
    op_client, operator, logged_changes
):
    other = User.objects.create_superuser("second", "second@example.com", None)
    set_player_active(player=logged_changes, active=True, reason="came back", actor=other)
    url = reverse("admin:games_auditentry_changelist")
    page = op_client.get(url, **EN).content.decode()
    assert "By operator" in text(page) and "By object type" in text(page)

    def actions(**params) -> list[str]:
        response = op_client.get(url, params, **EN)
        return [r["action"] for r in audit_rows(response.content.decode())]

    assert actions(actor__id__exact=other.pk) == ["Player reactivated"]
    assert actions(actor__id__exact=operator.pk) == [
        "Player deactivated",
        "Balance adjusted",
        "Table changed",
    ]
    assert actions(object_type="table") == ["Table changed"]
    assert actions(object_type="player") == ["Player reactivated", "Player deactivated"]
    # The table change was ten days ago: today's entries leave it out.
    AuditEntry.objects.filter(action="table.change").update(
        created_at=timezone.now() - dt.timedelta(days=10)
    )
    # As the sidebar's own date links ask: aware midnights in the site's time zone.
    midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    day = dt.timedelta(days=1)
    assert "Table changed" not in actions(
        created_at__gte=str(midnight), created_at__lt=str(midnight + day)
    )
    assert actions(
        created_at__gte=str(midnight - 11 * day), created_at__lt=str(midnight - 9 * day)
    ) == ["Table changed"]


def test_the_admin_counts_ledger_rows_in_the_plural(op_client, make_player):
    make_player(chips=5)
    make_player(chips=5)
    page = op_client.get(reverse("admin:games_ledgerentry_changelist"), **EN).content.decode()
    assert re.search(r"\d+ ledger entries", text(page))


# --- find a player ---------------------------------------------------------------------


def test_the_lookup_opens_empty_with_no_error(op_client):
    response = op_client.get(reverse("history_player_lookup"), **EN)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Find a player" in page
    assert "No player is called" not in page and "Your past games" not in page
    assert 'class="msg error"' not in page
    assert 'hx-trigger="input changed delay:300ms' in page
    assert 'data-testid="player-result"' not in page


@pytest.mark.engines
def test_it_finds_players_by_username_email_or_number_as_you_type(op_client, make_player):
    alice = make_player("alice", email="alice@example.com", chips=250)
    make_player("alicia", email="al@example.org")
    bob = make_player("bob", email="bob@casino.test")
    url = reverse("history_player_lookup")

    def found(q: str) -> list[str]:
        response = op_client.get(url, {"q": q}, **HTMX)
        page = response.content.decode()
        assert "<html" not in page  # only the results, swapped in place
        return re.findall(r'data-testid="player-link">([^<]+)<', page)

    assert found("ali") == ["alice", "alicia"]
    assert found("ALICE") == ["alice"]
    assert found("casino.test") == ["bob"]
    assert found(str(bob.pk))[0] == "bob"
    assert found("nobody-like-this") == []
    page = op_client.get(url, {"q": "alice@"}, **HTMX).content.decode()
    assert ">250<" in page  # the balance, in chips
    assert reverse("operator_player", args=[alice.pk]) in page
    none = op_client.get(url, {"q": "zzz"}, **HTMX).content.decode()
    assert "No player matches “zzz”." in text(none)


def test_players_cannot_look_players_up(client, make_player):
    alice = make_player("alice")
    client.force_login(make_player("bob"))
    assert client.get(reverse("history_player_lookup"), {"q": "alice"}).status_code == 404
    assert client.get(reverse("operator_player", args=[alice.pk])).status_code == 404
    response = client.post(
        reverse("operator_player_active", args=[alice.pk]), {"active": "0", "reason": "x"}
    )
    assert response.status_code == 404
    alice.refresh_from_db()
    assert alice.is_active
    anonymous = Client()
    assert anonymous.get(reverse("history_player_lookup")).status_code == 302


def test_the_player_page_shows_their_account(op_client, operator, make_player):
    alice = make_player("alice", chips=1_000)
    recent = [play_round(alice) for _ in range(2)]
    old = play_round(alice, when=timezone.now() - dt.timedelta(days=45))
    play_round(alice, status="void")
    do_adjustments(wallet_ids=[alice.wallet.pk], amount=-5_050, reason="chargeback", actor=operator)
    Profile.objects.filter(user=alice).update(personal_max_bet=20_000)

    response = op_client.get(reverse("operator_player", args=[alice.pk]), **EN)
    assert response.status_code == 200
    page = response.content.decode()
    words = text(page)
    assert 'data-testid="player-balance">949.50<' in page
    assert 'data-testid="player-max-bet">200<' in page
    lifetime = re.search(r'data-testid="play-lifetime">(.*?)</tr>', page, re.S).group(1)
    last30 = re.search(r'data-testid="play-recent">(.*?)</tr>', page, re.S).group(1)
    counted = [*recent, old]
    assert text(lifetime).split()[1] == "3"  # the void round was refunded: not counted
    assert f'data-col="bet">{sum(r.total_bet for r in counted) // 100}<' in lifetime
    returned = sum(r.total_return for r in recent)
    assert text(last30).split()[3] == "2"
    assert f'data-col="returned">{returned / 100:,.2f}'.replace(".00", "") in last30
    for rnd in recent + [old]:
        assert reverse("history_round", args=[rnd.pk]) in page
    assert "-50.50" in words and "chargeback" in words
    assert 'data-testid="deactivate"' in page
    assert "Active" in words


@pytest.mark.engines
def test_it_deactivates_a_player_signs_them_out_and_closes_their_sockets(
    op_client, operator, make_player, client_factory, django_capture_on_commit_callbacks
):
    alice = make_player("alice")
    theirs = client_factory()
    theirs.force_login(alice)
    assert theirs.get(reverse("account")).status_code == 200

    def deactivate() -> HttpResponse:
        with django_capture_on_commit_callbacks(execute=True):
            return op_client.post(
                reverse("operator_player_active", args=[alice.pk]),
                {"active": "0", "reason": "fraud review"},
                **EN,
            )

    response, event = heard(user_group(alice.pk), deactivate)
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.is_active is False
    assert event == {"type": SESSION_END}
    # Their browser is signed out: the next page asks them to log in.
    account = theirs.get(reverse("account"))
    assert account.status_code == 302 and "login" in account["Location"]
    entry = AuditEntry.objects.get(action="player.deactivate")
    assert (entry.actor, entry.object_id, entry.after["reason"]) == (
        operator,
        str(alice.pk),
        "fraud review",
    )
    page = op_client.get(reverse("operator_player", args=[alice.pk]), **EN).content.decode()
    assert "is deactivated" in text(page)
    assert 'data-testid="player-state">Deactivated<' in page
    assert "fraud review" in text(page)

    op_client.post(
        reverse("operator_player_active", args=[alice.pk]), {"active": "1", "reason": "cleared"}
    )
    alice.refresh_from_db()
    assert alice.is_active is True
    assert AuditEntry.objects.filter(action="player.reactivate", after__reason="cleared").exists()


def test_a_state_change_needs_a_reason_and_the_permission(client, operator, make_player):
    alice = make_player("alice")
    viewer = User.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_user"))
    client.force_login(viewer)
    url = reverse("operator_player_active", args=[alice.pk])
    assert client.post(url, {"active": "0", "reason": "x"}).status_code == 403
    assert (
        'data-testid="deactivate"'
        not in client.get(reverse("operator_player", args=[alice.pk])).content.decode()
    )
    client.force_login(operator)
    response = client.post(url, {"active": "0", "reason": "   "}, follow=True, **EN)
    assert "Give a reason" in text(response.content.decode())
    refused = client.post(
        reverse("operator_player_active", args=[operator.pk]),
        {"active": "0", "reason": "oops"},
        follow=True,
        **EN,
    )
    assert "You cannot deactivate your own account." in text(refused.content.decode())
    alice.refresh_from_db()
    operator.refresh_from_db()
    assert alice.is_active and operator.is_active
    assert not AuditEntry.objects.filter(object_type="player").exists()


@pytest.fixture
def client_factory():
    return lambda: Client(HTTP_ACCEPT_LANGUAGE="en")


# --- the floor export ------------------------------------------------------------------


def csv_of(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.mark.engines
def test_the_floor_export_streams_without_building_the_body(op_client, make_player):
    alice = make_player("alice")
    table = Table.objects.get(slug="baccarat-classic")
    many = CHUNK_SIZE + 5
    Round.objects.bulk_create(
        [
            Round(
                player=alice,
                table=table,
                version=table.current_version,
                game="baccarat",
                seq=i + 1,
                slip_key=f"k{i}",
                server_seed="00" * 32,
                server_seed_hash="11" * 32,
                client_seed="c",
                nonce=i,
                bets={"banker": 100},
                returns={"banker": 195},
                total_bet=100,
                total_return=195,
                balance_before=10_000,
                cards=["AS", "2H", "3D", "4C"],
                winner="banker",
            )
            for i in range(many)
        ]
    )
    today = timezone.localdate().isoformat()
    response = op_client.get(
        reverse("admin:games_floor_export"), {"date_from": today, "date_to": today}
    )
    assert isinstance(response, StreamingHttpResponse) and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    chunks = iter(response.streaming_content)
    with CaptureQueriesContext(connection) as queries:
        header = next(chunks)
    assert header.startswith(b"id,time,player") and header.count(b"\n") == 1
    assert len(queries) == 0  # the header goes out before a single round is read
    with CaptureQueriesContext(connection) as queries:
        first = next(chunks)
    assert first.split(b",")[2] == b"alice"
    assert first.count(b"\n") == ROWS_PER_CHUNK
    assert len(queries) == 1  # one fetch of rounds, not the whole range
    rest = list(chunks)
    # Chunk after chunk, a few hundred lines each: the body is never built whole.
    assert len(rest) == math.ceil(many / ROWS_PER_CHUNK) - 1
    assert sum(chunk.count(b"\n") for chunk in rest) == many - ROWS_PER_CHUNK


@pytest.mark.engines
def test_the_floor_export_matches_each_players_own_export(op_client, make_player):
    alice, bob = make_player("alice"), make_player("=bob")
    play_round(alice, bets={"banker": 1_050, "tie": 100})
    play_round(bob, "baccarat-social", bets={"player": 500})
    play_round(alice, "baccarat-social")
    play_round(bob, when=timezone.now() - dt.timedelta(days=10))  # outside the range
    today = timezone.localdate()
    floor = csv_of(
        op_client.get(
            reverse("admin:games_floor_export"),
            {"date_from": (today - dt.timedelta(days=2)).isoformat(), "date_to": today},
        )
    )
    header, rows = floor[0], floor[1:]
    mine = csv_of(op_client.get(reverse("history_player_export", args=[alice.pk])))
    theirs = csv_of(op_client.get(reverse("history_player_export", args=[bob.pk])))
    assert header == mine[0] == theirs[0]
    recent_theirs = [r for r in theirs[1:] if r[0] != str(Round.objects.earliest("created_at").pk)]
    assert sorted(rows) == sorted(mine[1:] + recent_theirs)
    assert len(rows) == 3
    assert {r[2] for r in rows} == {"alice", "'=bob"}  # the same formula guard

    social = csv_of(
        op_client.get(
            reverse("admin:games_floor_export"),
            {
                "date_from": today.isoformat(),
                "date_to": today.isoformat(),
                "table": "baccarat-social",
            },
        )
    )
    assert [r[4] for r in social[1:]] == ["baccarat-social", "baccarat-social"]


def test_the_floor_export_explains_a_bad_range(op_client):
    response = op_client.get(
        reverse("admin:games_floor_export"),
        {"date_from": "2026-05-02", "date_to": "2026-05-01"},
        follow=True,
        **EN,
    )
    assert "The start date is after the end date." in text(response.content.decode())
    assert not isinstance(response, StreamingHttpResponse)


def test_the_floor_export_is_for_staff_who_may_view_rounds(client, make_player):
    client.force_login(make_player("alice"))
    response = client.get(reverse("admin:games_floor_export"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    staff = User.objects.create_user("clerk", is_staff=True)
    client.force_login(staff)
    # The same 404 as any page of player data it may not read (games/views/staff_access.py).
    assert client.get(reverse("admin:games_floor_export")).status_code == 404


# --- the dashboard's charts ------------------------------------------------------------


@pytest.mark.engines
def test_each_chart_has_one_point_per_day_with_the_tables_figures(op_client, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    now = timezone.now()
    play_round(alice)
    play_round(bob, bets={"player": 2_000})
    play_round(alice, when=now - dt.timedelta(days=3))
    response = op_client.get(
        reverse("admin:games_dashboard"), {"period": "7d", "table": "baccarat-classic"}, **EN
    )
    page = response.content.decode()
    section = re.search(r'data-testid="charts-baccarat-classic"(.*?)</section>', page, re.S)
    assert section and 'data-testid="charts-baccarat-social"' not in page
    body = section.group(1)
    figures = [
        dict(re.findall(r'data-col="(\w+)">([^<]*)<', row))
        for row in re.findall(r'data-testid="figure-row">(.*?)</tr>', body, re.S)
    ]
    assert len(figures) == 7

    def points(chart: str, series: str | None = None) -> list[tuple[str, str]]:
        svg = re.search(rf'data-testid="chart-{chart}-baccarat-classic"(.*?)</figure>', body, re.S)
        part = svg.group(1)
        if series:
            part = re.search(rf'data-series="{series}">(.*?)</g>', part, re.S).group(1)
        return re.findall(r'data-label="([^"]+)" data-value="([^"]*)"', part)

    labels = [f["label"] for f in figures]
    assert [p[0] for p in points("rate")] == labels
    assert [p[1] for p in points("rate")] == [f["rate"] for f in figures]
    assert [p[1] for p in points("players")] == [f["players"] for f in figures]
    # Hold lines skip the days without bets; where they have a point it is the table's figure.
    actual = dict(points("hold", "actual"))
    theoretical = dict(points("hold", "theoretical"))
    assert actual == {f["label"]: f["actual"] for f in figures if f["actual"] != "—"}
    assert theoretical == {f["label"]: f["theoretical"] for f in figures if f["rounds"] != "0"}
    assert [f["rounds"] for f in figures][-1] == "2" and [f["rounds"] for f in figures][-4] == "1"
    assert [f["players"] for f in figures][-1] == "2"
    assert "<script" not in body


def test_the_dashboard_offers_the_periods_and_the_floor_export(op_client):
    page = op_client.get(reverse("admin:games_dashboard"), {"period": "24h"}, **EN)
    html = page.content.decode()
    assert len(re.findall(r'data-testid="figure-row"', html)) == 24 * Table.objects.count()
    assert reverse("admin:games_floor_export") in html
    bad = op_client.get(reverse("admin:games_dashboard"), {"period": "1y"}, **EN)
    assert bad.status_code == 200  # an unknown period shows the default one
