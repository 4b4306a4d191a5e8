from __future__ import annotations

from django.core.management import call_command
from django.db import transaction

from games.models import LedgerEntry, Round, Table, Wallet
from games.services import rollups
from games.services.rounds import current_version
from games.services.wallet import Posting, post


def half_written_round(user, *, stake: int) -> Round:
    """What a crash between debit and settlement would leave if it were not
    one transaction: an open Baccarat round with its bet taken."""
    table = Table.objects.get(slug="baccarat-classic")
    with transaction.atomic():
        wallet = Wallet.objects.get(user=user)
        rnd = Round.objects.create(
            player=user,
            table=table,
            version=current_version(table),
            game="baccarat",
            status=Round.Status.OPEN,
            seq=1,
            slip_key="crashed",
            server_seed="00" * 32,
            server_seed_hash="x",
            client_seed="c",
            nonce=0,
            bets={"player": stake},
            total_bet=stake,
            balance_before=wallet.balance,
        )
        post(wallet_id=wallet.pk, postings=[Posting(LedgerEntry.Kind.BET, -stake)], round=rnd)
        rollups.record(rnd, before=None)  # kept with the round, as the pipeline does
    return rnd


def test_it_voids_and_refunds_a_half_written_round_exactly_once(make_player, capsys):
    user = make_player(chips=100)
    rnd = half_written_round(user, stake=2_500)
    assert Wallet.objects.get(user=user).balance == 7_500

    call_command("repair_rounds")
    listed = capsys.readouterr().out
    assert f"round {rnd.pk}" in listed and "left open" in listed
    assert Wallet.objects.get(user=user).balance == 7_500  # listing changes nothing

    call_command("repair_rounds", "--refund")
    assert "voided and refunded" in capsys.readouterr().out
    call_command("repair_rounds", "--refund")
    assert "no rounds in an impossible state" in capsys.readouterr().out

    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOID
    assert "left open" in rnd.void_reason
    assert Wallet.objects.get(user=user).balance == 10_000
    assert LedgerEntry.objects.filter(round=rnd, kind="refund").count() == 1
    call_command("audit_ledger")
    call_command("audit_rollups")  # the void took the round out of the player's day


def test_it_leaves_a_sound_settled_round_alone(make_player, capsys):
    user = make_player(chips=100)
    rnd = half_written_round(user, stake=1_000)
    with transaction.atomic():
        post(
            wallet_id=user.wallet.pk, postings=[Posting(LedgerEntry.Kind.PAYOUT, 2_000)], round=rnd
        )
    Round.objects.filter(pk=rnd.pk).update(
        status=Round.Status.SETTLED, total_return=2_000, balance_after=11_000
    )
    call_command("repair_rounds", "--refund")
    assert "no rounds in an impossible state" in capsys.readouterr().out
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.SETTLED
