"""What the services count into the casino's metrics (casino/metrics.py).

Counted by the services once a round's transaction has committed: a
rolled-back round never reaches the books, nor the metrics. The RTP watch's
expectation and variance come from the pure core's exact odds
(``bet_moments``, ``tie_bet_moments``), per stake, as the rules pay it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from functools import lru_cache

from casino import metrics
from games.baccarat.odds import bet_moments
from games.models import UNITS_PER_CHIP, Game, Round
from games.money import decimal_pays
from games.war.odds import tie_bet_moments


@lru_cache(maxsize=4096)
def _moments(game: str, area: str, stake: int, pays: tuple[tuple[str, str], ...], decks: int):
    """(mean, variance) of one stake, or None for an area the watch leaves
    out (War's ante and raise: their return depends on the player's choice)."""
    table_pays = decimal_pays(dict(pays))
    if game == Game.BACCARAT:
        return bet_moments(area, stake, table_pays, decks)
    if game == Game.WAR and area == "tie_bet":
        return tie_bet_moments(stake, decks, table_pays)
    return None


def _count(
    game: str,
    table: str,
    book: str,
    bets: Mapping[str, int],
    returns: Mapping[str, int],
    pays: tuple[tuple[str, str], ...],
    decks: int,
) -> None:
    metrics.ROUNDS.labels(game, table, book).inc()
    metrics.STAKED.labels(game, table, book).inc(sum(bets.values()) / UNITS_PER_CHIP)
    metrics.RETURNED.labels(game, table, book).inc(sum(returns.values()) / UNITS_PER_CHIP)
    # Demo rounds too: the same shoes and paytables, so the same odds.
    for area, stake in bets.items():
        moments = _moments(game, area, int(stake), pays, decks) if stake > 0 else None
        if moments is None:
            continue
        mean, variance = moments
        metrics.RTP_BETS.labels(game, table, area).inc()
        metrics.RTP_RETURNED.labels(game, table, area).inc(int(returns.get(area, 0)))
        metrics.RTP_EXPECTED.labels(game, table, area).inc(float(mean))
        metrics.RTP_VARIANCE.labels(game, table, area).inc(float(variance))


def settled(rnd: Round, *, table: str, demo: bool) -> None:
    """Count ``rnd``, settled by a transaction that has just committed
    (its version loaded), played on a demo account or not."""
    version = rnd.version
    pays = tuple(sorted((k, str(v)) for k, v in version.pays.items()))
    book = "demo" if demo else "real"
    _count(rnd.game, table, book, rnd.bets, rnd.returns, pays, version.decks)


def refused(game: str, code: str) -> None:
    metrics.REFUSALS.labels(game, code).inc()


def result_sent(game: str, started: float) -> None:
    """The player's result left the server ``started`` (a time.time()) after BET."""
    metrics.BET_TO_RESULT.labels(game).observe(max(0.0, time.time() - started))
