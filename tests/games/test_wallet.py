from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connections, transaction

from games.errors import GameError, InsufficientChips
from games.models import LedgerEntry, Profile, Wallet
from games.services import wallet as wallet_service
from games.services.wallet import Posting, ledger_mismatches, post


def balance_of(user) -> int:
    return Wallet.objects.get(user=user).balance


def test_it_grants_the_starting_chips_exactly_once(make_player):
    user = make_player()
    assert balance_of(user) == 10_000 * 100
    wallet_service.open_account(user=user)
    wallet_service.open_account(user=user)
    grants = LedgerEntry.objects.filter(wallet__user=user, kind=LedgerEntry.Kind.GRANT)
    assert grants.count() == 1
    assert balance_of(user) == 10_000 * 100


def test_an_account_is_opened_when_its_user_is_made(db):
    """Sign-up, the operator's pages and ``createsuperuser`` all make a user:
    each has its wallet, profile and starting chips from that moment, so no
    read has to open one."""
    call_command("createsuperuser", interactive=False, username="boss", email="boss@example.com")
    made = get_user_model().objects.create_user("newcomer", password="pw-Secret-123")
    for user in (get_user_model().objects.get(username="boss"), made):
        assert balance_of(user) == 10_000 * 100
        assert Profile.objects.filter(user=user, demo=False).exists()
        assert (
            LedgerEntry.objects.filter(wallet__user=user, kind=LedgerEntry.Kind.GRANT).count() == 1
        )


@pytest.mark.engines
def test_it_refuses_a_debit_larger_than_the_balance_and_writes_nothing(make_player):
    user = make_player(chips=5)
    rows_before = LedgerEntry.objects.count()
    with pytest.raises(InsufficientChips) as err, transaction.atomic():
        post(wallet_id=user.wallet.pk, postings=[Posting(LedgerEntry.Kind.BET, -501)])
    assert "Not enough chips" in str(err.value)
    assert LedgerEntry.objects.count() == rows_before
    assert balance_of(user) == 500


@pytest.mark.engines
def test_it_records_balance_after_on_every_row(make_player):
    user = make_player(chips=10)
    with transaction.atomic():
        after = post(
            wallet_id=user.wallet.pk,
            postings=[Posting("bet", -300), Posting("bet", -200), Posting("payout", 450)],
        )
    assert after == 1000 - 500 + 450
    rows = list(LedgerEntry.objects.filter(wallet__user=user).order_by("id"))[-3:]
    assert [r.balance_after for r in rows] == [700, 500, 950]


def test_it_keeps_ledger_rows_append_only(make_player):
    user = make_player()
    row = LedgerEntry.objects.filter(wallet__user=user).first()
    row.amount = 1
    with pytest.raises(Exception, match="append-only"):
        row.save()
    with pytest.raises(Exception, match="append-only"):
        row.delete()


def test_it_gives_the_daily_topup_only_at_zero_and_once_a_day(make_player):
    user = make_player(chips=1)
    today = dt.date(2026, 11, 29)
    with pytest.raises(GameError, match="balance is zero"):
        wallet_service.claim_daily_topup(user=user, today=today)
    with transaction.atomic():
        post(wallet_id=user.wallet.pk, postings=[Posting("bet", -100)])
    assert wallet_service.claim_daily_topup(user=user, today=today) == 1000 * 100
    with transaction.atomic():
        post(wallet_id=user.wallet.pk, postings=[Posting("bet", -100_000)])
    with pytest.raises(GameError, match="already claimed"):
        wallet_service.claim_daily_topup(user=user, today=today)
    assert balance_of(user) == 0
    assert (
        wallet_service.claim_daily_topup(user=user, today=today + dt.timedelta(days=1)) == 100_000
    )
    assert LedgerEntry.objects.filter(wallet__user=user, kind="topup").count() == 2


def test_audit_ledger_names_a_wallet_that_does_not_match(make_player):
    good = make_player("good")
    bad = make_player("bad")
    call_command("audit_ledger")
    Wallet.objects.filter(user=bad).update(balance=123)
    with pytest.raises(Exception) as err:
        call_command("audit_ledger")
    assert "1 wallet(s)" in str(err.value)
    assert Wallet.objects.get(user=good).balance == 1_000_000


def test_the_audit_reads_balances_and_ledger_rows_in_one_snapshot(
    make_player, django_assert_num_queries
):
    """One statement, so one snapshot: read as two, a live table's payout
    committed between the sums and the balances named a sound wallet as
    off by that payout while the dealer settled (bench/live.py)."""
    make_player("good")
    bad = make_player("bad")
    Wallet.objects.filter(user=bad).update(balance=123)
    with django_assert_num_queries(1):
        off = ledger_mismatches()
    assert [(wallet.user.username, wallet.balance, total) for wallet, total in off] == [
        ("bad", 123, 1_000_000)
    ]


@pytest.mark.engines
@pytest.mark.django_db(transaction=True)
def test_concurrent_debits_and_credits_lose_no_update(make_player):
    user = make_player(chips=100)  # 10,000 units
    wallet_id = user.wallet.pk
    refused = []
    errors = []

    def worker(n: int) -> None:
        try:
            for i in range(50):
                # Debits outnumber credits so some are refused at zero.
                amount = 37 if (n + i) % 3 == 0 else -61
                try:
                    with transaction.atomic():
                        post(
                            wallet_id=wallet_id, postings=[Posting("adjustment", amount, "stress")]
                        )
                except InsufficientChips:
                    refused.append(1)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    wallet = Wallet.objects.get(pk=wallet_id)
    rows = LedgerEntry.objects.filter(wallet_id=wallet_id)
    assert rows.count() == 1 + 1 + 8 * 50 - len(refused)  # grant, setup, the accepted moves
    assert wallet.balance >= 0
    assert sum(rows.values_list("amount", flat=True)) == wallet.balance
    assert not rows.filter(balance_after__lt=0).exists()
    assert refused, "the load should have hit zero at least once"
    call_command("audit_ledger")


def test_a_wallet_names_its_balance_in_grouped_whole_chips(make_player):
    """As the console's titles and lists show it: never ``1.10007e+08``."""
    wallet = Wallet.objects.get(user=make_player("alice", chips=110_007_000))
    assert str(wallet) == "alice (110,007,000)"
    wallet.balance = 1_050
    assert str(wallet) == "alice (10.50)"
