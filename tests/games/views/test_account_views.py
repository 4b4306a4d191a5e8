"""The account page: setting a PIN and the personal max bet."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import check_password
from django.urls import reverse

from games.models import Profile
from games.services import account

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PASSWORD = "pw-Secret-123"


@pytest.fixture
def player(client, make_player):
    user = make_player()
    client.force_login(user)
    return user


def test_the_account_page_explains_the_limit_and_links_the_password_change(client, player):
    body = client.get(reverse("account"), **EN).content.decode()
    assert "Personal max bet" in body
    assert reverse("password_change") in body
    assert "Friday at 00:00 New York time" in body
    assert "Set a PIN below first." in body


def test_a_player_sets_a_pin_then_a_max_bet_and_sees_when_it_can_change_again(client, player):
    response = client.post(
        reverse("account_pin"),
        {"password": PASSWORD, "new_pin": "4321", "confirm_pin": "4321"},
        **EN,
    )
    assert response.status_code == 302
    assert check_password("4321", Profile.objects.get(user=player).pin_hash)

    response = client.post(reverse("account_max_bet"), {"max_bet": "200", "pin": "4321"}, **EN)
    assert response.status_code == 302
    profile = Profile.objects.get(user=player)
    assert profile.personal_max_bet == 20_000
    body = client.get(reverse("account"), **EN).content.decode()
    assert 'data-testid="personal-max-bet">200<' in body
    allowed = account.next_change_allowed(profile.max_bet_changed_at)
    ny = allowed.astimezone(account.WEEK_ZONE)
    assert ny.strftime("%Y-%m-%d 00:00") in body
    assert ny.weekday() == 4  # a Friday
    assert "Next change allowed" in body
    assert "every game" in body


def test_a_wrong_pin_is_refused_and_nothing_changes(client, player):
    account.set_pin(user=player, password=PASSWORD, new_pin="1111")
    response = client.post(reverse("account_max_bet"), {"max_bet": "100", "pin": "2222"}, **EN)
    assert response.status_code == 400
    assert "The PIN is not correct." in response.content.decode()
    profile = Profile.objects.get(user=player)
    assert profile.personal_max_bet is None and profile.pin_failures == 1


def test_setting_a_pin_with_a_wrong_password_is_refused(client, player):
    response = client.post(
        reverse("account_pin"),
        {"password": "nope", "new_pin": "4321", "confirm_pin": "4321"},
        **EN,
    )
    assert response.status_code == 400
    assert "The password is not correct." in response.content.decode()
    assert Profile.objects.get(user=player).pin_hash == ""


def test_mismatched_pins_are_refused(client, player):
    response = client.post(
        reverse("account_pin"),
        {"password": PASSWORD, "new_pin": "4321", "confirm_pin": "4322"},
        **EN,
    )
    assert response.status_code == 400
    assert Profile.objects.get(user=player).pin_hash == ""


def test_the_war_table_shows_the_personal_limit(client, player):
    Profile.objects.filter(user=player).update(personal_max_bet=3_000)
    body = client.get(reverse("war_table", args=["casino-war"]), **EN).content.decode()
    assert 'data-testid="round-max">30<' in body
    assert "your personal limit" in body


@pytest.mark.parametrize(
    "max_bet", ["１００", "1e2", "1e999999999", "NaN", "Infinity", "-0", "1 00", "9" * 5000]
)
def test_a_max_bet_that_is_not_a_whole_number_of_chips_is_refused(client, player, max_bet):
    """Django's IntegerField took ``１００`` (full-width digits) as 100; an
    amount is ASCII digits. The right PIN changes nothing either."""
    account.set_pin(user=player, password=PASSWORD, new_pin="1111")
    response = client.post(reverse("account_max_bet"), {"max_bet": max_bet, "pin": "1111"}, **EN)
    assert response.status_code == 400
    assert "Enter a whole number of chips with the digits 0-9" in response.content.decode()
    profile = Profile.objects.get(user=player)
    assert profile.personal_max_bet is None and profile.max_bet_changed_at is None
