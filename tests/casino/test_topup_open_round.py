"""The daily top-up counts the chips at risk: a War tie waiting for its
decision holds the player's stake, so a zero balance then is not "out of
chips" (games.services.account.claim_daily_topup)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services import war as war_service
from tests.security.conftest import CLIENT_SEED, war_seed

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def test_no_top_up_while_a_war_tie_waits_for_its_decision(make_player):
    player = make_player(chips=5)
    Profile.objects.filter(user=player).update(
        next_server_seed=war_seed(True), client_seed=CLIENT_SEED, nonce=0
    )
    table = Table.objects.get(slug="casino-war")
    rnd = war_service.deal(user=player, table=table, ante=500, tie_bet=0, slip_key="tie")
    assert rnd.status == Round.Status.OPEN
    assert Wallet.objects.get(user=player).balance == 0  # the whole stake is on the tie

    client = Client()
    client.force_login(player)
    rows = LedgerEntry.objects.count()
    response = client.post(reverse("topup"), follow=True, **EN)
    page = response.content.decode()
    assert "waiting for your decision at Casino War" in page
    assert "Finish it before claiming the daily top-up" in page
    assert Wallet.objects.get(user=player).balance == 0
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(user=player).last_topup_on is None

    # Settled (surrender: half the ante back), the usual rule applies again.
    war_service.decide(user=player, round_id=rnd.pk, decision="surrender")
    assert Wallet.objects.get(user=player).balance == 250
    response = client.post(reverse("topup"), follow=True, **EN)
    assert "for players whose balance is zero" in response.content.decode()


def test_a_player_at_zero_with_every_round_settled_gets_the_top_up(make_player):
    player = make_player(chips=0)
    client = Client()
    client.force_login(player)
    response = client.post(reverse("topup"), follow=True, **EN)
    assert "Your daily top-up has been added." in response.content.decode()
    assert Wallet.objects.get(user=player).balance == 1_000 * 100
