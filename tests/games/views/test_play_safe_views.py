"""The play-safe page, the tables' refusals and the operator console, as a
player's script, a staff member and a superuser would try them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import AuditEntry, LimitRefusal, LossLimit, PlayBreak, Profile, Round
from games.selectors import play_safe as reads
from games.services import bets, play_safe, staff
from tests.tables import shown_version

pytestmark = pytest.mark.django_db

CHIP = 100
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def player(make_player):
    return make_player(chips=1_000)


@pytest.fixture
def tab(client, player):
    client.force_login(player)
    return client


def test_it_shows_the_page_with_every_form(tab):
    body = tab.get(reverse("play_safe")).content.decode()
    for testid in (
        "play-safe",
        "loss-limit-form",
        "reality-check-form",
        "timeout-form",
        "exclusion-form",
    ):
        assert f'data-testid="{testid}"' in body


def test_the_header_shows_time_played_and_the_sessions_net(tab):
    body = tab.get(reverse("lobby")).content.decode()
    assert 'data-testid="session-time"' in body
    assert 'data-testid="session-net"' in body
    assert 'data-testid="play-safe-link"' in body


def test_the_page_shows_the_sessions_time_and_net(tab, player):
    Profile.objects.filter(user=player).update(
        session_started_at=timezone.now() - dt.timedelta(minutes=12)
    )
    body = tab.get(reverse("play_safe")).content.decode()
    assert "This session: 12 min played, net 0 chips." in body


def test_it_sets_a_limit_and_shows_a_raise_as_pending(tab, player):
    tab.post(reverse("play_safe_loss_limit"), {"period": "day", "amount": "50"})
    response = tab.post(reverse("play_safe_loss_limit"), {"period": "day", "amount": "500"})
    assert response.status_code == 302
    body = tab.get(reverse("play_safe")).content.decode()
    assert 'data-testid="loss-limit-pending-day"' in body
    assert reads.limits_in_force(player, timezone.now())["day"] == 50 * CHIP


@pytest.mark.parametrize("amount", ["-5", "1e3", "５０", "abc"])
def test_it_refuses_a_limit_that_is_not_a_number_of_chips(tab, player, amount):
    response = tab.post(reverse("play_safe_loss_limit"), {"period": "day", "amount": amount})
    assert response.status_code == 400
    assert not LossLimit.objects.filter(user=player).exists()


def test_a_script_betting_over_the_limit_is_refused_at_both_tables(tab, player):
    play_safe.set_loss_limit(user=player, period="day", amount=5 * CHIP)
    war = tab.post(
        reverse("war_deal", args=["casino-war"]), {"ante": "10", "slip_key": "s1"}, **HTMX
    )
    baccarat = tab.post(
        reverse("baccarat_bet", args=["baccarat-classic"]),
        {"player": "10", "slip_key": "s2", "table_version": shown_version("baccarat-classic")},
        **HTMX,
    )
    for response in (war, baccarat):
        body = response.content.decode()
        assert 'data-testid="limit-refusal"' in body
        assert "daily loss limit of 5 chips" in body
    assert not Round.objects.filter(player=player).exists()
    assert LimitRefusal.objects.filter(user=player).count() == 2


def test_a_table_says_before_any_bet_when_the_loss_limit_leaves_too_little(tab, player):
    """A daily limit of 8 leaves 8 chips: War's smallest round (an ante of 5
    and its raise) is 10, so War says so on entry, with when it resets;
    Classic's smallest bet (0.10) still fits, so it says nothing until 0."""
    play_safe.set_loss_limit(user=player, period="day", amount=8 * CHIP)
    war = tab.get(reverse("war_table", args=["casino-war"])).content.decode()
    classic = tab.get(reverse("baccarat_table", args=["baccarat-classic"])).content.decode()
    assert 'data-testid="loss-closed"' in war
    assert "daily loss limit of 8 chips leaves 8 chips" in war and "resets at" in war
    assert 'data-testid="loss-closed"' not in classic

    play_safe.set_loss_limit(user=player, period="day", amount=0)  # lowered: at once
    for slug in ("baccarat-classic", "baccarat-live"):
        page = tab.get(reverse("baccarat_table", args=[slug])).content.decode()
        assert "You have reached your daily loss limit of 0 chips" in page, slug


def test_a_player_cannot_shorten_a_self_exclusion_by_post(make_player):
    player = make_player()
    play_safe.take_break(user=player, length="1y")
    # A new session (the old ones ended): force_login skips the login form's check.
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(player)
    ends = PlayBreak.objects.get(user=player).ends_at
    response = client.post(reverse("play_safe_timeout"), {"length": "24h", "confirm": "on"})
    assert response.status_code == 400
    assert "cannot be shortened" in response.content.decode()
    assert PlayBreak.objects.filter(user=player).count() == 1
    assert reads.active_break(player).ends_at == ends


def test_taking_a_time_out_logs_the_player_out_and_the_login_shows_only_the_end(tab, player):
    response = tab.post(reverse("play_safe_timeout"), {"length": "1w", "confirm": "on"})
    assert response.status_code == 200
    assert 'data-testid="break-taken"' in response.content.decode()
    assert tab.get(reverse("play_safe")).status_code == 302  # to the login page

    login = Client(HTTP_ACCEPT_LANGUAGE="en").post(
        reverse("login"), {"username": player.username, "password": "pw-Secret-123"}
    )
    assert "time-out until" in login.content.decode()


def test_a_break_needs_its_confirmation(tab, player):
    response = tab.post(reverse("play_safe_exclusion"), {"length": "5y"})
    assert response.status_code == 400
    assert not PlayBreak.objects.filter(user=player).exists()


def test_an_unknown_length_changes_nothing(tab, player):
    response = tab.post(reverse("play_safe_exclusion"), {"length": "1d", "confirm": "on"})
    assert response.status_code == 400
    assert not PlayBreak.objects.filter(user=player).exists()


def test_the_reality_check_answer_lets_the_next_round_start(tab, player):
    Profile.objects.filter(user=player).update(
        reality_check_minutes=15, reality_due_at=timezone.now() - dt.timedelta(minutes=1)
    )
    status = tab.get(reverse("play_safe_reality_status")).json()
    assert status["due"] is True
    refused = tab.post(
        reverse("war_deal", args=["casino-war"]), {"ante": "1", "slip_key": "r1"}, **HTMX
    )
    assert 'data-code="reality_check"' in refused.content.decode()

    answer = tab.post(reverse("play_safe_reality_answer"), {"choice": "history"})
    assert answer.headers["Location"] == reverse("history")
    assert tab.get(reverse("play_safe_reality_status")).json()["due"] is False
    tab.post(reverse("war_deal", args=["casino-war"]), {"ante": "1", "slip_key": "r2"}, **HTMX)
    assert Round.objects.filter(player=player).count() == 1


@pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example/", "/\\evil.example/"])
def test_the_reality_check_answer_never_leaves_the_site(tab, back):
    answer = tab.post(reverse("play_safe_reality_answer"), {"choice": "keep", "next": back})
    assert answer.headers["Location"] == reverse("lobby")


def test_the_reality_check_keeps_the_player_at_the_table(tab):
    table = reverse("war_table", args=["casino-war"])
    answer = tab.post(reverse("play_safe_reality_answer"), {"choice": "keep", "next": table})
    assert answer.headers["Location"] == table


def test_the_reality_check_can_log_out(tab):
    answer = tab.post(reverse("play_safe_reality_answer"), {"choice": "logout"})
    assert answer.headers["Location"] == reverse("login")
    assert "_auth_user_id" not in tab.session


def test_the_statement_lists_the_month_and_downloads_as_csv(tab, player):
    tab.post(reverse("war_deal", args=["casino-war"]), {"ante": "3", "slip_key": "m"}, **HTMX)
    rnd = Round.objects.get(player=player)
    month = timezone.now().strftime("%Y-%m")
    page = tab.get(reverse("play_safe_statement")).content.decode()
    assert f'data-testid="statement-{month}"' in page
    csv = tab.get(reverse("play_safe_statement_csv")).content.decode().splitlines()
    assert csv[0] == "month,rounds,staked,returned,net"
    net = (rnd.total_return - rnd.total_bet) / CHIP
    assert csv[1] == (
        f"{month},1,{rnd.total_bet / CHIP:.2f},{rnd.total_return / CHIP:.2f},{net:.2f}"
    )


def test_the_time_zone_must_be_a_real_zone(tab, player):
    assert tab.post(reverse("play_safe_zone"), {"time_zone": "Mars/Olympus"}).status_code == 400
    tab.post(reverse("play_safe_zone"), {"time_zone": "Asia/Tokyo"})
    assert Profile.objects.get(user=player).time_zone == "Asia/Tokyo"
    entry = AuditEntry.objects.get(action="play_safe.time_zone")
    assert (entry.before, entry.after) == ({"zone": "UTC"}, {"zone": "Asia/Tokyo"})


# ------------------------------------------------------------------ the operator


@pytest.fixture
def superuser_client():
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(User.objects.create_superuser("root", "root@example.com", None))
    return client


def test_the_admin_lists_breaks_and_limits(superuser_client, make_player):
    player = make_player()
    play_safe.take_break(user=player, length="6m")
    play_safe.set_loss_limit(user=make_player(), period="week", amount=40 * CHIP)
    breaks = superuser_client.get(reverse("admin:games_playbreak_changelist"))
    assert breaks.status_code == 200
    assert player.username in breaks.content.decode()
    assert "6 months" in breaks.content.decode()
    assert superuser_client.get(reverse("admin:games_losslimit_changelist")).status_code == 200


def test_no_superuser_can_end_or_shorten_a_break_in_the_admin(superuser_client, make_player):
    player = make_player()
    pause = play_safe.take_break(user=player, length="5y")
    change = reverse("admin:games_playbreak_change", args=[pause.pk])
    page = superuser_client.get(change).content.decode()
    assert 'name="ends_at' not in page  # shown, not editable
    crafted = superuser_client.post(
        change, {"user": player.pk, "kind": "timeout", "length": "24h",
                 "starts_at_0": "2020-01-01", "starts_at_1": "00:00",
                 "ends_at_0": "2020-01-02", "ends_at_1": "00:00"},
    )  # fmt: skip
    assert crafted.status_code == 403
    delete = superuser_client.post(
        reverse("admin:games_playbreak_delete", args=[pause.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    bulk = superuser_client.post(
        reverse("admin:games_playbreak_changelist"),
        {"action": "delete_selected", "_selected_action": [pause.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert PlayBreak.objects.get(pk=pause.pk).ends_at == pause.ends_at
    assert reads.active_break(player) is not None


def test_no_superuser_can_lift_a_loss_limit_in_the_admin(superuser_client, make_player):
    player = make_player()
    row = play_safe.set_loss_limit(user=player, period="day", amount=10 * CHIP)
    crafted = superuser_client.post(
        reverse("admin:games_losslimit_change", args=[row.pk]), {"amount": ""}
    )
    assert crafted.status_code == 403
    assert LossLimit.objects.get(pk=row.pk).amount == 10 * CHIP


def test_the_report_counts_refusals_per_day(superuser_client, make_player):
    player = make_player()
    for _ in range(3):
        bets.count_refusal(user=player, code="loss_limit")
    bets.count_refusal(user=player, code="not_counted")
    page = superuser_client.get(reverse("admin:games_limitrefusal_changelist")).content.decode()
    day = timezone.now().strftime("%Y-%m-%d")
    assert f"<td>{day}</td><td>Loss limit</td><td>3</td>" in page
    assert "not_counted" not in page


def test_sign_up_offers_a_daily_loss_limit_and_keeps_the_browsers_zone(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "careful",
            "password1": "pw-Secret-123",
            "password2": "pw-Secret-123",
            "loss_limit": "50",
            "time_zone": "Asia/Tokyo",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="careful")
    assert reads.limits_in_force(user, timezone.now())["day"] == 50 * CHIP
    assert Profile.objects.get(user=user).time_zone == "Asia/Tokyo"


def test_sign_up_without_a_limit_or_with_a_forged_zone(client):
    client.post(
        reverse("signup"),
        {
            "username": "free",
            "password1": "pw-Secret-123",
            "password2": "pw-Secret-123",
            "time_zone": "<script>",
        },
    )
    user = User.objects.get(username="free")
    assert not LossLimit.objects.filter(user=user).exists()
    assert Profile.objects.get(user=user).time_zone == "UTC"


def test_a_player_without_a_pin_creates_one_on_the_play_safe_page(tab, player):
    page = tab.get(reverse("play_safe")).content.decode()
    assert 'data-testid="pin-form"' in page
    assert 'data-testid="max-bet-form"' not in page  # needs the PIN first
    response = tab.post(
        reverse("account_pin"),
        {
            "back": "play_safe",
            "password": "pw-Secret-123",
            "new_pin": "2468",
            "confirm_pin": "2468",
        },
    )
    assert response.headers["Location"] == reverse("play_safe")
    assert 'data-testid="max-bet-form"' in tab.get(reverse("play_safe")).content.decode()
    saved = tab.post(
        reverse("account_max_bet"), {"back": "play_safe", "max_bet": "40", "pin": "2468"}
    )
    assert saved.headers["Location"] == reverse("play_safe")
    assert Profile.objects.get(user=player).personal_max_bet == 40 * CHIP


def test_reactivating_an_excluded_account_does_not_lift_the_exclusion(make_player):
    player = make_player()
    play_safe.take_break(user=player, length="6m")
    root = User.objects.create_superuser("boss", "boss@example.com", None)
    staff.set_account_active(actor=root, account=player, active=False, reason="check")
    staff.set_account_active(actor=root, account=player, active=True, reason="lift it")
    login = Client(HTTP_ACCEPT_LANGUAGE="en").post(
        reverse("login"), {"username": player.username, "password": "pw-Secret-123"}
    )
    assert "excluded yourself until" in login.content.decode()


def test_the_audit_log_shows_the_players_own_changes_in_words(superuser_client, make_player):
    player = make_player()
    play_safe.set_loss_limit(user=player, period="day", amount=50 * CHIP)
    play_safe.take_break(user=player, length="24h")
    page = superuser_client.get(reverse("admin:games_auditentry_changelist")).content.decode()
    assert "Loss limit set by the player" in page
    assert "Time-out taken by the player" in page
    entry = AuditEntry.objects.get(action="play_safe.timeout")
    detail = superuser_client.get(reverse("admin:games_auditentry_change", args=[entry.pk]))
    assert detail.status_code == 200


@pytest.mark.parametrize(
    ("name", "slug"), [("baccarat_table", "baccarat-social"), ("war_table", "casino-war")]
)
def test_every_tables_menu_opens_the_play_safe_controls(tab, name, slug):
    """The controls are one tap from the table's own menu, not only the header."""
    body = tab.get(reverse(name, args=[slug])).content.decode()
    link = f'href="{reverse("play_safe")}" data-testid="menu-play-safe"'
    assert link in body


def test_a_time_zone_change_under_a_limit_is_refused_with_the_reason(tab, player):
    tab.post(reverse("play_safe_loss_limit"), {"period": "day", "amount": "20"})
    before = Profile.objects.get(user=player).time_zone
    response = tab.post(reverse("play_safe_zone"), {"time_zone": "America/St_Johns"})
    assert response.status_code == 400
    assert "your time zone stays as it is" in response.content.decode()
    assert Profile.objects.get(user=player).time_zone == before


def test_a_due_reality_check_cannot_be_switched_off_from_the_page(tab, player):
    Profile.objects.filter(user=player).update(
        reality_check_minutes=15, reality_due_at=timezone.now() - dt.timedelta(minutes=1)
    )
    response = tab.post(reverse("play_safe_reality"), {"minutes": "0"})
    assert response.status_code == 400
    assert "answer it at the table first" in response.content.decode()
    assert Profile.objects.get(user=player).reality_check_minutes == 15
