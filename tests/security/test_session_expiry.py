"""Sessions end after an hour without activity, and every request starts the
hour again (SESSION_COOKIE_AGE with SESSION_SAVE_EVERY_REQUEST)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db


@pytest.fixture
def player_client(make_player):
    client = Client()
    client.force_login(make_player(chips=50))
    return client


def stored_session(client: Client) -> Session:
    return Session.objects.get(session_key=client.cookies["sessionid"].value)


def idle_for(client: Client, seconds: float) -> None:
    """As if the player's last request was ``seconds`` ago."""
    age = dt.timedelta(seconds=settings.SESSION_COOKIE_AGE - seconds)
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        expire_date=timezone.now() + age
    )


def test_the_session_lasts_an_hour_from_the_last_request(player_client):
    assert settings.SESSION_COOKIE_AGE == 3600
    response = player_client.get(reverse("lobby"))
    assert response.status_code == 200
    cookie = response.cookies["sessionid"]
    assert int(cookie["max-age"]) == 3600
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    left = stored_session(player_client).expire_date - timezone.now()
    assert dt.timedelta(minutes=59) < left <= dt.timedelta(hours=1)


def test_a_player_idle_past_the_hour_is_logged_out(player_client):
    idle_for(player_client, 3601)
    response = player_client.get(reverse("lobby"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    # A bet from the stale page is refused too: no session, no chips moved.
    response = player_client.post(
        reverse("war_deal", args=["casino-war"]), {"ante": "5", "slip_key": "late"}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_activity_within_the_hour_starts_it_again(player_client):
    idle_for(player_client, 3500)  # 100 s left
    assert player_client.get(reverse("history")).status_code == 200
    left = stored_session(player_client).expire_date - timezone.now()
    assert left > dt.timedelta(minutes=59)
    # An htmx fragment request counts as activity as well.
    idle_for(player_client, 3500)
    response = player_client.get(reverse("history"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert stored_session(player_client).expire_date - timezone.now() > dt.timedelta(minutes=59)


def test_a_shorter_age_set_by_the_operator_applies(settings, make_player):
    settings.SESSION_COOKIE_AGE = 60
    client = Client()
    client.force_login(make_player())
    response = client.get(reverse("lobby"))
    assert int(response.cookies["sessionid"]["max-age"]) == 60
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        expire_date=timezone.now() - dt.timedelta(seconds=1)
    )
    assert client.get(reverse("lobby")).status_code == 302
