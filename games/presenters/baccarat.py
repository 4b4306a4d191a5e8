"""The Baccarat table's view models: the board, the bet areas, the roads,
the squeeze (toggle, navigator, peeled card) and the context of each partial
of ``baccarat/table.html`` that the page, BET's answer and the websocket
reveal render."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from django.urls import get_script_prefix
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.baccarat.odds import navigator, squeeze_steps
from games.baccarat.rules import AREAS, play_coup, points
from games.cards import Card, server_seed_hash
from games.display import is_red, rank_label, suit_symbol
from games.labels import AREA_LABELS, WINNER_LABELS
from games.models import Profile, Round, Table, TableVersion
from games.presenters.common import (
    CardFace,
    card_face,
    chip_views,
    fragment_memo,
    pay_label,
    render_fragment,
    script_json,
    settled_kind,
)
from games.selectors.roads import RoadWindow
from games.services.baccarat import PAIR_OF, SIDES, BetLimits, squeeze_unlocked

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
    limits and the balance now (``services.baccarat.fit_bets``)."""

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


# ---------------------------------------------------------------- roads


BEAD_MARKS = {"player": "P", "banker": "B", "tie": "T"}


class RoadCell(NamedTuple):
    """One mark of a road, ready for the template (road_cells.html#cell):
    its classes, its grid area ("row / col", 1-based), its letter or tie
    count. The values come from fixed vocabularies (no user text), so the
    partial prints them unescaped."""

    css: str
    area: str
    mark: str
    ties: int


ASK_MARKS = {"player": "P", "banker": "B"}


class RoadMark(NamedTuple):
    """What a road cell shows, as the key of its rendered HTML: the road
    ("bead_plate", "big_road" or "derived"), the side of an ask mark ("" for
    a mark of the road) and the roads module's cell (cut to the window)."""

    road: str
    ask: str
    cell: Any


def road_cell(mark: RoadMark) -> RoadCell:
    """A road's mark, or the hidden mark one more PLAYER or BANKER win would
    add (shown, blinking, while "Ask P" / "Ask B" is pressed: static/js/roads.js).

    Ask marks' classes start with ``ask-mark``, never ``bead`` or ``ring``, so
    they are not counted as marks of the road."""
    road, side, c = mark
    area = f"{c.row + 1} / {c.col + 1}"
    if side:
        prefix = f"ask-mark ask-mark-{side}"
        if road == "bead_plate":
            return RoadCell(f"{prefix} ask-bead w-{side}", area, ASK_MARKS[side], 0)
        if road == "big_road":
            return RoadCell(f"{prefix} ask-ring w-{side}", area, "", 0)
        return RoadCell(f"{prefix} d-{c.colour}", area, "", 0)
    if road == "bead_plate":
        return RoadCell(f"bead w-{c.winner}{_pairs(c)}", area, BEAD_MARKS[c.winner], 0)
    if road == "big_road":
        return RoadCell(f"ring w-{c.winner or 'none'}{_pairs(c)}", area, "", c.ties)
    return RoadCell(f"d-{c.colour}", area, "", 0)


# A screen shows several hundred cells at every round's end, nearly all of
# them shown the round before: each distinct cell is rendered once. There are
# a few thousand (grid positions x colours, pairs and tie counts).
road_html = fragment_memo("baccarat/road_cells.html", "cell", "c", maxsize=32768, view=road_cell)
# The same at every round's end but for the language (and the site's script
# prefix, in its URL): reversing the URL alone cost more than the rest of it.
history_head = fragment_memo(TEMPLATE, "history_head", "script_prefix", maxsize=16)


def _pairs(cell: Any) -> str:
    return (" pp" if cell.player_pair else "") + (" bp" if cell.banker_pair else "")


def road_marks(window: RoadWindow, name: str, cells: Sequence[Any]) -> list[RoadMark]:
    """A road's marks in order, then its hidden ask marks (PLAYER, BANKER)."""
    road = name if name in ("bead_plate", "big_road") else "derived"
    marks = [RoadMark(road, "", cell) for cell in cells]
    for side, asked in window.ask.items():
        cell = asked.get(name)
        if cell is not None:
            marks.append(RoadMark(road, side, cell))
    return marks


@dataclass(frozen=True, slots=True)
class AskButton:
    """An Ask button and the derived marks it would add (shown on the button)."""

    side: str
    label: str
    marks: list[tuple[str, str]]  # (road class: eye | small | roach, colour)


DERIVED_CLASSES = (("big_eye_boy", "eye"), ("small_road", "small"), ("cockroach_pig", "roach"))


class RoadsView:
    """A road window laid out for the template: each road's marks followed by
    its hidden ask marks."""

    def __init__(self, window: RoadWindow) -> None:
        self.window = window
        self.rounds = window.rounds
        self.percentages = window.percentages
        self.history = window.history
        # Dicts of text for the template loop: a key is found at the first
        # try, and a number is printed through localize() (several times the
        # cost of a string; the same digits without a thousand separator).
        self.history_lines = [
            {
                "seq": str(line.seq),
                "winner": line.winner,
                "player_total": str(line.player_total),
                "banker_total": str(line.banker_total),
            }
            for line in window.history
        ]
        self.ask = window.ask
        self.bead_plate = window.bead_plate
        self.big_road = window.big_road
        self.derived = window.derived
        # Each road's grid content: its marks, then its ask marks.
        self.bead_html = road_html(road_marks(window, "bead_plate", window.bead_plate.cells))
        self.big_html = road_html(road_marks(window, "big_road", window.big_road.cells))
        self.big_eye_boy_html = self._derived("big_eye_boy")
        self.small_road_html = self._derived("small_road")
        self.cockroach_pig_html = self._derived("cockroach_pig")
        self.ask_buttons = [
            AskButton(
                side,
                _("Ask P") if side == "player" else _("Ask B"),
                [
                    (css, marks[name].colour)
                    for name, css in DERIVED_CLASSES
                    if marks.get(name) is not None
                ],
            )
            for side, marks in window.ask.items()
        ]

    @property
    def history_head(self) -> str:
        """The score history panel's head (its close button)."""
        return history_head([get_script_prefix()])

    def _derived(self, name: str) -> str:
        road = self.window.derived.get(name)
        if road is None:
            return ""
        return road_html(road_marks(self.window, name, road.cells))


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
) -> NavigatorView:
    """The navigator beside a peeled card, from the shown cards and the shoe only.

    The hidden card is not a parameter, so nothing here can depend on it.
    """
    nav = navigator(decks, player_cards, banker_cards, side)
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


@dataclass(frozen=True)
class Pip:
    x: int  # percent of the card's width
    y: int  # percent of the card's height
    flip: bool  # upside down (lower half, as printed on a real card)


# Where the suit symbols sit on a real card (the index corners stay clear).
_L, _C, _R = 30, 50, 70
PIP_LAYOUTS: dict[str, tuple[tuple[int, int], ...]] = {
    "A": ((_C, 50),),
    "2": ((_C, 18), (_C, 82)),
    "3": ((_C, 18), (_C, 50), (_C, 82)),
    "4": ((_L, 18), (_R, 18), (_L, 82), (_R, 82)),
    "5": ((_L, 18), (_R, 18), (_C, 50), (_L, 82), (_R, 82)),
    "6": ((_L, 18), (_R, 18), (_L, 50), (_R, 50), (_L, 82), (_R, 82)),
    "7": ((_L, 18), (_R, 18), (_C, 34), (_L, 50), (_R, 50), (_L, 82), (_R, 82)),
    "8": ((_L, 18), (_R, 18), (_C, 34), (_L, 50), (_R, 50), (_C, 66), (_L, 82), (_R, 82)),
    "9": ((_L, 18), (_R, 18), (_L, 39), (_R, 39), (_C, 50), (_L, 61), (_R, 61), (_L, 82), (_R, 82)),
    "T": (
        (_L, 18), (_R, 18), (_C, 29), (_L, 39), (_R, 39),
        (_L, 61), (_R, 61), (_C, 71), (_L, 82), (_R, 82),
    ),
}  # fmt: skip
# Court cards show a figure, not a letter: the rank shows when the card is open.
COURT_FIGURES = {"J": "♞", "Q": "♛", "K": "♚"}


@dataclass(frozen=True)
class PeelFace:
    """The peeled card's face, sent only once the player starts to peel it."""

    slot: str
    code: str
    rank: str
    suit: str
    red: bool
    pips: list[Pip]
    figure: str  # J / Q / K: the court figure; "" for pip cards


def peel_face(slot: str, code: str) -> PeelFace:
    card = Card.parse(code)
    return PeelFace(
        slot=slot,
        code=str(card),
        rank=rank_label(card.rank),
        suit=suit_symbol(card.suit),
        red=is_red(card.suit),
        pips=[Pip(x, y, y > 50) for x, y in PIP_LAYOUTS.get(card.rank, ())],
        figure=COURT_FIGURES.get(card.rank, ""),
    )


# ------------------------------------------------------------ contexts


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


def rules_context(
    *,
    table: Table,
    version: TableVersion,
    limits: BetLimits,
    returns: Mapping[str, Fraction],
    generated_at: dt.datetime,
) -> dict[str, Any]:
    """The rules page: this table's paytable, limits and each bet's exact RTP,
    stamped with the paytable version (number, id, when it was made) and the
    time the page was generated, so a saved or printed copy says what it shows."""
    rows = [
        {
            "area": area,
            "label": AREA_LABELS[area],
            "pay": pay_label(version.pays[area]),
            "min": limits.area_min(area),
            "max": limits.area_max(area),
            "rtp": percent(returns[area]),
        }
        for area in AREAS
        if area in limits.areas
    ]
    return {
        "table": table,
        "version": version,
        "rows": rows,
        "limits": limits,
        "generated_at": generated_at,
    }


def fairness_context(
    table: Table, profile: Profile, *, error: str = "", saved: bool = False
) -> dict[str, Any]:
    return {
        "table": table,
        "seed_hash": server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        "client_seed": profile.client_seed,
        "seed_error": error,
        "seed_saved": saved,
    }


def table_context(
    *,
    table: Table,
    version: TableVersion,
    limits: BetLimits,
    balance: int,
    profile: Profile,
    last: Round | None,
    roads: RoadWindow,
    rebet: Rebet,
    squeeze: SqueezeToggle,
) -> dict[str, Any]:
    """The whole table screen."""
    return {
        "table": table,
        "version_decks": version.decks,
        "limits": limits,
        "limits_json": slip_limits_json(limits, balance),
        "areas": area_views(limits, version.pays),
        "chips": chip_views(table.chips),
        "pays": [(str(AREA_LABELS[a]), pay_label(version.pays[a])) for a in limits.areas],
        "rebet": rebet,
        "squeeze": squeeze,
        **fairness_context(table, profile),
        "profile": profile,
        "fast": profile.fast_play,
        "balance": balance,
        "header_balance": balance,
        "payout": last.total_return if last else 0,
        "board": board_view(last),
        "phase": "done",
        "round_id": last.pk if last else "",
        "roads": RoadsView(roads),
        "ws_url": f"/ws/baccarat/{table.slug}/",
    }


def placed_context(
    *,
    table: Table,
    limits: BetLimits,
    balance: int,
    profile: Profile,
    rebet: Rebet,
    squeeze: SqueezeToggle,
    round_id: int,
) -> dict[str, Any]:
    """BET's answer: the slip is spent (the browser clears it), the rebet for
    the next round, the next seed's hash, the squeeze toggle."""
    return {
        **fairness_context(table, profile),
        "limits": limits,
        "limits_json": slip_limits_json(limits, balance),
        "rebet": rebet,
        "squeeze": squeeze,
        "placed_round": round_id,
        "oob": True,
    }


@dataclass(frozen=True)
class AreaOutcome:
    """What one staked area did this round: won (paid back ``returned``, stake
    included), push (the stake back) or lost."""

    area: str
    kind: str  # "won" | "push" | "lost"
    staked: int
    returned: int


def area_outcomes(rnd: Round) -> list[AreaOutcome]:
    out = []
    for area in AREAS:
        staked = int(rnd.bets.get(area) or 0)
        if not staked:
            continue
        returned = int(rnd.returns.get(area) or 0)
        out.append(AreaOutcome(area, settled_kind(staked, returned), staked, returned))
    return out


class DealTable(NamedTuple):
    """The felt as every reveal starts: each bet area's result taken off, the
    first four cards face down, no third card, no score (table.html#deal_table)."""

    area_names: tuple[str, ...]
    board: BoardView


def deal_table(area_names: tuple[str, ...]) -> DealTable:
    # board_view(rnd, shown=0), which is the same for every round.
    return DealTable(area_names, board_view(None, shown=0))


# The same for every round at a table but for the language: rendered once.
deal_table_html = fragment_memo(TEMPLATE, "deal_table", "deal", maxsize=64, view=deal_table)


def deal_context(rnd: Round) -> dict[str, Any]:
    """The reveal's first step: cards face down, stakes taken, nothing paid yet
    (and last round's results taken off the bet areas)."""
    after_stakes = rnd.balance_before - rnd.total_bet
    area_names = tuple(area for area in AREAS if area in rnd.version.pays)
    return {
        "deal_table": deal_table_html([area_names]),
        "balance": after_stakes,
        "payout": 0,
        "phase": "revealing",
        "round_id": rnd.pk,
    }


def revealing_context(rnd: Round) -> dict[str, Any]:
    """The table screen while ``rnd``'s reveal is still to be shown (the
    page was reloaded mid reveal): the felt and the balance as the reveal
    starts, so the socket's steps can show the rest."""
    after_stakes = rnd.balance_before - rnd.total_bet
    return {
        "board": board_view(rnd, shown=0),
        "balance": after_stakes,
        "header_balance": after_stakes,
        "payout": 0,
        "phase": "revealing",
        "round_id": rnd.pk,
    }


class Score(NamedTuple):
    side: str
    score: int | None


class CardsStep(NamedTuple):
    """A reveal step that opens cards: their faces and the new score of each
    side that got one (table.html#step_cards)."""

    cards: tuple[CardFace, ...]
    scores: tuple[Score, ...]


def cards_step(rnd: Round, cards: Sequence[tuple[str, str]], *, shown: int) -> CardsStep:
    """Open ``cards`` (slot, code); ``shown`` counts the cards open after this
    step, in deal order."""
    sides = [side for side in ("player", "banker") if any(slot[0] == side[0] for slot, _ in cards)]
    return CardsStep(
        cards=tuple(card_face(slot, code, fresh=True) for slot, code in cards),
        scores=tuple(Score(side, side_score(rnd, shown, side)) for side in sides),
    )


# A card step is one of a few thousand (slot, card, score) combinations, the
# same for every player: each is rendered once.
cards_step_html = fragment_memo(TEMPLATE, "step_cards", "step", maxsize=8192)


def peel_context(peel: PeelView) -> dict[str, Any]:
    """A squeeze step: the card lies face down in its slot and on the squeeze
    stage beside the navigator, waiting for the player to start peeling."""
    return {
        "cards_html": cards_html([CardFace(peel.slot, "back", peeling=True)]),
        "scores": [],
        "peel": peel,
    }


def peel_face_context(slot: str, code: str) -> dict[str, Any]:
    return {"face": peel_face(slot, code)}


def result_context(rnd: Round, *, table: Table, roads: RoadWindow) -> dict[str, Any]:
    """The reveal's last step: banner, PAYOUT, balance, roads and score history."""
    return {
        "result": result_view(rnd),
        "outcomes": area_outcomes(rnd),
        "balance": rnd.balance_after,
        "header_balance": rnd.balance_after,
        "payout": rnd.total_return,
        "table": table,
        "roads": RoadsView(roads),
        "phase": "done",
        "round_id": rnd.pk,
    }
