"""The SQUEEZE toggle and its unlock, as a player's browser tab sees them:
unlocked by the slip reaching the table's threshold, or by watching the
promo clip to its end for the rest of the visit (a new render of the table
screen locks it again), and what BET then tells the reveal."""

from __future__ import annotations

import asyncio
import re

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.urls import reverse

from games.models import Round, Table
from games.services.baccarat import reveal_group
from games.views.baccarat import PROMO_SECONDS

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
        return async_to_sync(receive)()

    yield next_event
    async_to_sync(layer.group_discard)(reveal_group(player.pk), channel)


def post(client, name: str, data: dict):
    return client.post(reverse(name, args=[SLUG]), data, HTTP_HX_REQUEST="true")


def add(client, area: str, chip: int) -> str:
    return post(
        client, "baccarat_slip", {"action": "add", "area": area, "chip": chip}
    ).content.decode()


def x100(client) -> None:
    post(client, "baccarat_slip", {"action": "mult"})
    post(client, "baccarat_slip", {"action": "mult"})


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


def bet(client, html: str, django_capture_on_commit_callbacks, *, visit_token: str | None = None):
    """BET from the page ``html`` (its visit token); the slip is the session's
    current one (the page's own key is spent after its first BET)."""
    data = {"squeeze_visit": visit_token or visit(html)}
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


def test_the_toggle_unlocks_when_the_slip_reaches_the_threshold_and_turns_on_and_off(tab):
    html = page(tab)
    assert toggle(html) == ("0", "0")  # locked, OFF
    assert "Locked: bet 5,000 or more" in html
    x100(tab)  # chips x100
    fragment = add(tab, "player", 10)  # 1,000
    assert toggle(fragment) == ("0", "0")
    fragment = add(tab, "player", 10)
    fragment = add(tab, "player", 10)
    fragment = add(tab, "player", 10)
    assert toggle(fragment) == ("0", "0")  # 4,000
    fragment = add(tab, "tie", 10)  # the round's total: 5,000
    assert toggle(fragment) == ("1", "0")
    assert 'data-testid="squeeze-lock">Unlocked<' in fragment
    on = post(tab, "baccarat_squeeze", {"action": "toggle"}).content.decode()
    assert toggle(on) == ("1", "1")
    assert 'data-testid="squeeze-state">ON<' in on
    assert toggle(page(tab)) == ("1", "1")  # the slip and the toggle survive a reload
    off = post(tab, "baccarat_squeeze", {"action": "toggle"}).content.decode()
    assert toggle(off) == ("1", "0")


def test_a_bet_reaching_the_threshold_is_squeezed_when_on(
    tab, player, reveals, django_capture_on_commit_callbacks
):
    post(tab, "baccarat_squeeze", {"action": "toggle"})  # ON
    x100(tab)
    add(tab, "banker", 50)  # 5,000: the threshold
    html = page(tab)
    bet(tab, html, django_capture_on_commit_callbacks)
    rnd = Round.objects.get(player=player)
    assert reveals() == {
        "type": "round.reveal",
        "round_id": rnd.pk,
        "table": SLUG,
        "squeeze": "banker",
    }
    # Under the threshold the same player is not offered the squeeze.
    add(tab, "banker", 10)  # 1,000
    bet(tab, page(tab), django_capture_on_commit_callbacks)
    assert reveals()["squeeze"] is None


def test_the_toggle_off_means_no_squeeze_even_past_the_threshold(
    tab, reveals, django_capture_on_commit_callbacks
):
    x100(tab)
    add(tab, "player", 50)
    bet(tab, page(tab), django_capture_on_commit_callbacks)
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
    # A small bet is squeezed now; the slip under the threshold keeps it unlocked.
    fragment = add(tab, "player", 10)
    assert toggle(fragment) == ("1", "1")
    bet(tab, html, django_capture_on_commit_callbacks)
    assert reveals()["squeeze"] == "player"
    add(tab, "player", 10)
    bet(tab, html, django_capture_on_commit_callbacks)  # the next round too: same visit
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
    add(tab, "player", 10)
    # Neither the new page nor the old one (its visit is over) gets the squeeze.
    bet(tab, second, django_capture_on_commit_callbacks)
    assert reveals()["squeeze"] is None
    add(tab, "player", 10)
    bet(tab, second, django_capture_on_commit_callbacks, visit_token=visit(first))
    assert reveals()["squeeze"] is None


def test_only_tie_and_pair_bets_are_never_squeezed(
    tab, reveals, django_capture_on_commit_callbacks
):
    html = page(tab)
    watch_clip(tab, visit(html))
    add(tab, "tie", 10)
    add(tab, "player_pair", 10)
    bet(tab, html, django_capture_on_commit_callbacks)
    assert reveals()["squeeze"] is None


def test_a_reload_in_the_middle_of_a_squeeze_shows_the_finished_round(
    tab, player, reveals, django_capture_on_commit_callbacks
):
    html = page(tab)
    watch_clip(tab, visit(html))
    add(tab, "player", 10)
    bet(tab, html, django_capture_on_commit_callbacks)
    assert reveals()["squeeze"] == "player"
    rnd = Round.objects.get(player=player)
    # The reveal is waiting for the peel; the page shows the settled round anyway.
    again = page(tab)
    for code in rnd.cards:
        assert f'data-card="{code}"' in again
    assert f'data-winner="{rnd.winner}"' in again
    assert 'id="bac-squeeze" data-testid="squeeze-stage" hidden' in again
