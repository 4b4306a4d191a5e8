"""``manage.py cleanup_demo`` deletes demo accounts a day after their last
use, with their profile, wallet, ledger rows and rounds, and nothing else:
not a fresh demo, not a demo played an hour ago, not a real player idle for
a week, nor a demo the audit log names."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from games.errors import GameError
from games.models import AuditEntry, LedgerEntry, Profile, Round, Table, Wallet
from games.services import baccarat as baccarat_service
from games.services import demo as demo_service
from games.services.wallet import Posting, adjust_balance, ledger_mismatches, post

pytestmark = pytest.mark.django_db


def played(user, n: int = 3) -> None:
    table = Table.objects.get(slug="baccarat-social")
    for i in range(n):
        baccarat_service.place_bet(
            user=user, table=table, bets={"banker": 1_000}, slip_key=f"{user.pk}-{i}"
        )


def age(user, *, days: float, login: bool = True, rounds: bool = True) -> None:
    """Move the user's activity ``days`` into the past."""
    then = timezone.now() - dt.timedelta(days=days)
    get_user_model().objects.filter(pk=user.pk).update(
        date_joined=then, last_login=then if login else None
    )
    if rounds:
        Round.objects.filter(player=user).update(created_at=then)
        # Ledger rows are append-only for the application; a test may age them.
        LedgerEntry.objects.filter(wallet__user=user).update(created_at=then)


def test_it_deletes_old_demos_with_their_rows_and_nothing_else(make_player):
    old_demo = demo_service.start_demo()
    played(old_demo)
    age(old_demo, days=2)
    never_logged_in = demo_service.start_demo()
    age(never_logged_in, days=1.5, login=False)

    fresh_demo = demo_service.start_demo()
    played(fresh_demo)
    recent_round = demo_service.start_demo()
    played(recent_round)
    age(recent_round, days=3, rounds=False)  # logged in long ago, but played just now

    idle_player = make_player("idle")
    played(idle_player)
    age(idle_player, days=30)
    staff = get_user_model().objects.create_user("boss", is_staff=True)
    get_user_model().objects.filter(pk=staff.pk).update(
        date_joined=timezone.now() - dt.timedelta(days=90)
    )

    stale = [old_demo.pk, never_logged_in.pk]
    kept_rounds = set(Round.objects.exclude(player__in=stale).values_list("pk", flat=True))
    kept_entries = set(
        LedgerEntry.objects.exclude(wallet__user__in=stale).values_list("pk", flat=True)
    )
    stale_entries = LedgerEntry.objects.filter(wallet__user__in=stale).count()

    out = StringIO()
    call_command("cleanup_demo", stdout=out)
    assert (
        f"2 demo account(s) unused for 24 h deleted, with 3 round(s) and {stale_entries} "
        "ledger row(s)" in out.getvalue()
    )

    users = set(get_user_model().objects.values_list("username", flat=True))
    assert old_demo.username not in users and never_logged_in.username not in users
    assert {fresh_demo.username, recent_round.username, "idle", "boss"} <= users
    for gone in (old_demo, never_logged_in):
        assert not Profile.objects.filter(user_id=gone.pk).exists()
        assert not Wallet.objects.filter(user_id=gone.pk).exists()
    assert set(Round.objects.values_list("pk", flat=True)) == kept_rounds
    assert set(LedgerEntry.objects.values_list("pk", flat=True)) == kept_entries
    assert ledger_mismatches() == []

    again = StringIO()
    call_command("cleanup_demo", stdout=again)
    assert "0 demo account(s)" in again.getvalue()


def test_a_deleted_demos_browser_gets_the_new_demo_page(client):
    client.post("/demo/start/")
    demo = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    age(demo, days=2)
    call_command("cleanup_demo", stdout=StringIO())
    response = client.get("/account/")
    assert response.status_code == 302
    assert response["Location"].startswith("/demo/expired/")


def test_a_demo_the_audit_log_names_is_kept_whole(make_player):
    """The issue's attack: an operator's adjustment on a demo wallet was
    deleted with the demo a day later, leaving an audit entry that pointed
    at nothing. The adjustment screen now refuses demo wallets; one made
    before (the rows the old service wrote) keeps its demo, with
    wallet, ledger rows and rounds, so the entry still names it."""
    operator = get_user_model().objects.create_superuser("operator", "op@example.com", None)
    adjusted = demo_service.start_demo()
    played(adjusted, n=2)
    with pytest.raises(GameError, match="demo account"):  # refused today, at the service
        adjust_balance(user=adjusted, amount=5_000, reason="goodwill", actor=operator)
    # ... and made before that refusal existed: the rows the old service wrote.
    with transaction.atomic():
        demo_wallet = Wallet.objects.get(user=adjusted)
        post(
            wallet_id=demo_wallet.pk,
            postings=[Posting(LedgerEntry.Kind.ADJUSTMENT, 5_000, "goodwill")],
            actor=operator,
        )
        AuditEntry.objects.create(
            actor=operator,
            action="wallet.adjust",
            object_type="wallet",
            object_id=str(demo_wallet.pk),
            object_repr=adjusted.username,
            after={"amount": 5_000, "reason": "goodwill"},
        )
    named = demo_service.start_demo()  # an account change names the player
    AuditEntry.objects.create(
        actor=operator,
        action="player.deactivate",
        object_type="player",
        object_id=str(named.pk),
        object_repr=named.username,
    )
    forgotten = demo_service.start_demo()
    for demo in (adjusted, named, forgotten):
        age(demo, days=2)
    wallet = Wallet.objects.get(user=adjusted)
    rows = set(LedgerEntry.objects.filter(wallet=wallet).values_list("pk", flat=True))
    rounds = set(Round.objects.filter(player=adjusted).values_list("pk", flat=True))

    out = StringIO()
    call_command("cleanup_demo", stdout=out)
    assert "1 demo account(s) unused for 24 h deleted" in out.getvalue()
    assert "2 kept because the audit log names them" in out.getvalue()

    assert not get_user_model().objects.filter(pk=forgotten.pk).exists()
    entry = AuditEntry.objects.get(object_type="wallet")
    assert Wallet.objects.get(pk=int(entry.object_id)).user_id == adjusted.pk
    assert set(LedgerEntry.objects.filter(wallet=wallet).values_list("pk", flat=True)) == rows
    assert set(Round.objects.filter(player=adjusted).values_list("pk", flat=True)) == rounds
    assert get_user_model().objects.filter(pk=named.pk).exists()
    assert Wallet.objects.filter(user=named).exists()
    assert ledger_mismatches() == []
