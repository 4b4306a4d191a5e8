"""Baccarat rounds: BET (one transaction from the stakes to the stored
round; the slip is checked by ``services.bets``) and the side a squeeze
peels.

BET decides everything when it is pressed (SPEC section 7): it checks the
slip was made under the paytable and limits in force (the table's version
the page showed), validates the slip, takes the stakes, shuffles the shoe with the player's provably fair
seeds, deals the coup, pays the returns and stores the round, all in one
transaction. The websocket reveal that follows only shows the stored round.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from games.baccarat.odds import rtp
from games.baccarat.rules import Coup, play_coup, settle
from games.cards import FairRng, new_shoe, shuffle
from games.errors import BetRefused
from games.models import Game, LedgerEntry, Profile, Round, Table, TableVersion
from games.money import decimal_pays
from games.services import bets, rounds
from games.services.bets import IN_FORCE, Terms
from games.services.push import baccarat_group
from games.services.wallet import Posting

SIDES = bets.BACCARAT_SIDES
PAIR_OF = {"player": "player_pair", "banker": "banker_pair"}


reveal_group = baccarat_group  # the name the consumer and the tests use


@functools.lru_cache(maxsize=64)
def _rtp(pays: tuple[tuple[str, str], ...], decks: int) -> dict[str, Fraction]:
    return rtp(decimal_pays(dict(pays)), decks)


def table_rtp(version: TableVersion) -> dict[str, Fraction]:
    """Each bet's exact return to player under ``version`` (cached per paytable)."""
    return _rtp(tuple(sorted((k, str(v)) for k, v in version.pays.items())), version.decks)


# -------------------------------------------------------------------- squeeze


@dataclass(frozen=True)
class SqueezeWish:
    """What the player's table screen says about the squeeze at BET.

    ``on``: the SQUEEZE toggle is ON; ``promo``: the promo clip was watched to
    its end during this visit to the table screen (``services.squeeze`` checks
    the visit).
    """

    on: bool = False
    promo: bool = False


def squeeze_unlocked(*, total_bet: int, threshold: int, promo: bool) -> bool:
    """The squeeze is open to a round whose total bet reaches the table's
    threshold (units), or to any round after the promo clip (seed 000)."""
    return promo or total_bet >= threshold


def squeeze_side(
    *, stakes: Mapping[str, int], threshold: int, wish: SqueezeWish | None
) -> str | None:
    """The side whose cards the player peels this round, or None.

    Unlocked, toggled ON, and PLAYER or BANKER bet (never both, so the side is
    the one bet); with only TIE / PAIR bets there is nothing to squeeze.
    """
    if wish is None or not wish.on:
        return None
    total = sum(stakes.values())
    if not total or not squeeze_unlocked(total_bet=total, threshold=threshold, promo=wish.promo):
        return None
    for side in SIDES:
        if stakes.get(side):
            return side
    return None


# ------------------------------------------------------------------------ BET


def coup_record(coup: Coup, *, decks: int) -> dict[str, Any]:
    """The Round fields that describe a dealt coup: cards in deal order, the
    game detail the round page and the roads read, the winner and pairs."""
    return {
        "cards": [str(card) for card in coup.cards_in_deal_order],
        "detail": {
            "player": [str(card) for card in coup.player],
            "banker": [str(card) for card in coup.banker],
            "player_total": coup.player_total,
            "banker_total": coup.banker_total,
            "winner": coup.winner,
            "natural": coup.natural,
            "player_pair": coup.player_pair,
            "banker_pair": coup.banker_pair,
            "decks": decks,
        },
        "winner": coup.winner,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
    }


def stake_postings(stakes: Mapping[str, int]) -> list[Posting]:
    """The ledger's debits of a slip's stakes, one per area."""
    return [
        Posting(LedgerEntry.Kind.BET, -stake, f"baccarat {area}") for area, stake in stakes.items()
    ]


def payout_postings(returns: Mapping[str, int]) -> list[Posting]:
    """The ledger's credits of what each area gave back (none for a lost one)."""
    return [
        Posting(LedgerEntry.Kind.PAYOUT, back, f"baccarat {area}")
        for area, back in returns.items()
        if back > 0
    ]


@dataclass(frozen=True)
class BaccaratDealer:
    """Baccarat's part of the round pipeline (``rounds.place_round``)."""

    bets: Mapping[str, int]
    # The table's version the player's page showed (None: the page sent none).
    shown_version: int | None | Terms = IN_FORCE
    squeeze: SqueezeWish | None = None
    # False when the BET came over the socket that will reveal the round and
    # the player has no other socket at the table: nothing to push to.
    notify_sockets: bool = True
    game: str = Game.BACCARAT

    @property
    def stale_slip(self) -> str:
        return _("This bet slip has expired. Please place your bet again.")

    def shoe_seeds(self) -> None:
        return None  # each round is dealt from the player's own committed seed

    def check(
        self,
        *,
        user: User,
        table: Table,
        version: TableVersion,
        profile: Profile,
        balance: int,
        open_round: bool,  # Baccarat rounds never wait for a decision
    ) -> dict[str, int]:
        if table.live:  # its coups are everybody's: games/services/live.py
            raise BetRefused(
                _("This is a live table: bets go on the coup taking bets."), code="live"
            )
        return bets.check_baccarat_slip(
            bets=self.bets,
            shown=self.shown_version,
            user=user,
            version=version,
            profile=profile,
            chips=table.chips,
            balance=balance,
        )

    def deal(
        self,
        *,
        stakes: dict[str, int],
        seeds: rounds.Seeds,
        version: TableVersion,
        balance: int,
        now: Any,
    ) -> rounds.Dealt:
        rng = FairRng(seeds.server_seed_bytes, seeds.client_seed, seeds.nonce)
        coup = play_coup(shuffle(new_shoe(version.decks), rng))
        returns = settle(coup, stakes, decimal_pays(version.pays))
        return rounds.Dealt(
            status=Round.Status.SETTLED,
            bets=stakes,
            returns=returns,
            postings=stake_postings(stakes) + payout_postings(returns),
            **coup_record(coup, decks=version.decks),
        )

    def pushes(self, rnd: Round) -> list[tuple[str, dict[str, Any]]]:
        """The reveal, to every open tab of the player. The squeeze side is
        decided after the coup is settled and from the stakes only: it can
        never change a result, it only pauses the reveal for the peel."""
        if not self.notify_sockets:
            return []
        side = squeeze_side(
            stakes=rnd.bets, threshold=rnd.version.squeeze_threshold, wish=self.squeeze
        )
        event = {"type": "round.reveal", "round_id": rnd.pk, "table": rnd.table.slug}
        return [(baccarat_group(rnd.player_id), {**event, "squeeze": side})]


def play(
    *,
    user: User,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    shown_version: int | None | Terms = IN_FORCE,
    squeeze: SqueezeWish | None = None,
    notify_sockets: bool = True,
    now: dt.datetime | None = None,
) -> rounds.Placed:
    """Play one round from a bet slip (the answer to BET, over HTTP or the
    table's socket).

    ``shown_version``: the number of the table's version the player's page
    showed (its paytable and limits); a BET from a page sends it, and one
    that is not the version in force (or None: the page sent none) is
    refused with ``bets.TableChanged`` before anything is taken.

    Idempotent per ``slip_key``: a second call with the same key (double
    click, second tab, replayed request) returns the round of the first and
    charges nothing. ``squeeze`` only changes how the reveal is shown (which
    side's cards the player peels); the round is dealt and settled the same.
    ``notify_sockets=False``: no reveal event for the player's sockets (the caller
    shows the reveal itself and no other socket of the player is open).
    ``now``: the round's clock (the present when not given).
    """
    dealer = BaccaratDealer(
        bets=dict(bets),
        shown_version=shown_version,
        squeeze=squeeze,
        notify_sockets=notify_sockets,
    )
    return rounds.place_round(user=user, table=table, slip_key=slip_key, dealer=dealer, now=now)


def place_bet(
    *,
    user: User,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    squeeze: SqueezeWish | None = None,
) -> Round:
    """``play``, for callers that only need the stored (settled) round."""
    return play(user=user, table=table, bets=bets, slip_key=slip_key, squeeze=squeeze).round
