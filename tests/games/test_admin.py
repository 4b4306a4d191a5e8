"""The operator console: tables with live exact RTP, versions, closing a
table, balance adjustments, the audit log, the dashboard and permissions."""

from __future__ import annotations

import hashlib
import re
import time
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.errors import TableClosed
from games.models import AuditEntry, LedgerEntry, Round, Table, TableVersion, Wallet
from games.presets import CLASSIC_PAYS, SOCIAL_PAYS, WAR_PAYS
from games.selectors.dashboard import _baccarat_rtp, live_paytable
from games.services import rounds
from games.verify import derive_shoe
from games.war.rules import play_war, rank_value
from tests.admin_forms import admin_form_data as form_data
from tests.tables import shown_version

User = get_user_model()


@pytest.fixture
def operator(db):
    return User.objects.create_superuser("operator", "op@example.com", None)


@pytest.fixture
def op_client(client, operator):
    client.force_login(operator)
    return client


def staff_with(username: str, *codenames: str):
    # No password: tests log in with force_login (and hashing is slow).
    user = User.objects.create_user(username, is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="games", codename__in=codenames)
    )
    return user


def table(slug: str) -> Table:
    return Table.objects.get(slug=slug)


def change_url(t: Table) -> str:
    return reverse("admin:games_table_change", args=[t.pk])


def figure(html: str, key: str) -> str:
    """The RTP shown beside one multiplier (its data-rtp, else its data-edge)."""
    match = re.search(rf'id="rtp-{key}"[^>]*data-rtp="([^"]*)" data-edge="([^"]*)"', html)
    assert match, f"no figure for {key}"
    return match.group(1) or match.group(2)


def live(client, game: str, decks: int, pays: dict[str, str]) -> str:
    data = {"decks": decks, **{f"pay_{k}": v for k, v in pays.items()}}
    response = client.post(reverse("admin:games_table_rtp", args=[game]), data)
    assert response.status_code == 200
    return response.content.decode()


# --- live RTP ----------------------------------------------------------------


def test_it_shows_the_classic_presets_exact_rtp_live(op_client):
    html = live(op_client, "baccarat", 8, CLASSIC_PAYS)
    assert figure(html, "banker") == "98.94%"
    assert figure(html, "player") == "98.76%"
    assert figure(html, "tie") == "85.64%"
    assert 'hx-swap-oob="true"' in html  # each figure lands beside its input
    assert "rtp-warning" not in html


def test_it_shows_the_war_ante_edge_going_to_war_live(op_client):
    html = live(op_client, "war", 6, WAR_PAYS)
    assert figure(html, "ante") == "2.88%"
    assert "house edge 2.88% going to war" in html
    assert "3.70% surrendering" in html


def test_it_follows_the_typed_tie_and_deck_count(op_client):
    assert figure(live(op_client, "baccarat", 8, {**CLASSIC_PAYS, "tie": "8"}), "tie") == "76.12%"
    one_deck = live(op_client, "baccarat", 1, SOCIAL_PAYS)
    assert figure(one_deck, "banker") != "98.94%"  # a 1-deck shoe has other odds


def test_it_warns_at_100_percent_and_below_the_stake(op_client):
    html = live(op_client, "baccarat", 8, {**CLASSIC_PAYS, "player": "2.1", "banker_pair": "0.5"})
    assert 'data-testid="rtp-warning-player"' in html
    assert "RTP at or over 100%" in html
    assert 'data-testid="rtp-warning-banker_pair"' in html
    assert "returns less than the stake" in html
    assert 'data-testid="rtp-warning-banker"' not in html
    war = live(op_client, "war", 6, {**WAR_PAYS, "ante": "0.9"})
    assert 'data-testid="rtp-warning-ante"' in war
    # The tie-in-war bonus is an extra multiple: 0 is normal there.
    assert 'data-testid="rtp-warning-war_tie_bonus"' not in war


def test_it_explains_bad_input_instead_of_failing(op_client):
    html = live(op_client, "baccarat", 9, CLASSIC_PAYS)
    assert "Decks must be a whole number from 1 to 8." in html
    html = live(op_client, "baccarat", 8, {**CLASSIC_PAYS, "tie": "abc"})
    assert "Enter a multiplier." in html
    assert figure(html, "banker") == "98.94%"


def test_it_computes_the_live_figures_fresh_in_under_200_ms():
    _baccarat_rtp.cache_clear()  # no remembered answer: the exact odds are enumerated
    # CPU time of this process: the load of other processes (a second test
    # worker, a benchmark) does not count against the enumeration.
    started = time.process_time()
    figures = live_paytable(game="baccarat", decks="7", pays=CLASSIC_PAYS).figures
    assert time.process_time() - started < 0.2
    assert len(figures) == 5


def test_it_shows_the_figures_beside_each_multiplier_on_the_table_page(op_client):
    response = op_client.get(change_url(table("baccarat-classic")))
    html = response.content.decode()
    assert figure(html, "tie") == "85.64%"
    assert 'name="pay_tie"' in html
    assert 'hx-trigger="input changed delay:300ms"' in html
    assert 'data-testid="live-rtp"' in html
    assert "Start from preset" in html


# --- saving and versions -------------------------------------------------------


def test_it_makes_a_new_version_and_an_audit_entry_when_the_paytable_changes(op_client, operator):
    classic = table("baccarat-classic")
    old = classic.current_version
    data = form_data(op_client, change_url(classic))
    data["pay_tie"] = "8"
    response = op_client.post(change_url(classic), data)
    assert response.status_code == 302
    classic.refresh_from_db()
    assert classic.pays["tie"] == "8"
    assert classic.pays["banker"] == "1.95"  # untouched multipliers keep their text
    version = classic.current_version
    assert version.number == old.number + 1
    assert version.pays["tie"] == "8"
    assert version.created_by == operator
    old.refresh_from_db()
    assert old.pays["tie"] == "9"  # the old version is never rewritten
    entry = AuditEntry.objects.filter(object_type="table", object_id=str(classic.pk)).first()
    assert entry.actor == operator
    assert entry.action == "table.change"
    assert entry.before["pays"]["tie"] == "9"
    assert entry.after["pays"]["tie"] == "8"


@pytest.mark.parametrize(
    ("slug", "field", "value", "why"),
    [
        ("baccarat-social", "pay_player", "100", "RTP at or over 100%"),
        ("baccarat-social", "pay_player_pair", "30", "RTP at or over 100%"),
        ("baccarat-classic", "pay_tie", "11", "RTP at or over 100%"),
        ("baccarat-social", "pay_player", "0", "returns less than the stake"),
        ("baccarat-classic", "pay_banker", "0.95", "returns less than the stake"),
        ("casino-war", "pay_ante", "50", "RTP at or over 100%"),
        ("casino-war", "pay_raise", "50", "RTP at or over 100%"),
    ],
)
def test_a_paytable_the_house_loses_on_or_a_winner_loses_on_is_refused(
    op_client, make_player, slug, field, value, why
):
    """An operator who raised PLAYER to x100 and bet 1 chip got 100 back: a
    paytable with a bet over 100% RTP mints chips for whoever plays it. One
    whose win returns less than the stake takes a winner's chips. Neither
    saves: the form says why, the table and its version stay as they were."""
    t = table(slug)
    before = (t.pays, t.current_version.pk)
    data = form_data(op_client, change_url(t))
    data[field] = value
    response = op_client.post(change_url(t), data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors[field]
    assert any(why in e and "No table may offer it." in e for e in errors), errors
    t.refresh_from_db()
    assert (t.pays, t.current_version.pk) == before


def test_the_live_panel_explains_a_multiplier_too_long_to_be_one(op_client):
    """A 35-digit multiplier typed into the form answered 500 (with a debug
    page where debug was on); it is explained like any other bad value."""
    data = {"decks": "8", "pay_player": "9" * 35, "pay_banker": "1.95", "pay_tie": "9"}
    data.update(pay_player_pair="12", pay_banker_pair="12")
    response = op_client.post(
        reverse("admin:games_table_rtp", args=["baccarat"]), data, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    assert "Enter a multiplier." in response.content.decode()


def test_it_saves_limits_and_max_bet_typed_in_chips_as_units(op_client):
    classic = table("baccarat-classic")
    data = form_data(op_client, change_url(classic))
    assert data["max_bet"] == 25_000  # shown in chips
    data.update(limit_tie_min=5, limit_tie_max=1_500, max_bet=25_500, squeeze_threshold=4_000)
    assert op_client.post(change_url(classic), data).status_code == 302
    classic.refresh_from_db()
    assert classic.limits["tie"] == {"min": 500, "max": 150_000}
    assert classic.max_bet == 2_550_000
    assert classic.squeeze_threshold == 400_000
    assert classic.current_version.limits["tie"] == {"min": 500, "max": 150_000}


@pytest.mark.parametrize(
    ("field", "typed"),
    [
        ("max_bet", "２５０００"),
        ("max_bet", "1e4"),
        ("limit_tie_max", "NaN"),
        ("pay_tie", "８"),
        ("pay_tie", "8e0"),
        ("decks", "８"),
        ("squeeze_threshold", "Infinity"),
    ],
)
def test_an_operator_typing_a_number_python_would_read_is_refused(op_client, field, typed):
    """Django's number fields take full-width digits and exponents through
    Python's Decimal and int; the table form takes ASCII digits only."""
    classic = table("baccarat-classic")
    versions = TableVersion.objects.filter(table=classic).count()
    data = form_data(op_client, change_url(classic))
    data[field] = typed
    response = op_client.post(change_url(classic), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors[field]
    assert TableVersion.objects.filter(table=classic).count() == versions


def test_it_refuses_a_max_bet_no_legal_slip_can_reach(op_client):
    """PLAYER or BANKER 20,000 + TIE 2,000 + two PAIRs 2,000 each: a round holds
    26,000 at most, so a MAX BET of 30,000 could never be reached."""
    classic = table("baccarat-classic")
    versions = TableVersion.objects.filter(table=classic).count()
    data = form_data(op_client, change_url(classic))
    data.update(max_bet=30_000)
    response = op_client.post(change_url(classic), data)
    assert response.status_code == 200
    assert "a round holds at most 26,000 chips" in response.content.decode()
    classic.refresh_from_db()
    assert classic.max_bet == 2_500_000
    assert TableVersion.objects.filter(table=classic).count() == versions


def test_it_makes_no_version_when_only_the_name_changes(op_client):
    classic = table("baccarat-classic")
    versions = TableVersion.objects.filter(table=classic).count()
    data = form_data(op_client, change_url(classic))
    data["name"] = "Baccarat Classic VIP"
    assert op_client.post(change_url(classic), data).status_code == 302
    assert TableVersion.objects.filter(table=classic).count() == versions
    entry = AuditEntry.objects.filter(object_id=str(classic.pk)).first()
    assert (entry.before["name"], entry.after["name"]) == (
        "Baccarat Classic",
        "Baccarat Classic VIP",
    )


def test_it_refuses_a_max_under_the_min_and_changes_nothing(op_client):
    classic = table("baccarat-classic")
    versions = TableVersion.objects.filter(table=classic).count()
    data = form_data(op_client, change_url(classic))
    data.update(limit_player_min=100, limit_player_max=50, pay_tie="7")
    response = op_client.post(change_url(classic), data)
    assert response.status_code == 200
    assert "MAX must be at least MIN." in response.content.decode()
    classic.refresh_from_db()
    assert classic.pays["tie"] == "9"
    assert TableVersion.objects.filter(table=classic).count() == versions
    assert not AuditEntry.objects.exists()


def test_it_fills_blank_multipliers_from_the_chosen_preset(op_client):
    classic = table("baccarat-classic")
    data = form_data(op_client, change_url(classic))
    data.update(preset="social", pay_tie="", pay_player_pair="", pay_banker_pair="")
    assert op_client.post(change_url(classic), data).status_code == 302
    classic.refresh_from_db()
    assert classic.pays == SOCIAL_PAYS


def test_it_adds_a_table_starting_from_a_preset(op_client):
    url = reverse("admin:games_table_add") + "?preset=war"
    data = form_data(op_client, url)
    assert data["pay_tie_bet"] == Decimal("11")
    assert data["limit_ante_min"] == 5
    data.update(name="War High Limit", slug="war-high", position=9)
    response = op_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    new = table("war-high")
    assert new.game == "war"
    assert new.pays == WAR_PAYS
    assert new.current_version.number == 1
    assert AuditEntry.objects.filter(action="table.create", object_id=str(new.pk)).exists()


def test_it_shows_the_version_history_on_the_table_page(op_client):
    classic = table("baccarat-classic")
    data = form_data(op_client, change_url(classic))
    data["pay_tie"] = "8"
    op_client.post(change_url(classic), data)
    html = op_client.get(change_url(classic)).content.decode()
    assert html.count('data-testid="version-row"') == 2
    assert "TIE x8" in html and "TIE x9" in html
    listing = op_client.get(reverse("admin:games_tableversion_changelist"))
    assert listing.status_code == 200
    version = classic.versions.order_by("number").first()
    page = op_client.get(reverse("admin:games_tableversion_change", args=[version.pk]))
    assert page.status_code == 200
    assert 'name="pays"' not in page.content.decode()  # read-only


def tie_then_war_win_seed(client_seed: str, nonce: int, decks: int) -> str:
    """A server seed whose shoe opens with a tie and whose war the player wins."""
    for i in range(5000):
        seed = hashlib.sha256(f"admin-war-{i}".encode()).hexdigest()
        shoe = derive_shoe(seed, client_seed, nonce, decks)
        if rank_value(shoe[0]) == rank_value(shoe[1]) and play_war(shoe, "war").result in (
            "war_win",
        ):
            return seed
    raise AssertionError("no seed found")


def open_war_round(user, war_table: Table) -> Round:
    war = pytest.importorskip("games.services.war")
    profile = user.profile
    profile.next_server_seed = tie_then_war_win_seed(
        profile.client_seed, profile.nonce, war_table.decks
    )
    profile.save(update_fields=["next_server_seed"])
    rnd = war.deal(user=user, table=war_table, ante=1_000, tie_bet=0, slip_key="tie-1")
    assert rnd.status == Round.Status.OPEN
    return rnd


def test_it_settles_an_open_war_round_under_the_version_it_started_with(op_client, make_player):
    war = pytest.importorskip("games.services.war")
    war_table = table("casino-war")
    player = make_player(chips=1_000)
    rnd = open_war_round(player, war_table)
    v1 = rnd.version
    data = form_data(op_client, change_url(war_table))
    data["pay_raise"] = "1"  # a won raise would only come back under version 2
    assert op_client.post(change_url(war_table), data).status_code == 302
    war_table.refresh_from_db()
    assert war_table.current_version != v1

    settled = war.decide(user=player, round_id=rnd.pk, decision="war")
    assert settled.version == v1
    assert settled.returns["raise"] == 2_000  # x2 from version 1, not x1
    assert settled.returns["ante"] == 1_000
    nxt = war.deal(user=player, table=war_table, ante=1_000, tie_bet=0, slip_key="next")
    assert nxt.version == war_table.current_version


# --- closing a table ---------------------------------------------------------------


def test_it_closes_tables_with_an_action_that_is_audited(op_client, operator):
    classic = table("baccarat-classic")
    response = op_client.post(
        reverse("admin:games_table_changelist"),
        {"action": "close_tables", "_selected_action": [classic.pk]},
    )
    assert response.status_code == 302
    classic.refresh_from_db()
    assert classic.enabled is False
    entry = AuditEntry.objects.get(object_id=str(classic.pk))
    assert (entry.before["enabled"], entry.after["enabled"], entry.actor) == (
        True,
        False,
        operator,
    )
    with pytest.raises(TableClosed):
        rounds.require_open(classic)


def test_a_closed_table_refuses_a_new_round_but_finishes_the_open_one(op_client, make_player):
    war_table = table("casino-war")
    player = make_player(chips=1_000)
    baccarat_player = make_player(chips=1_000)
    rnd = open_war_round(player, war_table)
    for t in (war_table, table("baccarat-classic")):
        data = form_data(op_client, change_url(t))
        data.pop("enabled", None)  # unticked: closed
        assert op_client.post(change_url(t), data).status_code == 302
        t.refresh_from_db()
        assert t.enabled is False
        with pytest.raises(TableClosed):
            rounds.require_open(t)

    war = pytest.importorskip("games.services.war")
    assert war.decide(user=player, round_id=rnd.pk, decision="war").status == "settled"
    with pytest.raises(TableClosed):
        war.deal(user=player, table=war_table, ante=1_000, tie_bet=0, slip_key="after")
    baccarat = pytest.importorskip("games.services.baccarat")
    with pytest.raises(TableClosed):
        baccarat.place_bet(
            user=baccarat_player,
            table=table("baccarat-classic"),
            bets={"banker": 1_000},
            slip_key="closed",
        )
    assert not Round.objects.filter(player=baccarat_player).exists()


# --- wallet adjustments and the ledger --------------------------------------------------


def adjust_url(*wallets: Wallet) -> str:
    return reverse("admin:games_wallet_adjust") + "?ids=" + ",".join(str(w.pk) for w in wallets)


def test_it_credits_a_player_with_a_ledger_row_and_an_audit_entry(op_client, operator, make_player):
    player = make_player(chips=100)
    wallet = player.wallet
    response = op_client.post(
        adjust_url(wallet),
        {"direction": "credit", "amount": "12.5", "reason": "goodwill for a lost round"},
    )
    assert response.status_code == 302
    wallet.refresh_from_db()
    assert wallet.balance == 10_000 + 1_250
    row = LedgerEntry.objects.filter(wallet=wallet).first()
    assert (row.kind, row.amount, row.actor, row.reason) == (
        "adjustment",
        1_250,
        operator,
        "goodwill for a lost round",
    )
    entry = AuditEntry.objects.get(action="wallet.adjust")
    assert entry.actor == operator
    assert entry.before == {"balance": 10_000}
    assert entry.after["balance"] == 11_250
    call_command("audit_ledger")  # raises CommandError when a wallet is off


def test_it_debits_several_players_or_none(op_client, make_player):
    rich = make_player(chips=100)
    poor = make_player(chips=5)
    rows = LedgerEntry.objects.count()
    response = op_client.post(
        adjust_url(rich.wallet, poor.wallet),
        {"direction": "debit", "amount": "10", "reason": "duplicate grant"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Cannot debit 10 chips from" in html
    assert "the balance is only 5 chips" in html
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(user=rich).balance == 10_000
    assert not AuditEntry.objects.exists()
    response = op_client.post(
        adjust_url(rich.wallet, poor.wallet),
        {"direction": "debit", "amount": "5", "reason": "duplicate grant"},
    )
    assert response.status_code == 302
    assert Wallet.objects.get(user=poor).balance == 0
    assert Wallet.objects.get(user=rich).balance == 9_500
    call_command("audit_ledger")


def test_it_needs_a_reason_and_a_positive_amount(op_client, make_player):
    player = make_player(chips=10)
    for data in (
        {"direction": "credit", "amount": "5", "reason": "   "},
        {"direction": "credit", "amount": "0", "reason": "x"},
        {"direction": "credit", "amount": "1.234", "reason": "x"},
        # Python's Decimal takes these; an amount is ASCII digits and one point.
        {"direction": "credit", "amount": "１０", "reason": "x"},
        {"direction": "credit", "amount": "1e3", "reason": "x"},
        {"direction": "credit", "amount": "1e999999999", "reason": "x"},
        {"direction": "credit", "amount": "NaN", "reason": "x"},
        {"direction": "debit", "amount": "-0", "reason": "x"},
    ):
        response = op_client.post(adjust_url(player.wallet), data)
        assert response.status_code == 400, data
        assert "errorlist" in response.content.decode()
    assert (
        not LedgerEntry.objects.filter(wallet=player.wallet, kind="adjustment")
        .exclude(reason="test setup")
        .exists()
    )


def test_it_offers_the_adjustment_as_an_action_on_wallets(op_client, make_player):
    player = make_player()
    response = op_client.post(
        reverse("admin:games_wallet_changelist"),
        {"action": "adjust_balances", "_selected_action": [player.wallet.pk]},
    )
    assert response.status_code == 302
    assert response["Location"] == adjust_url(player.wallet)
    page = op_client.get(response["Location"])
    assert player.username in page.content.decode()
    detail = op_client.get(reverse("admin:games_wallet_change", args=[player.wallet.pk]))
    assert 'data-testid="adjust-link"' in detail.content.decode()


def test_it_keeps_the_ledger_read_only(op_client, make_player):
    player = make_player()
    row = LedgerEntry.objects.filter(wallet=player.wallet).first()
    assert op_client.get(reverse("admin:games_ledgerentry_add")).status_code == 403
    delete = reverse("admin:games_ledgerentry_delete", args=[row.pk])
    assert op_client.post(delete, {"post": "yes"}).status_code == 403
    change = reverse("admin:games_ledgerentry_change", args=[row.pk])
    assert op_client.get(change).status_code == 200  # viewable
    assert op_client.post(change, {"amount": 1}).status_code == 403
    row.refresh_from_db()
    assert row.amount == 10_000 * 100
    listing = op_client.get(reverse("admin:games_ledgerentry_changelist"))
    assert "delete_selected" not in listing.content.decode()
    wallet_change = reverse("admin:games_wallet_change", args=[player.wallet.pk])
    assert op_client.post(wallet_change, {"balance": 1}).status_code == 403


# --- audit log ---------------------------------------------------------------------------


def test_it_lists_the_audit_log_read_only_with_filters(op_client, make_player):
    player = make_player()
    op_client.post(
        adjust_url(player.wallet), {"direction": "credit", "amount": "1", "reason": "test"}
    )
    classic = table("baccarat-classic")
    data = form_data(op_client, change_url(classic))
    data["pay_tie"] = "8"
    op_client.post(change_url(classic), data)
    url = reverse("admin:games_auditentry_changelist")
    html = op_client.get(url).content.decode()
    assert "Balance adjusted" in html and "Table changed" in html
    only_tables = op_client.get(url, {"object_type": "table"})
    assert list(only_tables.context["cl"].result_list.values_list("action", flat=True)) == [
        "table.change"
    ]
    entry = AuditEntry.objects.get(action="table.change")
    detail = op_client.get(reverse("admin:games_auditentry_change", args=[entry.pk]))
    assert detail.status_code == 200
    assert "&quot;9&quot;" in detail.content.decode()  # before → after of the tie multiplier
    assert op_client.get(reverse("admin:games_auditentry_add")).status_code == 403
    change = reverse("admin:games_auditentry_change", args=[entry.pk])
    assert op_client.post(change, {"action": "x"}).status_code == 403


# --- permissions -------------------------------------------------------------------------------


def test_view_only_staff_see_tables_but_cannot_change_them(db, client):
    viewer = staff_with("viewer", "view_table", "view_tableversion", "view_wallet")
    client.force_login(viewer)
    classic = table("baccarat-classic")
    page = client.get(change_url(classic))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="pay_tie"' not in html
    assert figure(html, "tie") == "85.64%"  # the odds are shown read-only
    response = client.post(change_url(classic), {"name": "hacked", "pay_tie": "50"})
    assert response.status_code == 403
    classic.refresh_from_db()
    assert classic.name == "Baccarat Classic" and classic.pays["tie"] == "9"
    assert client.get(reverse("admin:games_table_add")).status_code == 403
    closing = client.post(
        reverse("admin:games_table_changelist"),
        {"action": "close_tables", "_selected_action": [classic.pk]},
    )
    classic.refresh_from_db()
    assert classic.enabled is True
    assert closing.status_code in (200, 302, 403)


def test_view_only_staff_cannot_adjust_balances(client, make_player):
    viewer = staff_with("viewer", "view_wallet", "view_table")
    client.force_login(viewer)
    player = make_player()
    assert client.get(adjust_url(player.wallet)).status_code == 403
    response = client.post(
        adjust_url(player.wallet), {"direction": "credit", "amount": "100", "reason": "x"}
    )
    assert response.status_code == 403
    assert Wallet.objects.get(user=player).balance == 10_000 * 100
    listing = client.get(reverse("admin:games_wallet_changelist")).content.decode()
    assert "adjust_balances" not in listing
    detail = client.get(reverse("admin:games_wallet_change", args=[player.wallet.pk]))
    assert 'data-testid="adjust-link"' not in detail.content.decode()


def test_staff_with_the_change_permissions_can_edit_and_adjust(client, make_player):
    editor = staff_with("editor", "view_table", "change_table", "view_wallet", "change_wallet")
    client.force_login(editor)
    classic = table("baccarat-classic")
    data = form_data(client, change_url(classic))
    data["pay_tie"] = "8"
    assert client.post(change_url(classic), data).status_code == 302
    player = make_player()
    response = client.post(
        adjust_url(player.wallet), {"direction": "debit", "amount": "0.5", "reason": "fix"}
    )
    assert response.status_code == 302
    assert Wallet.objects.get(user=player).balance == 10_000 * 100 - 50


def test_players_cannot_reach_the_operator_endpoints(client, make_player):
    client.force_login(make_player())
    for url in (
        reverse("admin:games_dashboard"),
        reverse("admin:games_wallet_adjust"),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    response = client.post(reverse("admin:games_table_rtp", args=["baccarat"]), {"decks": 8})
    assert response.status_code == 302


# --- dashboard -----------------------------------------------------------------------------------


def test_it_links_the_dashboard_from_the_admin_index(op_client):
    html = op_client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:games_dashboard") in html


def test_the_dashboard_shows_takings_and_holds_per_table(op_client, make_player):
    baccarat = pytest.importorskip("games.services.baccarat")
    classic = table("baccarat-classic")
    players = [make_player(chips=1_000), make_player(chips=1_000)]
    for i, player in enumerate(players):
        for j in range(3):
            baccarat.place_bet(
                user=player, table=classic, bets={"banker": 1_000}, slip_key=f"d{i}-{j}"
            )
    response = op_client.get(reverse("admin:games_dashboard"))
    assert response.status_code == 200
    html = response.content.decode()
    row = re.search(r'data-testid="dashboard-baccarat-classic">(.*?)</tr>', html, re.S).group(1)
    returned = sum(r.total_return for r in Round.objects.filter(table=classic))
    assert re.search(r'data-col="rounds">6<', row)
    assert re.search(r'data-col="bet">60<', row)
    assert f'data-col="returned">{returned // 100:,}' in row
    assert re.search(r'data-col="theoretical">1.06%<', row)  # banker only: 1 - 98.94%
    assert re.search(r'data-col="players">2<', row)


def test_admin_pages_carry_the_site_icon(op_client):
    """The browser asks every page for an icon; the admin names the site's own."""
    for url in ("/admin/", "/admin/games/table/"):
        response = op_client.get(url)
        assert response.status_code == 200
        assert b'rel="icon" href="/static/favicon.svg"' in response.content


def test_it_saves_the_classic_table_with_its_cent_chips_and_limits(op_client):
    """The Classic table takes 0.10 bets: its form shows and keeps them."""
    classic = table("baccarat-classic")
    data = form_data(op_client, change_url(classic))
    chips = [0.1, 0.5, 1, 5, 25, 100, 500, 1000, 5000, 10000]
    assert data["chips"] == "0.1, 0.5, 1, 5, 25, 100, 500, 1000, 5000, 10000"
    data["limit_player_min"] = "0.2"
    assert op_client.post(change_url(classic), data).status_code == 302
    classic.refresh_from_db()
    assert classic.chips == chips
    assert classic.limits["player"]["min"] == 20
    for typed, shown in (("0.1, 0.005", "0.005"), ("1, 1e3", "1e3"), ("５, 10", "５")):
        data["chips"] = typed
        refused = op_client.post(change_url(classic), data, HTTP_ACCEPT_LANGUAGE="en")
        assert f"{shown} is not" in refused.content.decode()
        classic.refresh_from_db()
        assert classic.chips == chips


def test_it_refuses_more_chips_than_a_rack_holds(op_client):
    """Twelve chip values at most (one colour each); the table keeps its own."""
    classic = table("baccarat-classic")
    before = list(classic.chips)
    data = form_data(op_client, change_url(classic))
    data["chips"] = ", ".join(str(n) for n in range(1, 14))
    refused = op_client.post(change_url(classic), data, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 200
    assert "at most 12 chip values; 13 were given" in refused.content.decode()
    classic.refresh_from_db()
    assert classic.chips == before
    # The same values typed twice count once.
    data["chips"] = ", ".join(str(n) for n in [*range(1, 13), 12, 1])
    assert op_client.post(change_url(classic), data).status_code == 302
    classic.refresh_from_db()
    assert classic.chips == list(range(1, 13))


def test_the_next_bet_after_a_paytable_change_is_played_under_the_new_version(
    op_client, make_player
):
    # A round before the change: this process has read the table and its version.
    classic = table("baccarat-classic")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_player(chips=1_000))
    bet = reverse("baccarat_bet", args=[classic.slug])
    htmx = {"HTTP_HX_REQUEST": "true"}
    shown = shown_version(classic.slug)
    client.post(bet, {"slip_key": "before", "tie": "10", "table_version": shown}, **htmx)
    before = Round.objects.get(slip_key="before")
    assert before.version_id == classic.current_version_id
    data = form_data(op_client, change_url(classic))
    data["pay_tie"] = "8"
    assert op_client.post(change_url(classic), data).status_code == 302
    classic.refresh_from_db()
    # The page shown before the change: refused, with the new paytable to bet on.
    stale = client.post(bet, {"slip_key": "after", "tie": "10", "table_version": shown}, **htmx)
    assert "paytable or limits changed" in stale.content.decode()
    assert not Round.objects.filter(slip_key="after").exists()
    shown = shown_version(classic.slug)
    client.post(bet, {"slip_key": "after", "tie": "10", "table_version": shown}, **htmx)
    after = Round.objects.get(slip_key="after")
    assert after.version_id == classic.current_version_id != before.version_id
    assert after.version.pays["tie"] == "8"
    if after.winner == "tie":
        assert after.returns["tie"] == 10 * 100 * 8
