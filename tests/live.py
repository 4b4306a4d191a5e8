"""Live tables at a later point of their shoe, for the tests of what
happens there: a shoe under way (its first coup dealt as a new shoe's
always is, through one player's seed committed with their bet and revealed
after the close: games/services/live.py), or a shoe dealt to its end."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.baccarat.live import deal_coups, seed_commitment, shoe_order
from games.models import Coup, Round, Shoe, Table
from games.services import live
from games.services.baccarat import coup_record
from games.services.rounds import current_version
from games.services.wallet import open_account

SEED = "a-seed-for-a-shoe-under-way"


def shoe_under_way(table: Table, player=None, *, next_opens_at: dt.datetime) -> None:
    """Deal the table's new shoe's first coup (``player``, or a player of
    its own, bets 10 on PLAYER) so that its next coup opens at ``next_opens_at``."""
    if player is None:
        player = get_user_model().objects.create(username=f"shoe-seeder-{table.pk}")
        open_account(user=player)
    window = dt.timedelta(seconds=current_version(table).betting_seconds)
    reveal = dt.timedelta(seconds=live.REVEAL_SECONDS)
    start = next_opens_at - window - reveal - dt.timedelta(seconds=live.RESULT_SECONDS)
    assert live.advance(table, now=start).did == "opened"
    live.place_bet(
        user=player,
        table=table,
        bets={"player": 1_000},
        slip_key="under-way",
        commit=seed_commitment(SEED),
        now=start,
    )
    assert live.advance(table, now=start + window).did == "revealing"
    live.reveal(user=player, table=table, seed=SEED, now=start + window)
    assert live.advance(table, now=start + window + reveal).did == "dealt"


def finish_shoe(shoe_id: int, *, now: dt.datetime | None = None) -> None:
    """Deal the rest of a live shoe at once, to its cut card, as its dealer
    would with nobody betting (the tests that need a published shoe, without
    waiting out eighty windows). A window the dealer opened on it since,
    with no bet, is taken away first."""
    now = now or timezone.now()
    with transaction.atomic():
        shoe = Shoe.objects.select_for_update().get(pk=shoe_id)
        empty = Coup.objects.filter(shoe=shoe, status=Coup.Status.BETTING)
        assert not Round.objects.filter(coup__in=empty).exists(), "a bet waits on the shoe"
        empty.delete()
        number = shoe.coups.order_by("-number").values_list("number", flat=True).first() or 0
        order = shoe_order(bytes.fromhex(shoe.server_seed), shoe.entropy, shoe.decks)
        for dealt in deal_coups(order):
            if dealt.start < shoe.position:
                continue
            number += 1
            record = coup_record(dealt.coup, decks=shoe.decks)
            Coup.objects.create(
                shoe=shoe,
                table=shoe.table,
                number=number,
                status=Coup.Status.DEALT,
                opens_at=now,
                closes_at=now,
                dealt_at=now,
                start=dealt.start,
                cards=record["cards"],
                detail=record["detail"],
                winner=record["winner"],
                player_pair=record["player_pair"],
                banker_pair=record["banker_pair"],
            )
            shoe.position = dealt.end
        shoe.ended_at = now
        shoe.save(update_fields=["position", "ended_at"])
