"""A forged amount at either table (an exponent the chip rack never sends,
which once overflowed to a 500) is refused with the message of a mistyped
amount: nothing is staked, no shuffle is used up, and the same slip, sent
again with a real amount, is dealt. Over the socket the same refusal is in
tests/games/consumers' refusal tables; what the page shows of it is
tests/browser/test_*_limits_browser.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Round
from tests.games.views.test_war_views import snapshot
from tests.tables import shown_version

FORGED = "1e999999999"
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def player(client, make_player):
    user = make_player(chips=1_000)
    client.force_login(user)
    return user


@pytest.mark.parametrize(
    ("endpoint", "slug", "area", "refused_in"),
    [
        ("baccarat_bet", "baccarat-classic", "player", 'data-testid="slip-error"'),
        ("war_deal", "casino-war", "ante", 'data-testid="war-message"'),
    ],
)
def test_a_forged_amount_is_refused_422_and_the_same_slip_then_plays(
    client, player, endpoint, slug, area, refused_in
):
    url = reverse(endpoint, args=[slug])
    before = snapshot(player)
    shown = {"table_version": shown_version(slug)} if endpoint == "baccarat_bet" else {}
    refused = client.post(url, {"slip_key": "forged", area: FORGED, **shown}, **HTMX)
    assert refused.status_code == 422
    html = refused.content.decode()
    assert refused_in in html and "written with the digits 0-9" in html
    assert snapshot(player) == before

    played = client.post(url, {"slip_key": "forged", area: "5", **shown}, **HTMX)
    assert played.status_code == 200
    (rnd,) = Round.objects.filter(player=player)
    assert rnd.total_bet == 500 and rnd.slip_key == "forged"
