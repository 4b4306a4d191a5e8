"""Whether a bet may be placed: the one module that decides it, for both
games, whether BET and DEAL come over HTTP or the table's socket.

A round's limits (``BetLimits``) gather every rule in force for the player
at the table now: each area's MIN and MAX, the round's MAX BET (the
table's, or the player's personal max when lower), the step of a stake,
the game's own rules of a slip (Baccarat: PLAYER and BANKER never both;
War: an ANTE required, raised to the table minimum, and the raise a war
would stake counted in the MAX BET) and the player's own controls
(``BetGate``: a break or a due reality check refuses every bet, a loss
limit bounds what the round may stake; docs/play-safe.md).
``check_bets`` is the one check of a slip against them; ``check_raise``
is War's at the decision, when the raise is staked. Every refusal is
raised before anything is written.

What the page shows of the limits (REBET's fitted slip, the largest ante
that can still go to war, whether WAR can be afforded) comes from here
too, so the page and the check never disagree.
"""

from __future__ import annotations

import datetime as dt
import enum
import zoneinfo
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from games.baccarat.rules import AREAS as BACCARAT_AREAS
from games.display import format_chips
from games.errors import BetRefused, GameError, InsufficientChips
from games.labels import AREA_LABELS
from games.models import UNITS_PER_CHIP, LimitRefusal, LossLimit, PlayBreak, Profile, TableVersion
from games.money import bet_step
from games.presets import WAR_AREAS
from games.selectors.play_safe import (
    LossRoom,
    active_break,
    local_time,
    loss_rooms,
    reality_due,
    tightest,
)

# Refusals by the player's own controls: the operator's report counts them.
LOSS_LIMIT = "loss_limit"
ON_BREAK = "on_break"
REALITY_CHECK = "reality_check"
COUNTED = frozenset({LOSS_LIMIT, ON_BREAK, REALITY_CHECK})

BACCARAT_SIDES = ("player", "banker")


# ------------------------------------------------------------------ the player's controls


@dataclass(frozen=True)
class BetGate:
    """What the player's own controls allow of the next round."""

    blocked: GameError | None = None  # no round at all, and why
    loss: LossRoom | None = None  # the tightest loss limit, when one is set


OPEN_GATE = BetGate()


def break_message(pause: PlayBreak, profile: Profile | None) -> str:
    values = {"until": local_time(pause.ends_at, profile)}
    if pause.kind == PlayBreak.Kind.EXCLUSION:
        return _("You have excluded yourself until %(until)s.") % values
    return _("You are taking a time-out until %(until)s.") % values


def reality_refusal() -> BetRefused:
    return BetRefused(
        _("Time for a reality check: choose how to go on before the next round."),
        code=REALITY_CHECK,
    )


def _room_words(room: LossRoom) -> dict[str, str]:
    """A loss limit's figures as its messages say them, in the player's zone."""
    resets = room.resets_at.astimezone(zoneinfo.ZoneInfo(room.zone))
    return {
        "period": str(LossLimit.Period(room.period).label).lower(),
        "limit": format_chips(room.limit),
        "left": format_chips(room.left),
        "resets": f"{resets:%Y-%m-%d %H:%M} ({room.zone})",
    }


def loss_refusal(room: LossRoom) -> BetRefused:
    return BetRefused(
        _(
            "This bet could take you past your %(period)s loss limit of %(limit)s chips: "
            "%(left)s chips are left until it resets at %(resets)s."
        )
        % _room_words(room),
        code=LOSS_LIMIT,
    )


def loss_closed(limits: BetLimits) -> str:
    """What a table says before any bet when the tightest loss limit leaves
    less than its smallest round ("" when a round fits): no slip could be
    placed, and until when."""
    room = limits.gate.loss
    if room is None or not limits.areas or room.left >= limits.smallest_round():
        return ""
    if not room.left:
        return _(
            "You have reached your %(period)s loss limit of %(limit)s chips. Bets open "
            "again when it resets at %(resets)s."
        ) % _room_words(room)
    return _(
        "Your %(period)s loss limit of %(limit)s chips leaves %(left)s chips, less than "
        "this table's smallest bet. Bets open again when it resets at %(resets)s."
    ) % _room_words(room)


def bet_gate(*, user: User, profile: Profile, now: dt.datetime | None = None) -> BetGate:
    """The player's controls for a round starting ``now``. Reads nothing
    beyond ``profile`` for a player who never set a limit or took a break."""
    now = now or timezone.now()
    if profile.break_until is not None and profile.break_until > now:
        pause = active_break(user, now)
        if pause is not None:
            return BetGate(blocked=BetRefused(break_message(pause, profile), code=ON_BREAK))
    if reality_due(profile, now):
        return BetGate(blocked=reality_refusal())
    room = tightest(loss_rooms(user, profile, now))
    return BetGate(loss=room) if room is not None else OPEN_GATE


def count_refusal(*, user: User, code: str) -> None:
    """Count a refusal by the player's own controls for the operator's
    report (outside the refused round's transaction, which has rolled back)."""
    if code in COUNTED:
        LimitRefusal.objects.create(user=user, code=code)


# ------------------------------------------------------------------ the limits


def round_max_bet(
    user: User, version: TableVersion, profile: Profile | None = None
) -> tuple[int, bool]:
    """The most the player may stake in one round here, and whether it is
    their personal limit (lower than the table's) that sets it. ``profile``,
    when the caller has the player's profile already, saves reading it."""
    if profile is not None:
        personal = profile.personal_max_bet
    else:
        personal = Profile.objects.values_list("personal_max_bet", flat=True).get(user=user)
    if personal is not None and personal < version.max_bet:
        return personal, True
    return version.max_bet, False


@dataclass(frozen=True)
class BetLimits:
    """What one round may hold, in units: per-area MIN/MAX, the round's MAX
    BET (the table's, or the player's personal max when lower) and the step
    of a stake, with the game's own rules of a slip."""

    areas: Mapping[str, tuple[int, int]]  # area -> (min, max); only the areas offered
    max_bet: int
    personal: bool  # the MAX BET is the player's own lower limit
    step: int = UNITS_PER_CHIP  # every stake is a multiple of this (the table's smallest chip)
    required: str | None = None  # the area no bet goes without (War's ANTE)
    raised_to_min: frozenset[str] = frozenset()  # a stake under MIN is raised to it (seed 004)
    exclusive: tuple[str, ...] = ()  # at most one of these per round (PLAYER, BANKER)
    # The area a later decision stakes once more (War's raise equals the
    # ante): the MAX BET bounds the round with it (SPEC section 5).
    staked_again: str | None = None
    # The player's own controls: a break or a due reality check refuses
    # every bet, a loss limit bounds what the round may stake.
    gate: BetGate = OPEN_GATE

    def area_min(self, area: str) -> int:
        return self.areas[area][0]

    def area_max(self, area: str) -> int:
        return self.areas[area][1]

    def most_staked(self, stakes: Mapping[str, int]) -> int:
        """Everything the round may come to stake: the bets, and the raise."""
        again = stakes.get(self.staked_again, 0) if self.staked_again else 0
        return sum(stakes.values()) + again

    def smallest_round(self) -> int:
        """The least a slip can come to stake: the required area at its MIN
        (War's ante, with its raise), or else the area with the lowest MIN."""
        if self.required is not None:
            return self.most_staked({self.required: self.area_min(self.required)})
        return min(self.most_staked({area: low}) for area, (low, _) in self.areas.items())

    def largest_staked_again(self, stakes: Mapping[str, int]) -> int:
        """The largest stake on ``staked_again`` the MAX BET leaves room for
        beside the other ``stakes`` (War: the largest ante that can still go
        to war with this tie bet), within the area's MAX, in whole steps; 0
        when none reaches the area's MIN."""
        if self.staked_again is None or self.staked_again not in self.areas:
            return 0
        low, high = self.areas[self.staked_again]
        others = sum(v for area, v in stakes.items() if area != self.staked_again)
        most = min(high, (self.max_bet - others) // 2)
        most -= most % self.step
        return most if most >= max(low, self.step) else 0


def _limits(
    *,
    user: User,
    version: TableVersion,
    areas: Sequence[str],
    profile: Profile | None,
    chips: Sequence[Any],
    **rules: Any,
) -> BetLimits:
    """The limits of a round played now under ``version`` by ``user`` at a
    table with these ``chips`` (their values set the step of a stake), with
    the game's ``rules`` of a slip. Of the game's ``areas``, those the
    paytable pays are offered; a missing limit falls back to one chip and
    the table's MAX BET."""
    if profile is None:
        profile = Profile.objects.get(user=user)
    max_bet, personal = round_max_bet(user, version, profile)
    offered: dict[str, tuple[int, int]] = {}
    for area in areas:
        if area not in version.pays:
            continue
        limit = (version.limits or {}).get(area) or {}
        offered[area] = (
            int(limit.get("min") or UNITS_PER_CHIP),
            int(limit.get("max") or version.max_bet),
        )
    return BetLimits(
        areas=offered,
        max_bet=max_bet,
        personal=personal,
        step=bet_step(chips),
        gate=bet_gate(user=user, profile=profile),
        **rules,
    )


def baccarat_limits(
    *,
    user: User,
    version: TableVersion,
    profile: Profile | None = None,
    chips: Sequence[Any] = (),
) -> BetLimits:
    """A Baccarat round's limits (``profile``: the player's, when the caller
    has read it already): PLAYER and BANKER never both."""
    return _limits(
        user=user,
        version=version,
        areas=BACCARAT_AREAS,
        profile=profile,
        chips=chips,
        exclusive=BACCARAT_SIDES,
    )


def war_limits(
    *,
    user: User,
    version: TableVersion,
    profile: Profile | None = None,
    chips: Sequence[Any] = (),
) -> BetLimits:
    """A War round's limits: an ANTE is required and raised to the table
    minimum when under it (seed 004), and the MAX BET, the table's or the
    player's own, bounds the ante, the tie bet and the raise a war would
    stake (SPEC section 5)."""
    return _limits(
        user=user,
        version=version,
        areas=WAR_AREAS,
        profile=profile,
        chips=chips,
        required="ante",
        raised_to_min=frozenset({"ante"}),
        staked_again="ante",
    )


# ------------------------------------------------------------------ the terms


class Terms(enum.Enum):
    """A bet no page's terms hold (a test, the drill, a War DEAL naming no
    version): the version in force applies."""

    IN_FORCE = "in force"


IN_FORCE = Terms.IN_FORCE


class TableChanged(BetRefused):
    """A bet made from a page that showed an older version of the table's
    paytable and limits: refused, with what the page needs to show the
    terms in force (the current ``version``, the player's ``limits`` under
    it and the ``balance`` they are shown with)."""

    code = "table_changed"

    def __init__(self, *, version: TableVersion, limits: BetLimits, balance: int) -> None:
        super().__init__(self.message_text())
        self.version = version
        self.limits = limits
        self.balance = balance

    @staticmethod
    def message_text() -> str:
        return _("The table's paytable or limits changed: check the new payouts and bet again.")


def check_terms(
    *, shown: int | None | Terms, version: TableVersion, limits: BetLimits, balance: int
) -> None:
    """A bet is settled only under the version of the table the player saw:
    ``shown``, the version number the page was drawn with (None when the
    client sent none, an old page), must be ``version``, the one in force;
    ``IN_FORCE``: no page's terms to hold the bet to."""
    if shown is not IN_FORCE and shown != version.number:
        raise TableChanged(version=version, limits=limits, balance=balance)


# ------------------------------------------------------------------ the check


@dataclass(frozen=True)
class CheckedBet:
    """A bet that passed ``check_bets``: the stakes (areas with chips only)
    and, for an area whose stake was raised to its MIN, what was asked."""

    stakes: dict[str, int]
    raised_from: dict[str, int]


def _label(area: str) -> str:
    return str(AREA_LABELS.get(area, area))


def _step_refusal(step: int) -> BetRefused:
    if step == UNITS_PER_CHIP:
        return BetRefused(_("Bets are made in whole chips."), code="chips")
    return BetRefused(
        _("Bets are made in steps of %(step)s chips.") % {"step": format_chips(step)},
        code="chips",
    )


def _max_bet_refusal(limits: BetLimits, stakes: Mapping[str, int]) -> BetRefused:
    """Over the MAX BET: the table's or the player's own, and when the raise
    is what does not fit, which stake still allows it."""
    amount = format_chips(limits.max_bet)
    code = "personal_max" if limits.personal else "max_bet"
    if sum(stakes.values()) > limits.max_bet or limits.staked_again is None:
        if limits.personal:
            message = _("Your personal max bet is %(max)s chips per round.")
        else:
            message = _("The MAX BET for one round is %(max)s chips.")
        return BetRefused(message % {"max": amount}, code=code)
    most = limits.largest_staked_again(stakes)
    values = {"max": amount, "area": _label(limits.staked_again), "most": format_chips(most)}
    if not most:
        if limits.personal:
            message = _(
                "Your personal max bet is %(max)s chips per round, a war's raise included: "
                "with this bet no %(area)s can go to war."
            )
        else:
            message = _(
                "The MAX BET for one round is %(max)s chips, a war's raise included: "
                "with this bet no %(area)s can go to war."
            )
    elif limits.personal:
        message = _(
            "Your personal max bet is %(max)s chips per round, a war's raise included: "
            "the largest %(area)s that can still go to war is %(most)s chips."
        )
    else:
        message = _(
            "The MAX BET for one round is %(max)s chips, a war's raise included: "
            "the largest %(area)s that can still go to war is %(most)s chips."
        )
    return BetRefused(message % values, code=code)


def check_bets(*, bets: Mapping[str, int], limits: BetLimits, balance: int) -> CheckedBet:
    """The one check of a bet, for every game, at BET or DEAL: every stake a
    whole number of the table's step on an area offered, at least one chip
    (on the required area), never two exclusive areas, each area within its
    MIN and MAX (or raised to its MIN where the rules say so), everything
    the round may stake (a war's raise included) within the MAX BET, and the
    balance covering the stakes.

    Before all that, the player's own controls: a break or a due reality
    check refuses any bet; after it, a loss limit refuses what could take
    the period's net loss past it, the raise included.

    Raises ``BetRefused`` / ``InsufficientChips`` with the first problem
    found, before anything is written.
    """
    blocked = limits.gate.blocked
    if blocked is not None:
        raise BetRefused(blocked.message, code=blocked.code)
    stakes: dict[str, int] = {}
    for area, amount in bets.items():
        if area not in limits.areas:
            raise BetRefused(
                _("There is no %(area)s bet at this table.") % {"area": area}, code="area"
            )
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise _step_refusal(limits.step)
        if amount % limits.step:
            raise _step_refusal(limits.step)
        if amount:
            stakes[area] = amount
    if limits.required is not None and not stakes.get(limits.required):
        raise BetRefused(
            _("Place at least one chip on %(area)s.") % {"area": _label(limits.required)},
            code="empty",
        )
    if not stakes:
        raise BetRefused(_("Place at least one chip on a bet area."), code="empty")
    both = [area for area in limits.exclusive if stakes.get(area)]
    if len(both) > 1:
        raise BetRefused(
            _("%(first)s and %(second)s cannot both be bet in the same round.")
            % {"first": _label(both[0]), "second": _label(both[1])},
            code="both_sides",
        )
    raised_from: dict[str, int] = {}
    short: list[str] = []  # every area under its MIN, named at once
    for area in limits.areas:  # the table's order, so the message does not depend on the slip's
        if area not in stakes:
            continue
        low, high = limits.areas[area]
        if stakes[area] < low and area in limits.raised_to_min:
            raised_from[area], stakes[area] = stakes[area], low
        if stakes[area] < low:
            short.append(
                _("The minimum bet on %(area)s is %(min)s chips.")
                % {"area": _label(area), "min": format_chips(low)}
            )
        if stakes[area] > high:
            raise BetRefused(
                _("The maximum bet on %(area)s is %(max)s chips.")
                % {"area": _label(area), "max": format_chips(high)},
                code="area_max",
            )
    if short:
        raise BetRefused(" ".join(short), code="area_min")
    if limits.most_staked(stakes) > limits.max_bet:
        raise _max_bet_refusal(limits, stakes)
    room = limits.gate.loss
    if room is not None and limits.most_staked(stakes) > room.left:
        raise loss_refusal(room)
    total = sum(stakes.values())
    if total > balance:
        raise InsufficientChips(
            _("Not enough chips: this bet needs %(total)s and your balance is %(balance)s.")
            % {"total": format_chips(total), "balance": format_chips(balance)}
        )
    return CheckedBet(stakes=stakes, raised_from=raised_from)


def check_baccarat_slip(
    *,
    bets: Mapping[str, int],
    shown: int | None | Terms,
    user: User,
    version: TableVersion,
    profile: Profile,
    chips: Sequence[Any],
    balance: int,
) -> dict[str, int]:
    """A Baccarat slip against everything in force for the player at the
    table (its terms as the page showed them, then ``check_bets``): the
    stakes to take, for a private round and a live coup alike."""
    limits = baccarat_limits(user=user, version=version, profile=profile, chips=chips)
    check_terms(shown=shown, version=version, limits=limits, balance=balance)
    return check_bets(bets=bets, limits=limits, balance=balance).stakes


def fit_bets(
    *, wanted: Mapping[str, int], limits: BetLimits, balance: int
) -> tuple[dict[str, int], bool]:
    """Baccarat's REBET / REBET x2: the wanted bets lowered to fit each
    area's MAX, the MAX BET and the balance (whole steps); returns (bets,
    whether any was lowered).

    An area that would end under its MIN is left out (and counts as lowered).
    """
    room = min(limits.max_bet, balance)
    out: dict[str, int] = {}
    capped = False
    total = 0
    for area in BACCARAT_AREAS:
        amount = int(wanted.get(area) or 0)
        if amount <= 0:
            continue
        if area not in limits.areas:
            capped = True
            continue
        low, high = limits.areas[area]
        fitted = min(amount, high, room - total)
        fitted -= fitted % limits.step
        if fitted != amount:
            capped = True
        if fitted < low or fitted <= 0:
            continue
        out[area] = fitted
        total += fitted
    return out, capped


# ------------------------------------------------------------------ War's raise


def largest_war_ante(limits: BetLimits, *, tie_bet: int = 0) -> int:
    """The largest ante that can still go to war beside ``tie_bet`` (0 when
    none can): what the table says at the bet."""
    return limits.largest_staked_again({"tie_bet": tie_bet})


def can_war(*, balance: int, ante: int) -> bool:
    """Going to war raises the ante again: the player must hold that much."""
    return balance >= ante


def check_raise(*, user: User, ante: int, balance: int, now: dt.datetime) -> None:
    """WAR at a tie's decision stakes the ante once more: the balance must
    cover it, and a loss limit set or lowered since the deal must still
    leave room for it. The raise has counted as lost since the tie: it must
    fit in what was left without it, as any stake must (``check_bets``).
    SURRENDER stakes nothing and is never refused here."""
    if not can_war(balance=balance, ante=ante):
        raise InsufficientChips(
            _(
                "Not enough chips to go to war: the raise is %(raise)s and you have "
                "%(balance)s. You can still surrender."
            )
            % {"raise": format_chips(ante), "balance": format_chips(balance)},
            code="raise_short",
        )
    rooms = loss_rooms(user, Profile.objects.get(user=user), now)
    room = next((room for room in rooms if ante > room.without(ante).left), None)
    if room is not None:
        raise BetRefused(
            _(
                "Going to war could take you past your loss limit of %(limit)s chips. "
                "You can still surrender."
            )
            % {"limit": format_chips(room.limit)},
            code=LOSS_LIMIT,
        )
