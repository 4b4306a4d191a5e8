"""The squeeze: its toggle beside BET, the navigator, and the card peeled."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from django.utils.translation import gettext as _

from games.baccarat.odds import navigator, squeeze_steps
from games.baccarat.rules import play_coup
from games.cards import Card
from games.display import rank_label
from games.models import Round
from games.services.baccarat import PAIR_OF, SIDES, squeeze_unlocked

# ------------------------------------------------------------- the squeeze


@dataclass(frozen=True)
class SqueezeToggle:
    """The SQUEEZE toggle beside BET: locked or unlocked, ON or OFF."""

    on: bool
    unlocked: bool
    by_promo: bool  # unlocked by the clip for this visit (whatever the bet)
    threshold: int  # units the slip must reach
    visit: str


def squeeze_toggle(
    *, threshold: int, on: bool, by_promo: bool, visit: str, total_bet: int = 0
) -> SqueezeToggle:
    return SqueezeToggle(
        on=on,
        unlocked=squeeze_unlocked(total_bet=total_bet, threshold=threshold, promo=by_promo),
        by_promo=by_promo,
        threshold=threshold,
        visit=visit,
    )


@dataclass(frozen=True)
class NumberCell:
    """One points value 0-9 on the navigator."""

    points: int
    hit: bool  # a CHANCE NO. / WIN NO.
    left: int  # unseen cards worth these points (0: it cannot come)
    percent: str  # the side's chance to win if the card is worth these points


@dataclass(frozen=True)
class NavigatorView:
    side: str
    card: int  # 2 or 3
    label: str  # "CHANCE NO." | "WIN NO."
    cells: list[NumberCell]
    numbers: str  # the hits, space separated ("0 8 9")
    pair_ranks: list[str] | None  # PAIR WIN NO. (None: that PAIR was not bet or a 3rd card)


def navigator_view(
    *,
    decks: int,
    player_cards: Sequence[Card],
    banker_cards: Sequence[Card],
    side: str,
    pair_bet: bool,
    seen: Sequence[Card] = (),
) -> NavigatorView:
    """The navigator beside a peeled card, from the shown cards and the shoe
    only (less ``seen``: a live shoe's cards shown in its earlier coups).

    The hidden card is not a parameter, so nothing here can depend on it.
    """
    nav = navigator(decks, player_cards, banker_cards, side, seen=seen)
    hits = set(nav.numbers)
    cells = []
    for value in range(10):
        odds = nav.outcomes.get(value)
        chance = (odds.player if side == "player" else odds.banker) if odds else Fraction(0)
        cells.append(
            NumberCell(
                points=value,
                hit=value in hits,
                left=odds.count if odds else 0,
                # Floored: 100% only when certain, over 50% only when more than half.
                percent=f"{math.floor(chance * 100)}%",
            )
        )
    return NavigatorView(
        side=side,
        card=nav.card,
        label=_("CHANCE NO.") if side == "player" else _("WIN NO."),
        cells=cells,
        numbers=" ".join(str(v) for v in sorted(hits)),
        pair_ranks=[rank_label(r) for r in nav.pair_ranks] if pair_bet and nav.card == 2 else None,
    )


@dataclass(frozen=True)
class PeelView:
    """The squeeze stage while a card waits to be peeled (face not sent yet)."""

    slot: str
    side: str
    card: int  # 2 or 3
    round_id: int
    navigator: NavigatorView


def squeeze_peels(rnd: Round, side: str | None) -> dict[str, PeelView]:
    """The cards the player peels in ``rnd`` (by slot), each with its navigator.

    Only the side bet can be squeezed. The core's ``squeeze_steps`` gives, for
    each peel, the cards shown before it; the peeled card itself is left out
    of the navigator on purpose.
    """
    if side not in SIDES or not rnd.bets.get(side):
        return {}
    coup = play_coup(Card.parse(code) for code in rnd.cards)
    decks = int(rnd.detail.get("decks") or rnd.version.decks)
    pair_bet = bool(rnd.bets.get(PAIR_OF[side]))
    peels: dict[str, PeelView] = {}
    for shown_player, shown_banker, _hidden in squeeze_steps(coup, side):
        number = len(shown_player if side == "player" else shown_banker) + 1
        slot = f"{side[0]}{number}"
        nav = navigator_view(
            decks=decks,
            player_cards=shown_player,
            banker_cards=shown_banker,
            side=side,
            pair_bet=pair_bet,
        )
        peels[slot] = PeelView(slot, side, number, rnd.pk, nav)
    return peels
