"""Baccarat rounds: the bet slip's limits, BET (one transaction from the
stakes to the stored round) and the player's table settings.

BET decides everything when it is pressed (SPEC section 7): it validates the
slip, takes the stakes, shuffles the shoe with the player's provably fair
seeds, deals the coup, pays the returns and stores the round, all in one
transaction. The websocket reveal that follows only shows the stored round.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.baccarat.rules import AREAS, Coup, play_coup, settle
from games.cards import FairRng, new_shoe, shuffle
from games.errors import BetRefused, GameError, InsufficientChips
from games.labels import AREA_LABELS
from games.models import UNITS_PER_CHIP, Game, LedgerEntry, Profile, Round, Table, TableVersion
from games.services import wallet as wallet_service
from games.services.faults import maybe_fail
from games.services.rounds import (
    current_version,
    lock_profile,
    lock_wallet,
    next_seq,
    remember,
    require_open,
    round_max_bet,
    take_seeds,
)
from games.services.tables import decimal_pays
from games.display import format_chips

logger = logging.getLogger(__name__)

SIDES = ("player", "banker")
PAIR_OF = {"player": "player_pair", "banker": "banker_pair"}
SETTINGS_FIELDS = ("sound", "effects", "music", "history_panel", "fast_play")
CLIENT_SEED_MAX = 64


def reveal_group(user_id: int) -> str:
    """The Channels group of one player's baccarat sockets (every tab, every table)."""
    return f"baccarat-{user_id}"


# --------------------------------------------------------------------- limits


@dataclass(frozen=True)
class BetLimits:
    """What one round may hold, in units: per-area MIN/MAX and the round's MAX BET."""

    areas: Mapping[str, tuple[int, int]]  # area -> (min, max); only the areas offered
    max_bet: int
    personal: bool  # the MAX BET is the player's own lower limit

    def area_min(self, area: str) -> int:
        return self.areas[area][0]

    def area_max(self, area: str) -> int:
        return self.areas[area][1]


def bet_limits(
    *, user: AbstractBaseUser, version: TableVersion, profile: Profile | None = None
) -> BetLimits:
    """The limits of a round played now under ``version`` by ``user``
    (``profile``: the player's, when the caller has read it already).

    An area is offered when the paytable pays it; a missing limit falls back
    to one chip and the round's MAX BET.
    """
    max_bet, personal = round_max_bet(user, version, profile)
    areas: dict[str, tuple[int, int]] = {}
    for area in AREAS:
        if area not in version.pays:
            continue
        limit = version.limits.get(area) or {}
        areas[area] = (
            int(limit.get("min") or UNITS_PER_CHIP),
            int(limit.get("max") or version.max_bet),
        )
    return BetLimits(areas=areas, max_bet=max_bet, personal=personal)


def _label(area: str) -> str:
    return str(AREA_LABELS.get(area, area))


def _check_area(area: str, limits: BetLimits) -> None:
    if area not in limits.areas:
        raise BetRefused(_("There is no %(area)s bet at this table.") % {"area": area})


def _max_bet_refusal(limits: BetLimits) -> BetRefused:
    amount = format_chips(limits.max_bet)
    if limits.personal:
        return BetRefused(
            _("Your personal max bet is %(max)s chips per round.") % {"max": amount},
            code="max_bet",
        )
    return BetRefused(
        _("The MAX BET for one round is %(max)s chips.") % {"max": amount}, code="max_bet"
    )


def _area_max_refusal(area: str, high: int) -> BetRefused:
    return BetRefused(
        _("The maximum bet on %(area)s is %(max)s chips.")
        % {"area": _label(area), "max": format_chips(high)},
        code="area_max",
    )


def _balance_refusal(total: int, balance: int) -> InsufficientChips:
    return InsufficientChips(
        _("Not enough chips: this bet needs %(total)s and your balance is %(balance)s.")
        % {"total": format_chips(total), "balance": format_chips(balance)}
    )


def _both_sides_refusal() -> BetRefused:
    return BetRefused(
        _("PLAYER and BANKER cannot both be bet in the same round."), code="both_sides"
    )


def check_chip(
    *, bets: Mapping[str, int], area: str, amount: int, limits: BetLimits, balance: int
) -> dict[str, int]:
    """The slip after adding ``amount`` units on ``area``, or a refusal.

    Used while the player builds the slip: a chip that would break PLAYER
    with BANKER, an area's MAX, the MAX BET or the balance is refused at
    once. The area's MIN is only checked at BET (chips are added one by one).
    """
    _check_area(area, limits)
    if amount <= 0 or amount % UNITS_PER_CHIP:
        raise BetRefused(_("Bets are made in whole chips."), code="chips")
    other = {"player": "banker", "banker": "player"}.get(area)
    if other and bets.get(other):
        raise _both_sides_refusal()
    new = dict(bets)
    new[area] = new.get(area, 0) + amount
    if new[area] > limits.area_max(area):
        raise _area_max_refusal(area, limits.area_max(area))
    total = sum(new.values())
    if total > limits.max_bet:
        raise _max_bet_refusal(limits)
    if total > balance:
        raise _balance_refusal(total, balance)
    return new


def check_bets(*, bets: Mapping[str, int], limits: BetLimits, balance: int) -> dict[str, int]:
    """Validate a whole slip at BET; return the stakes (areas with chips only).

    Raises ``BetRefused`` / ``InsufficientChips`` with the first problem found.
    """
    stakes: dict[str, int] = {}
    for area, amount in bets.items():
        _check_area(area, limits)
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise BetRefused(_("Bets are made in whole chips."), code="chips")
        if amount % UNITS_PER_CHIP:
            raise BetRefused(_("Bets are made in whole chips."), code="chips")
        if amount:
            stakes[area] = amount
    if not stakes:
        raise BetRefused(_("Place at least one chip on a bet area."), code="empty")
    if stakes.get("player") and stakes.get("banker"):
        raise _both_sides_refusal()
    for area in AREAS:  # a stable order, so the message does not depend on the dict
        amount = stakes.get(area)
        if amount is None:
            continue
        low, high = limits.areas[area]
        if amount < low:
            raise BetRefused(
                _("The minimum bet on %(area)s is %(min)s chips.")
                % {"area": _label(area), "min": format_chips(low)},
                code="area_min",
            )
        if amount > high:
            raise _area_max_refusal(area, high)
    total = sum(stakes.values())
    if total > limits.max_bet:
        raise _max_bet_refusal(limits)
    if total > balance:
        raise _balance_refusal(total, balance)
    return stakes


def fit_bets(
    *, wanted: Mapping[str, int], limits: BetLimits, balance: int
) -> tuple[dict[str, int], bool]:
    """REBET / REBET x2: the wanted bets lowered to fit each area's MAX, the
    MAX BET and the balance (whole chips); returns (bets, whether any was lowered).

    An area that would end under its MIN is left out (and counts as lowered).
    """
    room = min(limits.max_bet, balance)
    out: dict[str, int] = {}
    capped = False
    total = 0
    for area in AREAS:
        amount = int(wanted.get(area) or 0)
        if amount <= 0:
            continue
        if area not in limits.areas:
            capped = True
            continue
        low, high = limits.areas[area]
        fitted = min(amount, high, room - total)
        fitted -= fitted % UNITS_PER_CHIP
        if fitted != amount:
            capped = True
        if fitted < low or fitted <= 0:
            continue
        out[area] = fitted
        total += fitted
    return out, capped


# -------------------------------------------------------------------- squeeze


@dataclass(frozen=True)
class SqueezeWish:
    """What the player's table screen says about the squeeze at BET.

    ``on``: the SQUEEZE toggle is ON; ``promo``: the promo clip was watched to
    its end during this visit to the table screen (the view checks the visit).
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


def place_bet(
    *,
    user: AbstractBaseUser,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    squeeze: SqueezeWish | None = None,
) -> Round:
    """Play one round from a bet slip; return the stored (settled) round.

    Idempotent per ``slip_key``: a second call with the same key (double
    click, second tab, replayed request) returns the round of the first and
    charges nothing. The database's (player, slip_key) unique constraint is
    the last word when two calls race.

    ``squeeze`` only changes how the reveal is shown (which side's cards the
    player peels); the round is dealt and settled exactly the same.
    """
    slip_key = (slip_key or "").strip()
    if not slip_key or len(slip_key) > 64:
        raise BetRefused(_("This bet slip has expired. Please place your bet again."), code="slip")
    try:
        return do_place_bet(user=user, table=table, bets=bets, slip_key=slip_key, squeeze=squeeze)
    except IntegrityError:
        existing = Round.objects.filter(player=user, slip_key=slip_key).first()
        if existing is None:
            raise
        return existing


@transaction.atomic
def do_place_bet(
    *,
    user: AbstractBaseUser,
    table: Table,
    bets: Mapping[str, int],
    slip_key: str,
    squeeze: SqueezeWish | None = None,
) -> Round:
    """The BET transaction. Takes the player's wallet lock itself (callers
    hold none): validate, take the seeds, deal, settle, post, store."""
    require_open(table)
    wallet = lock_wallet(user)
    # Under the wallet lock a racing request with the same slip has either
    # committed its round (found here) or not started.
    existing = Round.objects.filter(player=user, slip_key=slip_key).first()
    if existing is not None:
        if existing.table_id != table.pk or existing.game != Game.BACCARAT:
            raise BetRefused(
                _("This bet slip has expired. Please place your bet again."), code="slip"
            )
        return existing
    version = current_version(table)
    profile = lock_profile(user)
    limits = bet_limits(user=user, version=version, profile=profile)
    stakes = check_bets(bets=bets, limits=limits, balance=wallet.balance)

    seeds = take_seeds(profile)
    rng = FairRng(seeds.server_seed_bytes, seeds.client_seed, seeds.nonce)
    coup = play_coup(shuffle(new_shoe(version.decks), rng))
    returns = settle(coup, stakes, decimal_pays(version.pays))

    total_bet = sum(stakes.values())
    total_return = sum(returns.values())
    net = total_return - total_bet
    balance_after = wallet.balance + net
    now = timezone.now()
    rnd = Round.objects.create(
        player=user,
        table=table,
        version=version,
        game=Game.BACCARAT,
        status=Round.Status.SETTLED,
        seq=next_seq(user, table),
        slip_key=slip_key,
        server_seed=seeds.server_seed,  # revealed: the round is over
        server_seed_hash=seeds.server_seed_hash,
        client_seed=seeds.client_seed,
        nonce=seeds.nonce,
        bets=stakes,
        returns=returns,
        total_bet=total_bet,
        total_return=total_return,
        balance_before=wallet.balance,
        balance_after=balance_after,
        outcome=(
            Round.Outcome.WIN if net > 0 else Round.Outcome.LOSE if net < 0 else Round.Outcome.PUSH
        ),
        **coup_record(coup, decks=version.decks),
        settled_at=now,
    )
    # Debits first (wallet.post checks the balance covers them), one row per area.
    postings = [
        wallet_service.Posting(LedgerEntry.Kind.BET, -stake, f"baccarat {area}")
        for area, stake in stakes.items()
    ] + [
        wallet_service.Posting(LedgerEntry.Kind.PAYOUT, back, f"baccarat {area}")
        for area, back in returns.items()
        if back > 0
    ]
    posted = wallet_service.post(wallet_id=wallet.pk, postings=postings, round=rnd)
    maybe_fail("baccarat.after_debit")
    if posted != balance_after:  # impossible while the wallet is locked; never store a lie
        raise GameError(_("The round could not be settled. Nothing was taken."), code="fault")
    wallet.balance = posted
    remember(user, wallet=wallet, profile=profile)
    # Decided after the coup is settled and from the stakes only: the squeeze
    # can never change a result, it only pauses the reveal for the peel.
    side = squeeze_side(stakes=stakes, threshold=version.squeeze_threshold, wish=squeeze)
    transaction.on_commit(
        partial(
            send_reveal,
            user_id=user.pk,
            table_slug=table.slug,
            round_id=rnd.pk,
            squeeze=side,
        )
    )
    return rnd


def send_reveal(
    *, user_id: int, table_slug: str, round_id: int, squeeze: str | None = None
) -> None:
    """Tell the player's open tables that a round is ready to be shown;
    ``squeeze`` names the side the player peels ("player" / "banker"), if any.

    Runs after the commit; the round is already settled, so a lost message
    only costs the animation (a reload shows the finished round).
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            reveal_group(user_id),
            {
                "type": "round.reveal",
                "round_id": round_id,
                "table": table_slug,
                "squeeze": squeeze,
            },
        )
    except Exception:  # the channel layer is down: the page still shows the result
        logger.exception("could not send the reveal of round %s", round_id)


# ------------------------------------------------------------ player settings


def check_client_seed(client_seed: str) -> str:
    seed = (client_seed or "").strip()
    if not 1 <= len(seed) <= CLIENT_SEED_MAX or not seed.isprintable():
        raise GameError(
            _("A client seed is 1 to %(max)s printable characters.") % {"max": CLIENT_SEED_MAX},
            code="client_seed",
        )
    return seed


@transaction.atomic
def change_client_seed(*, user: AbstractBaseUser, client_seed: str) -> str:
    """Set the client seed mixed into the player's next shuffles (all games)."""
    seed = check_client_seed(client_seed)
    Profile.objects.filter(user=user).update(client_seed=seed)
    return seed


@transaction.atomic
def save_settings(*, user: AbstractBaseUser, values: Mapping[str, bool]) -> Profile:
    """Store the player's sound / effects / music / history panel / fast play
    (for every game). Open tables pick up a fast-play change at once."""
    profile = Profile.objects.select_for_update().get(user=user)
    changed = [f for f in SETTINGS_FIELDS if f in values and getattr(profile, f) != values[f]]
    for field in changed:
        setattr(profile, field, bool(values[field]))
    if changed:
        profile.save(update_fields=changed)
    if "fast_play" in changed:
        transaction.on_commit(partial(_send_speed, user_id=user.pk, fast=profile.fast_play))
    return profile


def _send_speed(*, user_id: int, fast: bool) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            reveal_group(user_id), {"type": "speed.changed", "fast": fast}
        )
    except Exception:
        logger.exception("could not tell the tables about a fast play change")
