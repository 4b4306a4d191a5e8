"""Sessions end after an hour without activity, and a request starts the hour
again (SESSION_COOKIE_AGE; casino.sessions writes the new expiry when the
stored one is over a minute old, or when the request changed the session)."""

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
    idle_for(player_client, 120)  # a request after two idle minutes restarts the hour
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
    response = player_client.get(reverse("history"))
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
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        expire_date=timezone.now() + dt.timedelta(seconds=30)
    )
    response = client.get(reverse("lobby"))  # half the age gone: the clock restarts
    assert int(response.cookies["sessionid"]["max-age"]) == 60
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        expire_date=timezone.now() - dt.timedelta(seconds=1)
    )
    assert client.get(reverse("history")).status_code == 302


def test_a_request_that_changes_nothing_writes_the_session_once_a_minute(player_client):
    """A burst of requests within a minute does not rewrite the session each time."""
    assert player_client.get(reverse("history")).status_code == 200
    first = stored_session(player_client).expire_date
    idle_for(player_client, 30)  # the last write was 30 s ago
    assert player_client.get(reverse("history")).status_code == 200
    kept = stored_session(player_client).expire_date
    assert kept < first  # not rewritten: still the expiry of 30 s ago
    idle_for(player_client, 90)  # now 90 s ago: the next request restarts the hour
    assert player_client.get(reverse("history")).status_code == 200
    left = stored_session(player_client).expire_date - timezone.now()
    assert left > dt.timedelta(seconds=3590)


def test_a_session_change_is_written_at_once(player_client):
    idle_for(player_client, 10)
    response = player_client.post(
        reverse("baccarat_squeeze", args=["baccarat-social"]), {"action": "toggle"}
    )
    assert response.status_code in (200, 302)
    session = stored_session(player_client).get_decoded()
    assert any(
        key.startswith("baccarat:squeeze:") and value.get("on") for key, value in session.items()
    )
