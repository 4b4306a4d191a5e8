"""Staff give a code from an authenticator app after their password
(casino/otp.py, games/views/staff_otp.py): where ``CASINO_STAFF_OTP`` is on,
a stolen staff password alone opens no admin page, a guessed code is counted
like a guessed password, and players never meet any of it."""

from __future__ import annotations

import datetime as dt
from base64 import b32decode

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from games.models import Round
from tests.casino.test_settings import run_django
from tests.security.conftest import books_unchanged
from tests.security.totp import code_now, enrolled, wrong_code
from tests.tables import shown_version

User = get_user_model()
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PASSWORD = "pw-Secret-123"
ADMIN_PAGES = ("admin:index", "admin:games_wallet_changelist", "admin:games_dashboard")


@pytest.fixture
def otp_on(settings):
    settings.CASINO_STAFF_OTP = True


def staff(username: str = "pit-boss", **extra):
    user = User.objects.create_user(username, password=PASSWORD, is_staff=True, **extra)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_wallet", "view_table", "view_round"])
    )
    return user


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def code_page(next_url: str = "/admin/") -> str:
    return f"{reverse('staff_otp_verify')}?next={next_url.replace('/', '%2F')}"


def verified(client: Client) -> bool:
    """The admin's index opens: the session counts as verified."""
    return client.get(reverse("admin:index")).status_code == 200


def failures(username: str) -> int:
    return sum(a.failures_since_start for a in AccessAttempt.objects.filter(username=username))


# --- the admin ---------------------------------------------------------------


def test_a_staff_password_alone_opens_no_admin_page(otp_on, db):
    client = signed_in(staff())
    enrolled(User.objects.get(username="pit-boss"))
    for name in ADMIN_PAGES:
        response = client.get(reverse(name), **EN)
        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("admin:login")), name
    # The admin's login page sends a signed-in staff member on to the code.
    response = client.get(reverse("admin:login"), {"next": "/admin/"}, **EN)
    assert response.status_code == 302 and response["Location"] == code_page()
    page = client.get(response["Location"], **EN).content.decode()
    assert 'data-testid="staff-otp-verify"' in page
    assert "Tables, players and the audit log" not in page  # nothing of the console


def test_the_right_code_opens_the_admin(otp_on, db):
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    response = client.post(code_page(), {"code": code_now(device)}, **EN)
    assert response.status_code == 302 and response["Location"] == "/admin/"
    for name in ADMIN_PAGES:
        assert client.get(reverse(name), **EN).status_code == 200, name


def test_the_whole_sign_in_password_then_code_through_the_admins_login(otp_on, db):
    device = enrolled(staff())
    client = Client()
    response = client.post(
        reverse("admin:login"),
        {"username": "pit-boss", "password": PASSWORD, "next": "/admin/"},
        follow=True,
        **EN,
    )
    assert response.redirect_chain[-1][0] == code_page()
    assert not verified(client)
    response = client.post(code_page(), {"code": code_now(device)}, follow=True, **EN)
    assert response.status_code == 200
    assert "Tables, players and the audit log" in response.content.decode()


def test_a_wrong_code_is_refused_and_counted_as_a_failed_login(otp_on, db):
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    response = client.post(code_page(), {"code": wrong_code(device)}, **EN)
    assert response.status_code == 200
    assert "That code is not right" in response.content.decode()
    assert not verified(client)
    assert failures("pit-boss") == 1  # axes, as for a wrong password
    device.refresh_from_db()
    assert device.throttling_failure_count == 1  # and django-otp slows the device down


def test_guessing_codes_locks_the_account_out_like_guessing_passwords(otp_on, settings, db):
    settings.AXES_FAILURE_LIMIT = 3
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    for _ in range(2):
        assert client.post(code_page(), {"code": wrong_code(device)}, **EN).status_code == 200
    response = client.post(code_page(), {"code": wrong_code(device)}, **EN)
    assert response.status_code == 429
    assert "Too many failed log-ins" in response.content.decode()
    # Signed out: the password has to be given again, and axes refuses it now.
    assert client.get(code_page()).status_code == 302
    assert not verified(client)
    response = Client().post(reverse("login"), {"username": "pit-boss", "password": PASSWORD}, **EN)
    assert response.status_code == 429


def test_a_code_is_good_once(otp_on, db):
    """A code seen over a shoulder (or replayed from a log) is worth nothing
    once it has been used."""
    user = staff()
    device = enrolled(user)
    code = code_now(device)
    assert signed_in(user).post(code_page(), {"code": code}).status_code == 302
    other = signed_in(user)
    response = other.post(code_page(), {"code": code}, **EN)
    assert response.status_code == 200
    assert not verified(other)


def test_a_malformed_code_is_explained_and_not_counted(otp_on, db):
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    for typed in ("", "12345", "abcdef", "１２３４５６", "1234567", "123456789"):
        response = client.post(code_page(), {"code": typed}, **EN)
        assert response.status_code == 200
        assert 'class="errorlist' in response.content.decode()
    assert failures("pit-boss") == 0
    device.refresh_from_db()
    assert device.throttling_failure_count == 0
    # Spaces as the app shows them ("123 456") are fine.
    code = code_now(device)
    assert client.post(code_page(), {"code": f"{code[:3]} {code[3:]}"}).status_code == 302


@pytest.mark.parametrize("elsewhere", ["https://evil.example/admin/", "215935", "admin:index"])
def test_the_code_page_sends_nobody_off_site_nor_anywhere_but_a_path(otp_on, db, elsewhere):
    """Off site, or not a path at all (digits, a view's name: once taken
    for a URL name, they failed the page after the code was accepted)."""
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    response = client.post(
        reverse("staff_otp_verify"), {"code": code_now(device), "next": elsewhere}
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_a_superuser_is_bound_too(otp_on, db):
    boss = User.objects.create_superuser("owner", "owner@example.com", PASSWORD)
    client = signed_in(boss)
    response = client.get(reverse("admin:index"), follow=True, **EN)
    # No device yet: on from the code page to enrolment.
    assert response.redirect_chain[-1][0].startswith(reverse("staff_otp_enroll"))
    assert 'data-testid="staff-otp-enroll"' in response.content.decode()
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 302


# --- enrolment ----------------------------------------------------------------


def test_a_staff_member_without_a_device_enrolls_with_a_qr_code_and_one_code(otp_on, db):
    user = staff()
    client = signed_in(user)
    response = client.get(code_page(), **EN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("staff_otp_enroll"))
    page = client.get(response["Location"], **EN)
    html = page.content.decode()
    assert "no-store" in page["Cache-Control"]  # the key is a secret
    assert "<svg" in html and 'data-testid="otp-qr"' in html
    device = TOTPDevice.objects.get(user=user)
    assert not device.confirmed
    # Reloading shows the same key: a scan already made stays good.
    assert client.get(reverse("staff_otp_enroll")).status_code == 200
    assert TOTPDevice.objects.filter(user=user).count() == 1

    wrong = client.post(reverse("staff_otp_enroll"), {"code": wrong_code(device)}, **EN)
    assert "That code is not right" in wrong.content.decode()
    device.refresh_from_db()
    assert not device.confirmed and not verified(client)
    # Right after a wrong code even the right one waits (django-otp's throttle)...
    hurried = client.post(reverse("staff_otp_enroll"), {"code": code_now(device)}, **EN)
    assert "Too many wrong codes in a row" in hurried.content.decode()
    assert not verified(client)
    # ...and a few seconds later it is taken.
    TOTPDevice.objects.filter(pk=device.pk).update(
        throttling_failure_timestamp=timezone.now() - dt.timedelta(seconds=5)
    )
    response = client.post(
        reverse("staff_otp_enroll"), {"code": code_now(device), "next": "/admin/"}, **EN
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    device.refresh_from_db()
    assert device.confirmed
    assert verified(client)


def test_the_enrolment_key_is_the_one_the_code_page_checks(otp_on, db):
    """The key shown (typed into an app by hand) makes codes the site accepts."""
    user = staff()
    client = signed_in(user)
    html = client.get(reverse("staff_otp_enroll"), **EN).content.decode()
    shown = html.split('data-testid="otp-key">', 1)[1].split("<", 1)[0]
    key = b32decode(shown.replace(" ", ""))
    code = f"{totp(key):06d}"
    assert client.post(reverse("staff_otp_enroll"), {"code": code}).status_code == 302
    assert verified(client)


def test_a_password_alone_cannot_add_a_second_device(otp_on, db):
    """Someone holding only the password must not enrol an app of their own
    next to the staff member's."""
    user = staff()
    enrolled(user)
    client = signed_in(user)
    response = client.get(reverse("staff_otp_enroll"), **EN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("staff_otp_verify"))
    response = client.post(reverse("staff_otp_enroll"), {"code": "123456"}, **EN)
    assert response.status_code == 302
    assert TOTPDevice.objects.filter(user=user).count() == 1


def test_an_unconfirmed_device_does_not_verify_a_session(otp_on, db):
    """Codes from a half-done enrolment's key open nothing on the code page."""
    user = staff()
    pending = enrolled(user, confirmed=False)
    client = signed_in(user)
    response = client.post(code_page(), {"code": code_now(pending)}, **EN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("staff_otp_enroll"))
    assert not verified(client)


def test_a_lost_phone_removed_in_the_admin_ends_its_sessions_and_the_owner_enrols_again(otp_on, db):
    user = staff()
    device = enrolled(user)
    client = signed_in(user)
    assert client.post(code_page(), {"code": code_now(device)}).status_code == 302
    assert verified(client)

    boss = User.objects.create_superuser("owner", "owner@example.com", PASSWORD)
    boss_client = signed_in(boss)
    boss_device = enrolled(boss)
    assert boss_client.post(code_page(), {"code": code_now(boss_device)}).status_code == 302
    delete = reverse("admin:otp_totp_totpdevice_delete", args=[device.pk])
    assert boss_client.post(delete, {"post": "yes"}).status_code == 302
    assert not TOTPDevice.objects.filter(pk=device.pk).exists()

    # The session verified by the lost phone is not any more...
    assert not verified(client)
    # ...and its owner is sent to set up the new one.
    response = client.get(code_page(), **EN)
    assert response["Location"].startswith(reverse("staff_otp_enroll"))


def test_the_admin_never_shows_a_devices_key_to_another_operator(otp_on, db):
    device = enrolled(staff())
    boss = User.objects.create_superuser("owner", "owner@example.com", PASSWORD)
    client = signed_in(boss)
    boss_device = enrolled(boss)
    assert client.post(code_page(), {"code": code_now(boss_device)}).status_code == 302
    change = client.get(reverse("admin:otp_totp_totpdevice_change", args=[device.pk]))
    assert change.status_code == 200
    assert device.key not in change.content.decode()
    config = reverse("admin:otp_totp_totpdevice_config", args=[device.pk])
    assert client.get(config).status_code == 403


# --- the player's side of the site ---------------------------------------------


def test_a_staff_password_at_the_players_login_leads_to_the_code_and_nothing_else(otp_on, db):
    device = enrolled(staff())
    client = Client()
    response = client.post(
        reverse("login"), {"username": "pit-boss", "password": PASSWORD}, follow=True, **EN
    )
    assert response.redirect_chain[-1][0] == code_page("/")
    assert 'data-testid="staff-otp-verify"' in response.content.decode()
    for url in (
        reverse("lobby"),
        reverse("baccarat_table", args=["baccarat-classic"]),
        reverse("war_table", args=["casino-war"]),
        reverse("history"),
        reverse("play_safe"),
    ):
        response = client.get(url, **EN)
        assert response.status_code == 302 and response["Location"] == code_page(url), url
    # Signing out needs no code.
    other = Client()
    other.post(reverse("login"), {"username": "pit-boss", "password": PASSWORD}, **EN)
    response = other.post(reverse("logout"), **EN)
    assert response.status_code == 302 and "_auth_user_id" not in other.session
    # The code opens the site where the staff member was going.
    response = client.post(code_page("/"), {"code": code_now(device)}, **EN)
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get(reverse("lobby"), **EN).status_code == 200


def test_a_staff_session_without_its_code_places_no_bet(otp_on, make_player):
    member = make_player("pit-boss", chips=1_000, is_staff=True)
    device = enrolled(member)
    client = signed_in(member)
    slip = {"slip_key": "s1", "player": "10", "table_version": shown_version("baccarat-classic")}
    bet_url = reverse("baccarat_bet", args=["baccarat-classic"])
    with books_unchanged():
        response = client.post(bet_url, slip, HTTP_HX_REQUEST="true", **EN)
        assert response.status_code == 204 and response["HX-Redirect"] == code_page("/")
        deal = client.post(reverse("war_deal", args=["casino-war"]), {"ante": "10"}, **EN)
        assert deal.status_code == 302 and deal["Location"] == code_page("/")
    # With the code given, the same slip plays.
    client.post(code_page("/"), {"code": code_now(device)}, **EN)
    assert client.post(bet_url, slip, HTTP_HX_REQUEST="true", **EN).status_code == 200
    assert Round.objects.filter(player=member).count() == 1


# --- players -----------------------------------------------------------------


def test_players_never_see_any_of_it(otp_on, make_player):
    player = make_player("alice")
    client = signed_in(player)
    for name in ("staff_otp_verify", "staff_otp_enroll"):
        assert client.get(reverse(name)).status_code == 404
        assert client.post(reverse(name), {"code": "123456"}).status_code == 404
    assert not TOTPDevice.objects.exists()
    assert client.get(reverse("lobby")).status_code == 200
    assert client.get(reverse("history")).status_code == 200
    # Their log-in is the password alone, as ever.
    response = Client().post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")


def test_failed_password_logins_are_still_counted_with_otp_on(otp_on, db):
    staff()
    Client().post(reverse("login"), {"username": "pit-boss", "password": "nope"}, **EN)
    Client().post(reverse("admin:login"), {"username": "pit-boss", "password": "nope"}, **EN)
    assert failures("pit-boss") == 2


# --- the setting ------------------------------------------------------------------


def test_with_the_setting_off_the_password_opens_the_admin(settings, db):
    """Debug's default (make run): staff are not asked for a code."""
    settings.CASINO_STAFF_OTP = False
    client = signed_in(staff())
    assert verified(client)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DJANGO_DEBUG": "1"}, "False"),
        ({"DJANGO_DEBUG": "0"}, "True"),
        ({"DJANGO_DEBUG": "1", "CASINO_STAFF_OTP": "1"}, "True"),
        ({"DJANGO_DEBUG": "0", "CASINO_STAFF_OTP": "0"}, "False"),
    ],
)
def test_it_is_off_in_debug_by_default_on_without_it_and_settable_either_way(env, expected):
    result = run_django(
        "from django.conf import settings; print(settings.CASINO_STAFF_OTP)",
        DJANGO_SECRET_KEY="k" * 20 + "-production-secret-0123456789-abcdefghij",
        **env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_a_malformed_setting_stops_start_up():
    result = run_django("import django; django.setup()", CASINO_STAFF_OTP="maybe")
    assert result.returncode != 0
    assert "CASINO_STAFF_OTP" in result.stderr
