"""The SQUEEZE toggle and its unlock, as a player's browser tab sees them:
unlocked by a BET reaching the table's threshold, or by watching the
promo clip to its end for the rest of the visit (a new render of the table
screen locks it again), and what BET then tells the reveal."""

from __future__ import annotations

import asyncio
import itertools
import re

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware
from django.contrib.sessions.models import Session
from django.urls import reverse
from django_htmx.middleware import HtmxDetails

from games.models import Round, Table
from games.services.baccarat import reveal_group
from games.services.squeeze import PROMO_SECONDS
from games.views.squeeze import squeeze as squeeze_view

SLUG = "baccarat-classic"  # squeeze from 5,000 chips; chips 1 5 10 50 100


@pytest.fixture
def player(make_player):
    return make_player(chips=10_000)


@pytest.fixture
def tab(client, player):
    client.force_login(player)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


@pytest.fixture
def reveals(player):
    """The reveal events BET sends to the player's tables."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(reveal_group(player.pk), channel)

    async def receive() -> dict:
        return await asyncio.wait_for(layer.receive(channel), timeout=2)

    def next_event() -> dict:
        event = async_to_sync(receive)()
        assert isinstance(event.pop("bet_at"), float)  # when BET reached the server
        return event

    yield next_event
    async_to_sync(layer.group_discard)(reveal_group(player.pk), channel)


def post(client, name: str, data: dict):
    return client.post(reverse(name, args=[SLUG]), data, HTTP_HX_REQUEST="true")


_keys = itertools.count(1)


def page(client) -> str:
    response = client.get(reverse("baccarat_table", args=[SLUG]))
    assert response.status_code == 200
    return response.content.decode()


def visit(html: str) -> str:
    return re.search(r'name="squeeze_visit" value="(\w+)"', html).group(1)


def toggle(html: str) -> tuple[str, str]:
    """(unlocked, on) of the SQUEEZE toggle in a page or a fragment: "1"/"0" each."""
    m = re.search(r'id="bac-squeeze-toggle" [^>]*data-unlocked="(\d)" data-on="(\d)"', html)
    return m.group(1), m.group(2)


def bet(
    client,
    html: str,
    django_capture_on_commit_callbacks,
    slip: dict[str, str],
    *,
    visit_token: str | None = None,
):
    """BET a whole slip (chips per area) from the page ``html`` (its visit token)."""
    data = {
        "squeeze_visit": visit_token or visit(html),
        "slip_key": f"s{next(_keys)}",
        "table_version": re.search(r'name="table_version" value="(\d+)"', html).group(1),
        **slip,
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, "baccarat_bet", data)
    assert response.status_code == 200
    return response.content.decode()


def watch_clip(client, token: str, *, seconds: float = PROMO_SECONDS) -> str:
    """Start the clip, let ``seconds`` pass (the session's start is moved back), end it."""
    post(client, "baccarat_squeeze", {"action": "promo_start", "visit": token})
    session = client.session
    state = session[f"baccarat:squeeze:{Table.objects.get(slug=SLUG).pk}"]
    assert state["promo_started"] is not None
    state["promo_started"] -= seconds
    session.save()
    return post(
        client, "baccarat_squeeze", {"action": "promo_end", "visit": token}
    ).content.decode()


def test_the_toggle_says_the_threshold_and_turns_on_and_off(tab):
    html = page(tab)
    assert toggle(html) == ("0", "0")  # locked, OFF
    assert "Not this round: bet 5,000 or more, or watch the clip." in html
    assert 'data-threshold="500000"' in html  # the browser unlocks it as the slip reaches it
    on = post(tab, "baccarat_squeeze", {"action": "toggle"}).content.decode()
    assert toggle(on)[1] == "1"
    # Locked this round: the toggle is ON for later, but never says ON next to the lock.
    assert re.search(r'data-testid="squeeze-state"[^>]*></strong>', on)
    assert "Not this round" in on
    assert toggle(page(tab))[1] == "1"  # the toggle survives a reload
    off = post(tab, "baccarat_squeeze", {"action": "toggle"}).content.decode()
    assert toggle(off)[1] == "0"


def test_a_bet_reaching_the_threshold_is_squeezed_when_on(
    tab, player, reveals, django_capture_on_commit_callbacks
):
    post(tab, "baccarat_squeeze", {"action": "toggle"})  # ON
    html = page(tab)
    bet(tab, html, django_capture_on_commit_callbacks, {"banker": "5000"})  # the threshold
    rnd = Round.objects.get(player=player)
    assert reveals() == {
        "type": "round.reveal",
        "round_id": rnd.pk,
        "table": SLUG,
        "squeeze": "banker",
    }
    # Under the threshold the same player is not offered the squeeze.
    bet(tab, page(tab), django_capture_on_commit_callbacks, {"banker": "1000"})
    assert reveals()["squeeze"] is None


def test_the_toggle_off_means_no_squeeze_even_past_the_threshold(
    tab, reveals, django_capture_on_commit_callbacks
):
    bet(tab, page(tab), django_capture_on_commit_callbacks, {"player": "5000"})
    assert reveals()["squeeze"] is None


def test_watching_the_clip_to_its_end_unlocks_the_squeeze_for_this_visit(
    tab, reveals, django_capture_on_commit_callbacks
):
    html = page(tab)
    token = visit(html)
    answer = watch_clip(tab, token)
    assert 'data-testid="promo-note"' in answer and "Squeeze unlocked" in answer
    assert toggle(answer) == ("1", "1")  # unlocked and turned ON
    assert "Unlocked for this visit" in answer
    assert 'data-testid="watch-promo"' not in answer
    # A small bet is squeezed now.
    answer = bet(tab, html, django_capture_on_commit_callbacks, {"player": "10"})
    assert toggle(answer) == ("1", "1")  # BET's answer keeps it unlocked for the visit
    assert reveals()["squeeze"] == "player"
    # the next round too: same visit
    bet(tab, html, django_capture_on_commit_callbacks, {"player": "10"})
    assert reveals()["squeeze"] == "player"


def test_a_clip_ended_too_soon_or_from_another_visit_unlocks_nothing(tab):
    token = visit(page(tab))
    answer = watch_clip(tab, token, seconds=3)
    assert "Watch the clip to its end" in answer
    assert toggle(answer) == ("0", "0")
    answer = post(tab, "baccarat_squeeze", {"action": "promo_end", "visit": token}).content.decode()
    assert toggle(answer) == ("0", "0")  # an end without a start of its own
    answer = watch_clip(tab, "an-old-page")
    assert toggle(answer) == ("0", "0")
    assert "out of date" in answer


def test_leaving_the_table_screen_locks_the_squeeze_again(
    tab, reveals, django_capture_on_commit_callbacks
):
    first = page(tab)
    watch_clip(tab, visit(first))
    assert toggle(page(tab)) == ("0", "1")  # back on the screen: a new visit, locked (still ON)
    second = page(tab)
    # Neither the new page nor the old one (its visit is over) gets the squeeze.
    bet(tab, second, django_capture_on_commit_callbacks, {"player": "10"})
    assert reveals()["squeeze"] is None
    bet(
        tab,
        second,
        django_capture_on_commit_callbacks,
        {"player": "10"},
        visit_token=visit(first),
    )
    assert reveals()["squeeze"] is None


def test_only_tie_and_pair_bets_are_never_squeezed(
    tab, reveals, django_capture_on_commit_callbacks
):
    html = page(tab)
    watch_clip(tab, visit(html))
    bet(tab, html, django_capture_on_commit_callbacks, {"tie": "10", "player_pair": "10"})
    assert reveals()["squeeze"] is None


def test_a_reload_in_the_middle_of_a_squeeze_shows_the_finished_round(
    tab, player, reveals, django_capture_on_commit_callbacks
):
    html = page(tab)
    watch_clip(tab, visit(html))
    bet(tab, html, django_capture_on_commit_callbacks, {"player": "10"})
    assert reveals()["squeeze"] == "player"
    rnd = Round.objects.get(player=player)
    # The reveal is waiting for the peel; the page shows the settled round anyway.
    again = page(tab)
    for code in rnd.cards:
        assert f'data-card="{code}"' in again
    assert f'data-winner="{rnd.winner}"' in again
    assert 'id="bac-squeeze" data-testid="squeeze-stage" hidden' in again


def test_a_toggle_whose_session_ends_meanwhile_is_refused_and_brings_nothing_back(tab, player, rf):
    """A log-out (or another log-in) that deletes the session while the
    toggle runs is answered as Django answers it (400), not a server error,
    and the session stays gone."""
    key = tab.cookies["sessionid"].value
    middleware = SessionMiddleware(lambda request: squeeze_view(request, SLUG))
    request = rf.post(reverse("baccarat_squeeze", args=[SLUG]), {"action": "toggle"})
    request.COOKIES[settings.SESSION_COOKIE_NAME] = key
    middleware.process_request(request)
    assert request.session.get(SESSION_KEY) == str(player.pk)  # the toggle has read its session
    Session.objects.filter(session_key=key).delete()  # logged out in another tab
    request.user, request.htmx = player, HtmxDetails(request)
    response = squeeze_view(request, SLUG)
    with pytest.raises(SessionInterrupted):
        middleware.process_response(request, response)
    assert not Session.objects.filter(session_key=key).exists()
