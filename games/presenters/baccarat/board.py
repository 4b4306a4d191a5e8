"""The Baccarat board: the cards dealt, the scores, the result banner, and
the bet areas with their limits and REBET."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.safestring import SafeString

from games.baccarat.rules import AREAS, points
from games.cards import Card
from games.labels import AREA_LABELS, WINNER_LABELS
from games.models import Round
from games.presenters.common import (
    CardFace,
    card_face,
    fragment_memo,
    pay_label,
    render_fragment,
    script_json,
)
from games.services.bets import BetLimits

TEMPLATE = "baccarat/table.html"
# Card slots on the board, per side, in the order they sit on the felt.
PLAYER_SLOTS = ("p1", "p2", "p3")
BANKER_SLOTS = ("b1", "b2", "b3")


def fragment(name: str, context: Mapping[str, Any]) -> str:
    """One partial of the table template (the page's, BET's and the reveal's)."""
    return render_fragment(TEMPLATE, name, context)


# A card in its slot (table.html#card): 6 slots x 52 faces x fresh, plus
# backs and empty slots, per language.
cards_html = fragment_memo(TEMPLATE, "card", "card", maxsize=2048)


# --------------------------------------------------------------- the board


def deal_order(rnd: Round) -> list[tuple[str, str]]:
    """(slot, card) in the order the cards were dealt: P1, B1, P2, B2, then thirds."""
    player, banker = rnd.detail["player"], rnd.detail["banker"]
    order = [("p1", player[0]), ("b1", banker[0]), ("p2", player[1]), ("b2", banker[1])]
    if len(player) > 2:
        order.append(("p3", player[2]))
    if len(banker) > 2:
        order.append(("b3", banker[2]))
    return order


def side_score(rnd: Round, shown: int, side: str) -> int | None:
    """A side's total over its cards among the first ``shown`` of the deal (None: none open)."""
    prefix = side[0]
    opened = [code for slot, code in deal_order(rnd)[:shown] if slot[0] == prefix]
    if not opened:
        return None
    return sum(points(Card.parse(code)) for code in opened) % 10


@dataclass(frozen=True)
class ResultView:
    winner: str
    label: str
    player_total: int
    banker_total: int
    natural: bool
    player_pair: bool
    banker_pair: bool
    total_bet: int
    total_return: int
    net: int
    outcome: str
    outcome_label: str
    round_id: int


def result_view(rnd: Round) -> ResultView:
    return ResultView(
        winner=rnd.winner,
        label=str(WINNER_LABELS.get(rnd.winner, rnd.winner)),
        player_total=rnd.detail["player_total"],
        banker_total=rnd.detail["banker_total"],
        natural=rnd.detail.get("natural", False),
        player_pair=rnd.player_pair,
        banker_pair=rnd.banker_pair,
        total_bet=rnd.total_bet,
        total_return=rnd.total_return,
        net=rnd.net,
        outcome=rnd.outcome,
        outcome_label=str(Round.Outcome(rnd.outcome).label) if rnd.outcome else "",
        round_id=rnd.pk,
    )


@dataclass(frozen=True)
class BoardView:
    player_cards: list[CardFace]
    banker_cards: list[CardFace]
    player_score: int | None
    banker_score: int | None
    result: ResultView | None

    @property
    def player_html(self) -> str:
        return cards_html(self.player_cards)

    @property
    def banker_html(self) -> str:
        return cards_html(self.banker_cards)


def board_view(rnd: Round | None, *, shown: int | None = None) -> BoardView:
    """The board with the first ``shown`` cards of ``rnd`` open (all when None).

    Cards not open yet lie face down if they are among the first four, and
    are not on the table yet if they are third cards. Without a round: an
    empty table, or with ``shown=0`` the first four cards face down (as any
    round's board at ``shown=0``).
    """
    if rnd is None:
        first_four = "back" if shown == 0 else "empty"
        return BoardView(
            [CardFace(slot, first_four if slot != "p3" else "empty") for slot in PLAYER_SLOTS],
            [CardFace(slot, first_four if slot != "b3" else "empty") for slot in BANKER_SLOTS],
            None,
            None,
            None,
        )
    order = deal_order(rnd)
    if shown is None:
        shown = len(order)
    faces: dict[str, CardFace] = {}
    for i, (slot, code) in enumerate(order):
        if i < shown:
            faces[slot] = card_face(slot, code)
        elif i < 4:
            faces[slot] = CardFace(slot, "back")
    return BoardView(
        player_cards=[faces.get(slot, CardFace(slot, "empty")) for slot in PLAYER_SLOTS],
        banker_cards=[faces.get(slot, CardFace(slot, "empty")) for slot in BANKER_SLOTS],
        player_score=side_score(rnd, shown, "player"),
        banker_score=side_score(rnd, shown, "banker"),
        result=result_view(rnd) if shown >= len(order) else None,
    )


# ------------------------------------------------------------ bet areas


@dataclass(frozen=True)
class AreaView:
    area: str
    label: str
    min: int
    max: int
    pay: str


def area_views(limits: BetLimits, pays: Mapping[str, Any]) -> list[AreaView]:
    return [
        AreaView(
            area=area,
            label=str(AREA_LABELS[area]),
            min=limits.area_min(area),
            max=limits.area_max(area),
            pay=pay_label(pays[area]),
        )
        for area in AREAS
        if area in limits.areas
    ]


def slip_limits_json(limits: BetLimits, balance: int) -> SafeString:
    """What the browser's bet slip checks each chip against (units); the
    server checks the whole slip again at BET."""
    return script_json(
        {
            "areas": {area: [low, high] for area, (low, high) in limits.areas.items()},
            "max_bet": limits.max_bet,
            "step": limits.step,
            "balance": balance,
        }
    )


@dataclass(frozen=True)
class Rebet:
    """REBET and REBET x2: the player's last settled bets, fitted to the
    limits and the balance now (``services.bets.fit_bets``)."""

    once: dict[str, int]
    twice: dict[str, int]
    once_capped: bool
    twice_capped: bool

    @property
    def json(self) -> SafeString:
        return script_json(
            {
                "once": self.once,
                "twice": self.twice,
                "once_capped": self.once_capped,
                "twice_capped": self.twice_capped,
            }
        )
