"""Signing in: who the site takes a request to come from, and the player rows it reads."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import Profile, Table, Wallet

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def table(db) -> Table:
    return Table.objects.get(slug="baccarat-classic")


def test_signing_in_with_the_form_opens_the_table(client, make_player, table):
    make_player("ann", chips=1_000)
    response = client.post(reverse("login"), {"username": "ann", "password": "pw-Secret-123"}, **EN)
    assert response.status_code == 302
    page = client.get(table.get_absolute_url(), **EN)
    assert page.status_code == 200
    assert 'data-testid="table-balance">1,000' in page.content.decode()


def test_a_deactivated_player_is_signed_out_at_the_next_request(client, make_player, table):
    player = make_player()
    client.force_login(player)
    assert client.get(table.get_absolute_url(), **EN).status_code == 200
    get_user_model().objects.filter(pk=player.pk).update(is_active=False)
    response = client.get(table.get_absolute_url(), **EN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_table_shows_chips_moved_by_another_request(client, make_player, table):
    """The balance is read with the user at the start of each request, so a
    change made elsewhere (the operator, another tab) shows at once."""
    player = make_player(chips=1_000)
    client.force_login(player)
    client.get(table.get_absolute_url(), **EN)
    Wallet.objects.filter(user=player).update(balance=123_400)
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="table-balance">1,234' in page


def test_an_account_made_outside_sign_up_gets_its_chips_at_the_table(client, table, settings):
    admin = get_user_model().objects.create_superuser("boss", password="pw-Secret-123")
    client.force_login(admin)
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert Wallet.objects.filter(user=admin).exists()
    assert Profile.objects.filter(user=admin).exists()
    assert f'data-testid="table-balance">{settings.CASINO_STARTING_CHIPS:,}' in page
