"""Demo mode over HTTP: a visitor starts a demo with 10,000 demo chips, sees
DEMO on every screen, refills, cannot use what needs a real account, signs
up into a real account with the normal grant, and lands on a new-demo page
when the demo's session is gone."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse

from games.middleware import DEMO_COOKIE
from games.models import LedgerEntry, Profile, Table, Wallet
from games.services import baccarat as baccarat_service
from games.services.demo import DEMO_UNITS
from games.services.wallet import Posting, ledger_mismatches, post

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TABLE = "/baccarat/baccarat-classic/"


@pytest.fixture
def visitor():
    return Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="203.0.113.7")


def start_demo(client: Client, next_url: str = ""):
    response = client.post(reverse("demo_start"), {"next": next_url} if next_url else {})
    assert response.status_code == 302
    return get_user_model().objects.get(pk=client.session["_auth_user_id"])


def test_it_shows_a_visitor_the_front_page_with_play_demo(visitor):
    page = visitor.get("/").content.decode()
    assert 'data-testid="play-demo"' in page
    assert reverse("fair") in page
    assert 'data-testid="demo-marker"' not in page


def test_it_starts_a_demo_signed_in_with_10000_demo_chips(visitor):
    response = visitor.post(reverse("demo_start"))
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert response.cookies[DEMO_COOKIE].value == "1"
    user = get_user_model().objects.get(pk=visitor.session["_auth_user_id"])
    assert user.profile.demo and not user.has_usable_password()
    assert user.wallet.balance == DEMO_UNITS == 1_000_000
    assert list(user.wallet.entries.values_list("kind", "amount")) == [("grant", 1_000_000)]
    lobby = visitor.get("/").content.decode()
    assert 'data-testid="demo-marker"' in lobby and "DEMO" in lobby
    assert 'data-testid="lobby-balance">10,000<' in lobby


def test_play_demo_from_a_rules_page_goes_to_that_table(visitor):
    rules = visitor.get(reverse("war_rules", args=["casino-war"])).content.decode()
    assert 'data-testid="rules-play-demo"' in rules
    response = visitor.post(reverse("demo_start"), {"next": "/war/casino-war/"})
    assert response["Location"] == "/war/casino-war/"
    page = visitor.get("/war/casino-war/").content.decode()
    assert 'data-testid="demo-marker"' in page


def test_a_next_address_off_the_site_is_not_followed(visitor):
    response = visitor.post(reverse("demo_start"), {"next": "https://evil.example/"})
    assert response["Location"] == reverse("lobby")


def test_every_screen_shows_the_demo_marker(visitor):
    start_demo(visitor)
    for url in [
        "/",
        TABLE,
        "/war/casino-war/",
        reverse("baccarat_rules", args=["baccarat-classic"]),
        reverse("history"),
        reverse("account"),
        reverse("fair"),
    ]:
        assert 'data-testid="demo-marker"' in visitor.get(url).content.decode(), url


def test_a_real_player_sees_no_demo_marker_and_cannot_start_a_demo(client, make_player):
    player = make_player()
    client.force_login(player)
    assert 'data-testid="demo-marker"' not in client.get("/").content.decode()
    users = get_user_model().objects.count()
    response = client.post(reverse("demo_start"), follow=True)
    assert "demo mode is for visitors" in response.content.decode()
    assert get_user_model().objects.count() == users
    assert client.session["_auth_user_id"] == str(player.pk)


def test_refill_sets_the_demo_wallet_back_to_10000_with_a_ledger_row(visitor):
    user = start_demo(visitor)
    table = Table.objects.get(slug="baccarat-classic")
    # A TIE bet never pushes: it wins 8 to 1 or loses, so the wallet moves.
    baccarat_service.place_bet(user=user, table=table, bets={"tie": 10_000}, slip_key="a")
    user.wallet.refresh_from_db()
    spent = user.wallet.balance
    assert spent != DEMO_UNITS
    response = visitor.post(reverse("demo_refill"), {"next": TABLE}, follow=True)
    assert response.redirect_chain[-1][0] == TABLE
    assert "your demo wallet holds 10,000 demo chips" in response.content.decode()
    user.wallet.refresh_from_db()
    assert user.wallet.balance == DEMO_UNITS
    last = user.wallet.entries.order_by("-id").first()
    assert (last.kind, last.amount, last.balance_after) == (
        "adjustment",
        DEMO_UNITS - spent,
        DEMO_UNITS,
    )
    assert ledger_mismatches() == []


def test_refill_takes_winnings_above_10000_back_down(visitor):
    user = start_demo(visitor)
    with transaction.atomic():
        post(
            wallet_id=user.wallet.pk,
            postings=[Posting(LedgerEntry.Kind.PAYOUT, 12_345, "a win")],
        )
    visitor.post(reverse("demo_refill"))
    user.wallet.refresh_from_db()
    assert user.wallet.balance == DEMO_UNITS
    assert ledger_mismatches() == []


def test_a_real_player_cannot_refill(client, make_player):
    player = make_player(chips=5)
    client.force_login(player)
    rows = LedgerEntry.objects.count()
    response = client.post(reverse("demo_refill"), follow=True)
    assert "Refills are for demo accounts only." in response.content.decode()
    player.wallet.refresh_from_db()
    assert player.wallet.balance == 500
    assert LedgerEntry.objects.count() == rows


@override_settings(CASINO_DEMO_STARTS=2)
def test_demo_starts_are_throttled_per_address():
    cache.clear()
    users = get_user_model().objects.count()
    for _ in range(2):
        assert Client(REMOTE_ADDR="198.51.100.9").post(reverse("demo_start")).status_code == 302
    refused = Client(REMOTE_ADDR="198.51.100.9", HTTP_ACCEPT_LANGUAGE="en").post(
        reverse("demo_start")
    )
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many demos were started from your address" in refused.content.decode()
    assert get_user_model().objects.count() == users + 2
    # Another address has its own budget.
    assert Client(REMOTE_ADDR="198.51.100.10").post(reverse("demo_start")).status_code == 302
    cache.clear()


def test_the_account_page_shows_each_unavailable_feature_with_its_reason(visitor):
    start_demo(visitor)
    page = visitor.get(reverse("account")).content.decode()
    for feature, reason in [
        ("max_bet", "a personal max bet is confirmed with a PIN"),
        ("pin", "a PIN is set with an account password"),
        ("csv", "demo rounds are deleted a day after your last visit"),
        ("topup", "use Refill to get your demo chips back"),
        ("operator", "operator pages are for the casino"),
    ]:
        assert f'data-testid="demo-unavailable-{feature}"' in page
        assert reason in page.replace("&#x27;", "'")
        assert f'data-testid="demo-signup-{feature}"' in page
    assert 'data-testid="pin-form"' not in page
    assert 'data-testid="max-bet-form"' not in page


def test_history_and_war_menu_show_the_disabled_controls(visitor):
    start_demo(visitor)
    history = visitor.get(reverse("history")).content.decode()
    assert 'data-testid="demo-unavailable-csv"' in history
    assert 'data-testid="history-export"' not in history
    menu = visitor.get(reverse("war_menu_bet_options", args=["casino-war"]), **HTMX)
    assert 'data-testid="demo-unavailable-max_bet"' in menu.content.decode()
    assert 'data-testid="menu-max-bet-form"' not in menu.content.decode()


def test_demo_posts_to_real_account_features_are_refused_and_change_nothing(visitor):
    user = start_demo(visitor)
    with transaction.atomic():
        post(
            wallet_id=user.wallet.pk,
            postings=[Posting(LedgerEntry.Kind.BET, -DEMO_UNITS, "all in")],
        )
    before = LedgerEntry.objects.count()
    pin = visitor.post(
        reverse("account_pin"),
        {"password": "x", "new_pin": "1234", "confirm_pin": "1234"},
        follow=True,
    )
    assert "a PIN is set with an account password" in pin.content.decode().replace("&#x27;", "'")
    max_bet = visitor.post(reverse("account_max_bet"), {"max_bet": "5", "pin": "1234"}, follow=True)
    assert "a personal max bet is confirmed with a PIN" in max_bet.content.decode()
    menu = visitor.post(
        reverse("war_menu_max_bet", args=["casino-war"]), {"max_bet": "5", "pin": "1234"}, **HTMX
    )
    assert menu.status_code == 403
    assert "a personal max bet is confirmed with a PIN" in menu.content.decode()
    topup = visitor.post(reverse("topup"), follow=True)
    assert "use Refill to get your demo chips back" in topup.content.decode()
    export = visitor.get(reverse("history_export"), follow=True)
    assert export.redirect_chain[-1][0] == reverse("history")
    assert "demo rounds are deleted a day after your last visit" in export.content.decode()
    profile = Profile.objects.get(user=user)
    assert (profile.pin_hash, profile.personal_max_bet) == ("", None)
    assert LedgerEntry.objects.count() == before
    assert Wallet.objects.get(user=user).balance == 0


def test_operator_pages_stay_closed_to_a_demo(visitor):
    start_demo(visitor)
    assert visitor.get(reverse("history_player_lookup")).status_code == 404
    admin = visitor.get(reverse("admin:index"))
    assert admin.status_code == 302 and "/admin/login/" in admin["Location"]


def test_signing_up_from_a_demo_starts_a_real_account_with_the_normal_grant(visitor, settings):
    demo = start_demo(visitor)
    page = visitor.get(reverse("signup")).content.decode()
    assert 'data-testid="signup-from-demo"' in page
    response = visitor.post(
        reverse("signup"),
        {"username": "newplayer", "password1": "pw-Secret-123", "password2": "pw-Secret-123"},
    )
    assert response.status_code == 302
    assert response.cookies[DEMO_COOKIE].value == ""  # the demo cookie goes
    user = get_user_model().objects.get(username="newplayer")
    assert visitor.session["_auth_user_id"] == str(user.pk)
    assert not user.profile.demo
    assert user.wallet.balance == settings.CASINO_STARTING_CHIPS * 100
    assert list(user.wallet.entries.values_list("kind", flat=True)) == ["grant"]
    lobby = visitor.get("/").content.decode()
    assert 'data-testid="demo-marker"' not in lobby
    # The demo is left behind as it was, for the clean-up.
    assert Wallet.objects.get(user=demo).balance == DEMO_UNITS


def test_an_expired_demo_gets_a_clear_message_and_a_new_demo(visitor):
    old = start_demo(visitor)
    visitor.session.flush()  # the session ended (idle hour, or the demo was cleaned up)
    visitor.cookies.pop("sessionid", None)
    response = visitor.get(TABLE)
    assert response.status_code == 302
    assert (
        response["Location"] == f"{reverse('demo_expired')}?next=%2Fbaccarat%2Fbaccarat-classic%2F"
    )
    page = visitor.get(response["Location"]).content.decode()
    assert "Your demo has ended" in page and 'data-testid="new-demo"' in page
    again = visitor.post(reverse("demo_start"), {"next": TABLE})
    assert again["Location"] == TABLE
    new = get_user_model().objects.get(pk=visitor.session["_auth_user_id"])
    assert new.pk != old.pk and new.profile.demo
    assert visitor.get(TABLE).status_code == 200


def test_an_expired_demo_betting_from_an_open_table_is_sent_to_the_new_demo_page(visitor):
    start_demo(visitor)
    visitor.cookies.pop("sessionid", None)
    response = visitor.post(
        reverse("baccarat_bet", args=["baccarat-classic"]),
        {"slip_key": "k", "player": "10"},
        HTTP_HX_CURRENT_URL="http://testserver" + TABLE,
        **HTMX,
    )
    assert response.status_code == 204
    assert (
        response["HX-Redirect"]
        == f"{reverse('demo_expired')}?next=%2Fbaccarat%2Fbaccarat-classic%2F"
    )
    # The table's own move to the login page when its socket closes goes there too.
    login = visitor.get(f"{reverse('login')}?next={TABLE}")
    assert login["Location"].startswith(reverse("demo_expired"))


def test_without_the_demo_cookie_a_visitor_still_goes_to_the_login_page(client):
    response = client.get(TABLE)
    assert response["Location"].startswith(reverse("login"))
    assert client.get(reverse("login") + "?next=/").status_code == 200


def test_logging_out_of_a_demo_forgets_it(visitor):
    start_demo(visitor)
    response = visitor.post(reverse("logout"))
    assert response.cookies[DEMO_COOKIE].value == ""


def test_a_demo_cannot_reach_a_real_players_round_or_history(visitor, make_player):
    player = make_player()
    table = Table.objects.get(slug="baccarat-classic")
    theirs = baccarat_service.place_bet(
        user=player, table=table, bets={"banker": 1_000}, slip_key="r"
    )
    start_demo(visitor)
    assert visitor.get(reverse("history_round", args=[theirs.pk])).status_code == 404
    assert visitor.get(reverse("history_round_verify", args=[theirs.pk])).status_code == 404
    assert visitor.get(reverse("history_player", args=[player.pk])).status_code == 404
    assert f"/history/round/{theirs.pk}/" not in visitor.get(reverse("history")).content.decode()


def test_a_real_bet_takes_only_the_real_wallet(visitor, make_player):
    demo = start_demo(visitor)
    player = make_player()
    table = Table.objects.get(slug="baccarat-classic")
    baccarat_service.place_bet(user=player, table=table, bets={"player": 1_000}, slip_key="x")
    assert Wallet.objects.get(user=demo).balance == DEMO_UNITS
    assert LedgerEntry.objects.filter(wallet__user=demo).count() == 1


def test_rules_and_fairness_pages_are_public(client, make_player):
    for url in [
        reverse("baccarat_rules", args=["baccarat-classic"]),
        reverse("baccarat_rules", args=["baccarat-social"]),
        reverse("war_rules", args=["casino-war"]),
        reverse("fair"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
    war = client.get(reverse("war_rules", args=["casino-war"])).content.decode()
    assert reverse("account") not in war  # no personal max bet for a visitor
    player = make_player()
    Profile.objects.filter(user=player).update(personal_max_bet=2_500)
    client.force_login(player)
    rules = client.get(reverse("baccarat_rules", args=["baccarat-classic"])).content.decode()
    assert "your personal limit" in rules
    assert 'data-testid="rules-play-demo"' not in rules
