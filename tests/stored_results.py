"""Finished Baccarat rounds written straight to the database, for tests that
need a player's past rounds without playing them through the site:
``store_results`` for a road history (only the fields the roads read mean
anything), ``settled_coup`` for a whole coup dealt from a real shoe (the
history, the round page, its verification)."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Callable
from decimal import Decimal

from django.db.models import Max
from django.utils import timezone

from games.baccarat import roads as core
from games.baccarat.rules import Coup, play_coup, settle
from games.cards import server_seed_hash
from games.models import Round, Table
from games.services import rollups
from games.services.baccarat import coup_record
from games.verify import derive_shoe


def store_results(
    user, results: list[core.Result], *, slug: str, settled_at: dt.datetime | None = None
) -> None:
    """The player's next rounds at the table, oldest first, one per result."""
    table = Table.objects.get(slug=slug)
    when = settled_at or timezone.now()
    last = Round.objects.filter(player=user, table=table).aggregate(m=Max("seq"))["m"] or 0
    Round.objects.bulk_create(
        Round(
            player=user,
            table=table,
            version_id=table.current_version_id,
            game="baccarat",
            seq=seq,
            slip_key=f"roads-{seq}",
            server_seed="00",
            server_seed_hash="00",
            client_seed="c",
            nonce=seq,
            balance_before=0,
            balance_after=0,
            winner=r.winner,
            player_pair=r.player_pair,
            banker_pair=r.banker_pair,
            cards=["5H", "3S", "KD", "QC"],
            detail={
                "player_total": 5,
                "banker_total": 3,
                "player": ["5H", "KD"],
                "banker": ["3S", "QC"],
            },
            settled_at=when,
        )
        for seq, r in enumerate(results, start=last + 1)
    )


def settled_coup(
    player,
    *,
    bets: dict[str, int],
    client_seed: str,
    slug: str = "baccarat-classic",
    wanted: Callable[[Coup], bool] = lambda coup: True,
    settled_at: dt.datetime | None = None,
    status: str = Round.Status.SETTLED,
    created_at: dt.datetime | None = None,
) -> tuple[Round, Coup]:
    """A Baccarat coup dealt from a real shoe at the table and stored as the
    Baccarat service would store it (settled unless told, played now unless
    told): the player's next seq, a server seed of its own, the first nonce
    from the seq up whose coup is ``wanted``."""
    table = Table.objects.get(slug=slug)
    version = table.current_version
    seq = (Round.objects.filter(player=player, table=table).aggregate(m=Max("seq"))["m"] or 0) + 1
    server_seed = hashlib.sha256(f"{client_seed}-{player.pk}-{seq}".encode()).hexdigest()
    nonce = seq
    while not wanted(coup := play_coup(derive_shoe(server_seed, client_seed, nonce, table.decks))):
        nonce += 1
    returns = settle(coup, bets, {k: Decimal(v) for k, v in version.pays.items()})
    total_bet, total_return = sum(bets.values()), sum(returns.values())
    rnd = Round.objects.create(
        player=player,
        table=table,
        version=version,
        game="baccarat",
        status=status,
        seq=seq,
        slip_key=uuid.uuid4().hex,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(server_seed)),
        client_seed=client_seed,
        nonce=nonce,
        bets=bets,
        returns=returns,
        total_bet=total_bet,
        total_return=total_return,
        balance_before=1_000_000,
        balance_after=1_000_000 - total_bet + total_return,
        outcome=(
            "win" if total_return > total_bet else "lose" if total_return < total_bet else "push"
        ),
        **coup_record(coup, decks=table.decks),
        settled_at=settled_at or timezone.now(),
        created_at=created_at or timezone.now(),
    )
    rollups.record(rnd, before=None)  # the player's kept totals, as the round pipeline keeps them
    return rnd, coup
