"""The admin's "Adjust balances" screen: a demo wallet is refused with a
message before the form, and a posted one changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import AuditEntry, LedgerEntry, Wallet
from games.services import demo as demo_service

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def op_client(client, db):
    client.force_login(get_user_model().objects.create_superuser("operator", "op@x.example", None))
    return client


def adjust_url(*wallets: Wallet) -> str:
    return reverse("admin:games_wallet_adjust") + "?ids=" + ",".join(str(w.pk) for w in wallets)


def test_the_adjustment_screen_refuses_a_demo_wallet_with_a_message(op_client, make_player):
    demo = Wallet.objects.get(user=demo_service.start_demo())
    real = Wallet.objects.get(user=make_player(chips=10))
    rows = LedgerEntry.objects.count()
    shown = op_client.get(adjust_url(real, demo), follow=True, **EN)
    assert shown.redirect_chain[-1][0] == reverse("admin:games_wallet_changelist")
    assert "is a demo account: its demo chips are not adjusted by operators" in (
        shown.content.decode()
    )
    posted = op_client.post(
        adjust_url(demo), {"direction": "credit", "amount": "50", "reason": "x"}, **EN
    )
    assert posted.status_code == 302
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(pk=demo.pk).balance == demo_service.DEMO_UNITS
    assert not AuditEntry.objects.exists()
