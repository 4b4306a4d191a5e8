"""A live table whose shoe is already under way, for the tests of what
happens later in a shoe (the squeeze, a shoe's last coup): its first coup
dealt as a new shoe's always is, through one player's seed committed with
their bet and revealed after the close (games/services/live.py)."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model

from games.baccarat.live import seed_commitment
from games.models import Table
from games.services import live
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
