"""A commitment becomes a pending leaf in the transaction that stores it.

The leaf's bytes (version 1), six lines each ending in a newline::

    casino-commitment/1
    commitment <SHA-256 of the server seed, 64 lowercase hex, as the table shows it>
    nonce <the nonce of the round the seed will be drawn for>
    game <baccarat | war | ->
    table <table slug | ->
    player <the player's pseudonym, 32 lowercase hex | - for a live table's shoe>

The statement runs with the one that stores the seed (the round's, on
PostgreSQL in the same statement): a commitment whose leaf is not stored is
rolled back with it, so it is never shown and never played. The integrator
(commitlog/integrator.py) gives it its index within seconds.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from commitlog import integrator
from commitlog.keys import pseudonym
from commitlog.models import Leaf

OUTSIDE_A_TABLE = "-"


def leaf_bytes(*, commitment: str, nonce: int, game: str, table: str, player: str) -> bytes:
    return (
        f"casino-commitment/1\ncommitment {commitment}\nnonce {nonce}\n"
        f"game {game}\ntable {table}\nplayer {player}\n"
    ).encode()


def pending_leaf(
    *,
    commitment: str,
    nonce: int,
    player_pk: int | None = None,
    game: str = OUTSIDE_A_TABLE,
    table: str = OUTSIDE_A_TABLE,
) -> tuple[str, list[Any]]:
    """The INSERT of a commitment's pending leaf, to run with the seed's own
    statement (``wallet.post_round``'s ``with_round``). The first one starts
    this process's integrator. A live table's shoe (``player_pk`` None)
    belongs to no player: its nonce is the shoe's number at the table."""
    player = OUTSIDE_A_TABLE if player_pk is None else pseudonym(player_pk)
    data = leaf_bytes(commitment=commitment, nonce=nonce, game=game, table=table, player=player)
    integrator.wake()
    name = connection.ops.quote_name(Leaf._meta.db_table)
    return (
        f"INSERT INTO {name} (data, commitment) VALUES (%s, %s)",  # noqa: S608 - names are ours
        [data, commitment],
    )


def append_pending(**fields: Any) -> None:
    """Store a pending leaf now (a commitment made outside a round)."""
    sql, params = pending_leaf(**fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
