"""An operator's balance adjustments through the service: a demo wallet is
refused whole (its demo chips are the visitor's, and a demo is deleted a
day after its last use, which would leave the audit entry naming nothing)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.errors import GameError
from games.models import AuditEntry, LedgerEntry, Wallet
from games.services import demo as demo_service
from games.services.operator import do_adjustments
from tests.threads import at_once

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator():
    return get_user_model().objects.create_superuser("operator", "op@example.com", None)


def test_an_adjustment_on_a_demo_wallet_is_refused_and_moves_nothing(operator, make_player):
    demo = demo_service.start_demo()
    player = make_player(chips=100)
    wallets = [Wallet.objects.get(user=player).pk, Wallet.objects.get(user=demo).pk]
    rows = LedgerEntry.objects.count()
    with pytest.raises(GameError) as refused:
        do_adjustments(wallet_ids=wallets, amount=5_000, reason="goodwill", actor=operator)
    assert refused.value.code == "demo"
    assert f"{demo.username} is a demo account" in refused.value.message
    assert "Nothing was changed." in refused.value.message
    # One refusal rolls the others back: the real player is not credited either.
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(user=player).balance == 10_000
    assert Wallet.objects.get(user=demo).balance == demo_service.DEMO_UNITS
    assert not AuditEntry.objects.exists()


def test_a_real_players_adjustment_still_goes_through(operator, make_player):
    player = make_player(chips=100)
    wallet = Wallet.objects.get(user=player)
    do_adjustments(wallet_ids=[wallet.pk], amount=-2_500, reason="duplicate", actor=operator)
    assert Wallet.objects.get(pk=wallet.pk).balance == 7_500
    assert AuditEntry.objects.get().object_id == str(wallet.pk)


@pytest.mark.engines
@pytest.mark.django_db(transaction=True)
def test_two_credits_of_one_operator_at_once_are_counted_against_one_day(make_player, settings):
    """Each of two credits sent at the same instant is under the day's cap,
    both together are over it: the operator's row is locked before the day's
    sum is read, so the second counts the first and is refused."""
    settings.CASINO_MAX_CREDIT_CHIPS_PER_DAY = 1_000
    operator = get_user_model().objects.create_superuser("racer", "r@example.com", None)
    wallets = [Wallet.objects.get(user=make_player(chips=0)).pk for _ in range(2)]

    def credit(i: int) -> object:
        return do_adjustments(
            wallet_ids=[wallets[i]], amount=600 * 100, reason="race", actor=operator
        )

    results = at_once(2, credit, seconds=30)
    refused = [r for r in results if isinstance(r, GameError)]
    assert len(refused) == 1 and refused[0].code == "credit_day_limit", results
    credited = LedgerEntry.objects.filter(actor=operator, kind="adjustment")
    assert [e.amount for e in credited] == [600 * 100]
    assert sum(Wallet.objects.get(pk=pk).balance for pk in wallets) == 600 * 100
