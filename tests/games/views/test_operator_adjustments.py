"""The admin's "Adjust balances" screen: a demo wallet is refused with a
message before the form, and a posted one changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import AuditEntry, LedgerEntry, Wallet
from games.services import demo as demo_service
from games.services.staff import set_up_roles
from games.services.wallet import open_account

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


@pytest.fixture
def operator_member(db):
    """A staff member of the Operator role (no superuser), with a wallet."""
    set_up_roles()
    member = get_user_model().objects.create_user("op1", password="pw-Secret-123", is_staff=True)
    member.groups.add(Group.objects.get(name="Operator"))
    open_account(user=member)
    return member


def test_an_operator_cannot_credit_their_own_wallet_or_a_superusers(
    client, operator_member, make_player
):
    client.force_login(operator_member)
    boss = get_user_model().objects.create_superuser("boss", "b@x.example", None)
    open_account(user=boss)
    own, theirs = Wallet.objects.get(user=operator_member), Wallet.objects.get(user=boss)
    player = Wallet.objects.get(user=make_player(chips=10))
    before = {w.pk: w.balance for w in (own, theirs, player)}
    entries = AuditEntry.objects.count()
    for target, words in ((own, "Nobody adjusts their own balance"), (theirs, "staff account")):
        shown = client.get(adjust_url(target), follow=True, **EN)
        assert words in shown.content.decode()
        client.post(adjust_url(target), {"direction": "credit", "amount": "1", "reason": "x"}, **EN)
    assert {w.pk: Wallet.objects.get(pk=w.pk).balance for w in (own, theirs, player)} == before
    assert AuditEntry.objects.count() == entries
    # A player's wallet is the operator's to adjust, with its audit entry.
    client.post(adjust_url(player), {"direction": "credit", "amount": "1", "reason": "x"}, **EN)
    assert Wallet.objects.get(pk=player.pk).balance == before[player.pk] + 100


def test_a_superuser_adjusts_a_staff_wallet_but_not_their_own(op_client, operator_member):
    boss = get_user_model().objects.get(username="operator")
    open_account(user=boss)
    staff_wallet, own = Wallet.objects.get(user=operator_member), Wallet.objects.get(user=boss)
    op_client.post(
        adjust_url(staff_wallet), {"direction": "credit", "amount": "1", "reason": "x"}, **EN
    )
    op_client.post(adjust_url(own), {"direction": "credit", "amount": "1", "reason": "x"}, **EN)
    assert Wallet.objects.get(pk=staff_wallet.pk).balance == staff_wallet.balance + 100
    assert Wallet.objects.get(pk=own.pk).balance == own.balance


def test_an_id_beyond_any_integer_is_no_wallet_not_an_error(op_client):
    shown = op_client.get(reverse("admin:games_wallet_adjust") + "?ids=99999999999999999999")
    assert shown.status_code == 302


def test_a_credit_over_the_most_per_adjustment_is_refused_with_nothing_changed(
    op_client, make_player
):
    wallet = Wallet.objects.get(user=make_player("alice", chips=7_000))
    rows = LedgerEntry.objects.count()
    over = {"direction": "credit", "amount": "10000000.01", "reason": "typo"}
    answer = op_client.post(adjust_url(wallet), over, **EN)
    assert answer.status_code == 400  # the form again, with its refusal
    assert "A credit is at most 10,000,000 chips at a time" in answer.content.decode()
    assert Wallet.objects.get(pk=wallet.pk).balance == 7_000 * 100
    assert LedgerEntry.objects.count() == rows
    assert not AuditEntry.objects.exists()
    # The most itself is credited, and the wallet's page writes the balance
    # in grouped whole chips, as everywhere else (it read "1.0007e+07").
    most = {"direction": "credit", "amount": "10000000", "reason": "jackpot"}
    page = op_client.post(adjust_url(wallet), most, follow=True, **EN).content.decode()
    assert Wallet.objects.get(pk=wallet.pk).balance == 10_007_000 * 100
    assert "alice (10,007,000)" in page
    assert "e+" not in str(Wallet.objects.get(pk=wallet.pk))


def test_the_most_per_credit_is_a_setting(op_client, make_player, settings):
    settings.CASINO_MAX_CREDIT_CHIPS = 500
    wallet = Wallet.objects.get(user=make_player("bob", chips=0))
    answer = op_client.post(
        adjust_url(wallet), {"direction": "credit", "amount": "501", "reason": "x"}, **EN
    )
    assert "A credit is at most 500 chips at a time" in answer.content.decode()
    op_client.post(adjust_url(wallet), {"direction": "credit", "amount": "500", "reason": "x"})
    assert Wallet.objects.get(pk=wallet.pk).balance == 500 * 100


def test_one_staff_account_credits_at_most_the_days_cap_however_it_splits_it(
    op_client, make_player, settings
):
    """The per-adjustment cap again and again, or many wallets at once, stops
    at CASINO_MAX_CREDIT_CHIPS_PER_DAY for what one account credited in 24
    hours; a debit does not count, another operator has a day of their own,
    and the day slides: yesterday's credits no longer count."""
    settings.CASINO_MAX_CREDIT_CHIPS = 400
    settings.CASINO_MAX_CREDIT_CHIPS_PER_DAY = 1_000
    bob = Wallet.objects.get(user=make_player("bob", chips=0))
    carol = Wallet.objects.get(user=make_player("carol", chips=0))

    def credit(*wallets: Wallet, amount: str = "400", client=op_client, direction="credit"):
        posted = {"direction": direction, "amount": amount, "reason": "goodwill"}
        return client.post(adjust_url(*wallets), posted, **EN).content.decode()

    credit(bob)
    credit(bob, amount="50", direction="debit")  # a debit is not a credit
    credit(carol)
    rows = LedgerEntry.objects.count()
    refused = credit(bob)  # 1,200 > 1,000
    assert "You have credited 800 chips in the last 24 hours" in refused
    assert "at most 1,000 a day" in refused
    refused = credit(bob, carol, amount="101")  # two wallets: 1,002
    assert "You have credited 800 chips" in refused
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(pk=bob.pk).balance == 350 * 100
    credit(bob, carol, amount="100")  # exactly the day's cap
    assert Wallet.objects.get(pk=carol.pk).balance == 500 * 100

    other = Client()
    other.force_login(get_user_model().objects.create_superuser("second", "s@x.example", None))
    credit(carol, client=other)
    assert Wallet.objects.get(pk=carol.pk).balance == 900 * 100

    LedgerEntry.objects.filter(reason="goodwill", actor__username="operator").update(
        created_at=timezone.now() - timedelta(days=1, seconds=1)
    )
    credit(bob)
    assert Wallet.objects.get(pk=bob.pk).balance == 850 * 100
