"""The Baccarat table: the page, the bet slip, BET, the roads details, the
rules and the player's settings and client seed.

Views are thin: they read the session's bet slip, call one service and
render ``baccarat/table.html`` or one of its partials. The same partials are
rendered by the websocket consumer for the reveal (``render_fragment``), so
the page and the live updates never disagree.

The bet slip lives in the session (per table): it survives a reload, and the
server checks every chip against the limits as it goes down.
"""

from __future__ import annotations

import functools
import logging
import math
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.baccarat.odds import navigator, rtp, squeeze_steps
from games.baccarat.rules import AREAS, play_coup, points
from games.cards import Card, server_seed_hash
from games.errors import GameError
from games.labels import AREA_LABELS, WINNER_LABELS
from games.models import UNITS_PER_CHIP, Game, Profile, Round, Table
from games.selectors import roads as road_selectors
from games.services import baccarat as service
from games.services.rounds import current_version, player_rows, require_open
from games.services.tables import decimal_pays

logger = logging.getLogger(__name__)

TEMPLATE = "baccarat/table.html"
MULTIPLIERS = (1, 10, 100)
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
STACK_SHOWN = 5  # chip discs drawn on a bet area; the amount says the rest
CHIP_COLOURS = 8
# Card slots on the board, per side, in the order they sit on the felt.
PLAYER_SLOTS = ("p1", "p2", "p3")
BANKER_SLOTS = ("b1", "b2", "b3")


# ------------------------------------------------------------------ the slip


@dataclass
class Slip:
    """The chips on the felt before BET, kept in the session per table."""

    key: str  # idempotency key of this slip's BET
    bets: dict[str, int] = field(default_factory=dict)  # units per area
    chip: int = 0  # the selected chip, in chips (before the multiplier)
    mult: int = 1

    @property
    def total(self) -> int:
        return sum(self.bets.values())


def _session_key(table: Table) -> str:
    return f"baccarat:{table.pk}"


def load_slip(request: HttpRequest, table: Table) -> Slip:
    raw = request.session.get(_session_key(table)) or {}
    chips = list(table.chips) or [1]
    bets = {}
    for area, amount in (raw.get("bets") or {}).items():
        if area in AREAS and isinstance(amount, int) and amount > 0:
            bets[area] = amount
    chip = raw.get("chip")
    mult = raw.get("mult")
    return Slip(
        key=str(raw.get("key") or uuid.uuid4().hex),
        bets=bets,
        chip=chip if chip in chips else chips[0],
        mult=mult if mult in MULTIPLIERS else 1,
    )


def save_slip(request: HttpRequest, table: Table, slip: Slip) -> None:
    request.session[_session_key(table)] = asdict(slip)


# --------------------------------------------------------- view models


@dataclass(frozen=True)
class CardFace:
    """One card slot on the board."""

    slot: str
    state: str  # "face" (open) | "back" (dealt, not open yet) | "empty" (not dealt)
    code: str = ""
    rank: str = ""
    suit: str = ""
    red: bool = False
    fresh: bool = False  # opened by this very message: animate it and play the card sound
    peeling: bool = False  # face down in its slot while the player peels it (squeeze)


def card_face(slot: str, code: str, *, fresh: bool = False) -> CardFace:
    card = Card.parse(code)
    return CardFace(
        slot=slot,
        state="face",
        code=str(card),
        rank="10" if card.rank == "T" else card.rank,
        suit=SUIT_SYMBOLS[card.suit],
        red=card.suit in "HD",
        fresh=fresh,
    )


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


def board_view(rnd: Round | None, *, shown: int | None = None) -> BoardView:
    """The board with the first ``shown`` cards of ``rnd`` open (all when None).

    Cards not open yet lie face down if they are among the first four, and
    are not on the table yet if they are third cards.
    """
    if rnd is None:
        empty = (
            [CardFace(slot, "empty") for slot in PLAYER_SLOTS],
            [CardFace(slot, "empty") for slot in BANKER_SLOTS],
        )
        return BoardView(empty[0], empty[1], None, None, None)
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


@dataclass(frozen=True)
class ChipView:
    base: int  # chip value before the multiplier (what the form posts)
    value: int  # in chips, multiplier applied
    label: str
    colour: int
    selected: bool


@dataclass(frozen=True)
class AreaView:
    area: str
    label: str
    min: int
    max: int
    pay: str
    amount: int
    stack: list[ChipView]


def chip_label(value: int) -> str:
    """A chip's face: 5, 50, 1K, 10K, 1M."""
    if value >= 1_000_000 and value % 100_000 == 0:
        return f"{value / 1_000_000:g}M"
    if value >= 1_000 and value % 100 == 0:
        return f"{value / 1_000:g}K"
    return f"{value:,}"


def _denominations(table: Table) -> list[int]:
    return sorted({chip * mult for chip in table.chips for mult in MULTIPLIERS})


def chip_views(table: Table, slip: Slip) -> list[ChipView]:
    denoms = _denominations(table)
    return [
        ChipView(
            base=chip,
            value=chip * slip.mult,
            label=chip_label(chip * slip.mult),
            colour=denoms.index(chip * slip.mult) % CHIP_COLOURS,
            selected=chip == slip.chip,
        )
        for chip in table.chips
    ]


def chip_stack(table: Table, amount: int) -> list[ChipView]:
    """The largest chips that make up ``amount`` units, at most STACK_SHOWN of them."""
    denoms = _denominations(table)
    left = amount // UNITS_PER_CHIP
    stack: list[ChipView] = []
    for value in reversed(denoms):
        while left >= value and len(stack) < STACK_SHOWN:
            stack.append(
                ChipView(value, value, chip_label(value), denoms.index(value) % CHIP_COLOURS, False)
            )
            left -= value
    return list(reversed(stack))


def pay_label(value: Any) -> str:
    return format(Decimal(str(value)).normalize(), "f")


def area_views(
    table: Table, limits: service.BetLimits, pays: Mapping[str, Any], bets: Mapping[str, int]
) -> list[AreaView]:
    return [
        AreaView(
            area=area,
            label=str(AREA_LABELS[area]),
            min=limits.area_min(area),
            max=limits.area_max(area),
            pay=pay_label(pays[area]),
            amount=bets.get(area, 0),
            stack=chip_stack(table, bets.get(area, 0)),
        )
        for area in AREAS
        if area in limits.areas
    ]


# ------------------------------------------------------------------ roads

BEAD_LETTERS = {"player": "P", "banker": "B", "tie": "T"}


def _pairs(cell: Any) -> str:
    return (" pp" if cell.player_pair else "") + (" bp" if cell.banker_pair else "")


class RoadsView:
    """A road window ready for the template.

    The cells are laid out here rather than in a template loop: a window
    holds a few hundred cells and each is only a class and a grid position,
    all from fixed vocabularies (no user text), so plain string building is
    safe and many times faster than a loop of template tags.
    """

    def __init__(self, window: road_selectors.RoadWindow) -> None:
        self.window = window
        self.rounds = window.rounds
        self.percentages = window.percentages
        self.bead_plate = window.bead_plate
        self.big_road = window.big_road
        self.derived = window.derived
        self.ask = window.ask
        self.history = window.history

    @staticmethod
    def _at(cell: Any) -> str:
        return f'style="grid-area: {cell.row + 1} / {cell.col + 1}"'

    @property
    def bead_html(self) -> str:
        return mark_safe(
            "".join(
                f'<span class="bead w-{c.winner}{_pairs(c)}" {self._at(c)}>'
                f"{BEAD_LETTERS[c.winner]}</span>"
                for c in self.window.bead_plate.cells
            )
        )

    @property
    def big_html(self) -> str:
        out = []
        for c in self.window.big_road.cells:
            ties = ""
            if c.ties:
                ties = '<i class="slash"></i>' + (
                    f'<b class="ties">{c.ties}</b>' if c.ties > 1 else ""
                )
            out.append(
                f'<span class="ring w-{c.winner or "none"}{_pairs(c)}" {self._at(c)}>{ties}</span>'
            )
        return mark_safe("".join(out))

    @property
    def history_html(self) -> str:
        """The score history panel's lines, newest first."""
        return mark_safe(
            "".join(
                f'<li class="w-{line.winner}"><span class="seq">#{line.seq}</span>'
                f'<span class="p">P {line.player_total}</span>'
                f'<span class="b">B {line.banker_total}</span></li>'
                for line in self.window.history
            )
        )

    def _derived_html(self, name: str) -> str:
        road = self.window.derived.get(name)
        if road is None:
            return ""
        return mark_safe(
            "".join(f'<span class="d-{c.colour}" {self._at(c)}></span>' for c in road.cells)
        )

    @property
    def big_eye_boy_html(self) -> str:
        return self._derived_html("big_eye_boy")

    @property
    def small_road_html(self) -> str:
        return self._derived_html("small_road")

    @property
    def cockroach_pig_html(self) -> str:
        return self._derived_html("cockroach_pig")


# ------------------------------------------------------------ squeeze

# The promo clip (static/js/promo.js) runs this long; its end unlocks the
# squeeze for the rest of the visit. The server accepts the end only this
# long after the start it recorded, less a little slack for the network.
PROMO_SECONDS = 12
PROMO_SLACK = 1.5


@dataclass
class SqueezeState:
    """The squeeze part of the session, per table.

    ``visit`` is a token made each time the table screen renders: the promo
    unlock belongs to one visit, so leaving the screen (a new render) locks
    the squeeze again. ``on`` is the SQUEEZE toggle, kept between visits; it
    starts OFF (a peel waits for the player every round, so it is opt-in)
    and watching the clip turns it ON.
    """

    visit: str = ""
    on: bool = False
    promo: bool = False  # the clip was watched to its end during ``visit``
    promo_started: float | None = None  # time.time() when the clip started in ``visit``


def _squeeze_key(table: Table) -> str:
    return f"baccarat:squeeze:{table.pk}"


def load_squeeze(request: HttpRequest, table: Table) -> SqueezeState:
    raw = request.session.get(_squeeze_key(table)) or {}
    started = raw.get("promo_started")
    return SqueezeState(
        visit=str(raw.get("visit") or ""),
        on=raw.get("on") is True,
        promo=raw.get("promo") is True,
        promo_started=float(started) if isinstance(started, int | float) else None,
    )


def save_squeeze(request: HttpRequest, table: Table, state: SqueezeState) -> None:
    request.session[_squeeze_key(table)] = asdict(state)


def new_visit(request: HttpRequest, table: Table) -> SqueezeState:
    """The table screen renders: a new visit, with the promo unlock gone."""
    state = load_squeeze(request, table)
    state = SqueezeState(visit=secrets.token_hex(12), on=state.on)
    save_squeeze(request, table, state)
    return state


def promo_watched(state: SqueezeState, visit: str | None) -> bool:
    """The clip was watched to its end in this very visit (``visit`` is the
    token the page posts; an older page of the same table has another)."""
    return bool(state.promo and state.visit and visit == state.visit)


@dataclass(frozen=True)
class SqueezeToggle:
    """The SQUEEZE toggle beside BET: locked or unlocked, ON or OFF."""

    on: bool
    unlocked: bool
    by_promo: bool  # unlocked by the clip for this visit (whatever the bet)
    threshold: int  # units the slip must reach
    visit: str


def squeeze_toggle(table: Table, slip: Slip, state: SqueezeState) -> SqueezeToggle:
    # The table's threshold is its current version's (save_table snapshots both).
    threshold = table.squeeze_threshold
    by_promo = bool(state.promo and state.visit)
    return SqueezeToggle(
        on=state.on,
        unlocked=service.squeeze_unlocked(
            total_bet=slip.total, threshold=threshold, promo=by_promo
        ),
        by_promo=by_promo,
        threshold=threshold,
        visit=state.visit,
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


def _rank_label(rank: str) -> str:
    return "10" if rank == "T" else rank


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
        pair_ranks=[_rank_label(r) for r in nav.pair_ranks] if pair_bet and nav.card == 2 else None,
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
    if side not in service.SIDES or not rnd.bets.get(side):
        return {}
    coup = play_coup(Card.parse(code) for code in rnd.cards)
    decks = int(rnd.detail.get("decks") or rnd.version.decks)
    pair_bet = bool(rnd.bets.get(service.PAIR_OF[side]))
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
        rank=_rank_label(card.rank),
        suit=SUIT_SYMBOLS[card.suit],
        red=card.suit in "HD",
        pips=[Pip(x, y, y > 50) for x, y in PIP_LAYOUTS.get(card.rank, ())],
        figure=COURT_FIGURES.get(card.rank, ""),
    )


# ------------------------------------------------------------ rendering


def render_fragment(
    name: str, context: Mapping[str, Any], request: HttpRequest | None = None
) -> str:
    """One partial of the table template (also used by the websocket consumer)."""
    return render_to_string(f"{TEMPLATE}#{name}", dict(context), request=request)


def _table(slug: str) -> Table:
    return get_object_or_404(
        Table.objects.select_related("current_version"), slug=slug, game=Game.BACCARAT
    )


def _balance(user: AbstractBaseUser) -> int:
    return player_rows(user)[0].balance


def slip_context(
    request: HttpRequest,
    table: Table,
    slip: Slip,
    *,
    error: str = "",
    note: str = "",
) -> dict[str, Any]:
    version = current_version(table)
    profile = player_rows(request.user)[1]
    limits = service.bet_limits(user=request.user, version=version, profile=profile)
    return {
        "table": table,
        "version_decks": version.decks,
        "slip": slip,
        "limits": limits,
        "areas": area_views(table, limits, version.pays, slip.bets),
        "chips": chip_views(table, slip),
        "pays": [(str(AREA_LABELS[a]), pay_label(version.pays[a])) for a in limits.areas],
        "error": error,
        "note": note,
    }


@dataclass(frozen=True)
class AreaBet:
    """What a bet area shows of the slip: its chips and amount."""

    area: str
    amount: int
    stack: list[ChipView]


def slip_state_context(
    table: Table,
    slip: Slip,
    *,
    error: str = "",
    note: str = "",
    squeeze: SqueezeToggle | None = None,
) -> dict[str, Any]:
    """What an answer to a slip edit swaps (each area's chips, the total,
    the message, the key, the chip rack, the SQUEEZE toggle): no query needed."""
    return {
        "table": table,
        "slip": slip,
        "squeeze": squeeze,
        "areas": [
            AreaBet(area, slip.bets.get(area, 0), chip_stack(table, slip.bets.get(area, 0)))
            for area in AREAS
            if area in table.pays
        ],
        "chips": chip_views(table, slip),
        "error": error,
        "note": note,
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


def deal_context(rnd: Round) -> dict[str, Any]:
    """The reveal's first step: cards face down, stakes taken, nothing paid yet."""
    after_stakes = rnd.balance_before - rnd.total_bet
    return {
        "board": board_view(rnd, shown=0),
        "balance": after_stakes,
        "payout": 0,
        "phase": "revealing",
        "round_id": rnd.pk,
    }


def cards_context(rnd: Round, cards: Sequence[tuple[str, str]], *, shown: int) -> dict[str, Any]:
    """Open ``cards`` (slot, code) and give the new score of each side that got one;
    ``shown`` counts the cards open after this step, in deal order."""
    sides = [side for side in ("player", "banker") if any(slot[0] == side[0] for slot, _ in cards)]
    return {
        "cards": [card_face(slot, code, fresh=True) for slot, code in cards],
        "scores": [{"side": side, "score": side_score(rnd, shown, side)} for side in sides],
    }


def peel_context(rnd: Round, peel: PeelView) -> dict[str, Any]:
    """A squeeze step: the card lies face down in its slot and on the squeeze
    stage beside the navigator, waiting for the player to start peeling."""
    return {
        "cards": [CardFace(peel.slot, "back", peeling=True)],
        "scores": [],
        "peel": peel,
    }


def peel_face_context(slot: str, code: str) -> dict[str, Any]:
    return {"face": peel_face(slot, code)}


def result_context(rnd: Round, *, user: AbstractBaseUser, table: Table) -> dict[str, Any]:
    """The reveal's last step: banner, PAYOUT, balance, roads and score history."""
    roads = road_selectors.table_roads(user=user, table=table)
    return {
        "result": result_view(rnd),
        "balance": rnd.balance_after,
        "payout": rnd.total_return,
        "table": table,
        "roads": RoadsView(roads),
        "phase": "done",
        "round_id": rnd.pk,
    }


# ---------------------------------------------------------------- pages


@login_required
def table(request: HttpRequest, slug: str) -> HttpResponse:
    table = _table(slug)
    try:
        require_open(table)
    except GameError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    balance = _balance(request.user)
    profile = player_rows(request.user)[1]
    slip = load_slip(request, table)
    save_slip(request, table, slip)
    visit = new_visit(request, table)  # a new visit: a clip watched before no longer counts
    last = road_selectors.latest_round(user=request.user, table=table)
    roads = road_selectors.table_roads(user=request.user, table=table)
    context = {
        **slip_context(request, table, slip),
        "squeeze": squeeze_toggle(table, slip, visit),
        "promo_seconds": PROMO_SECONDS,
        **fairness_context(table, profile),
        "profile": profile,
        "fast": profile.fast_play,
        "balance": balance,
        "payout": last.total_return if last else 0,
        "board": board_view(last),
        "phase": "done",
        "round_id": last.pk if last else "",
        "roads": RoadsView(roads),
        "ws_url": f"/ws/baccarat/{table.slug}/",
    }
    return render(request, TEMPLATE, context)


def _slip_response(
    request: HttpRequest,
    table: Table,
    slip: Slip,
    *,
    error: str = "",
    note: str = "",
    with_rack: bool = False,
) -> HttpResponse:
    """The slip's changed pieces (amounts, total, message, key), swapped out of band."""
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif note:
            messages.info(request, note)
        return redirect(table.get_absolute_url())
    toggle = squeeze_toggle(table, slip, load_squeeze(request, table))
    context = slip_state_context(table, slip, error=error, note=note, squeeze=toggle)
    context["with_rack"] = with_rack
    return HttpResponse(render_fragment("slip_state", context))


@login_required
@require_POST
def slip(request: HttpRequest, slug: str) -> HttpResponse:
    """Edit the bet slip: select a chip, cycle the multiplier, add a chip to
    an area, ALL CLEAR, REBET and REBET x2. Refusals take nothing."""
    table = _table(slug)
    slip = load_slip(request, table)
    try:
        chip = int(request.POST.get("chip", slip.chip))
    except ValueError:
        chip = slip.chip
    if chip in table.chips:
        slip.chip = chip
    area = request.POST.get("area", "")
    # Without JavaScript the area button posts only its name and value.
    action = request.POST.get("action") or ("add" if area else "")
    error = note = ""
    try:
        if action == "add":
            version = current_version(table)
            slip.bets = service.check_chip(
                bets=slip.bets,
                area=area,
                amount=slip.chip * slip.mult * UNITS_PER_CHIP,
                limits=service.bet_limits(
                    user=request.user, version=version, profile=player_rows(request.user)[1]
                ),
                balance=_balance(request.user),
            )
        elif action == "mult":
            slip.mult = MULTIPLIERS[(MULTIPLIERS.index(slip.mult) + 1) % len(MULTIPLIERS)]
        elif action == "clear":
            slip.bets = {}
        elif action in ("rebet", "rebet2"):
            last = road_selectors.latest_round(user=request.user, table=table)
            if last is None or not last.bets:
                raise GameError(_("There is no previous bet to repeat at this table."))
            factor = 2 if action == "rebet2" else 1
            version = current_version(table)
            slip.bets, capped = service.fit_bets(
                wanted={a: amount * factor for a, amount in last.bets.items()},
                limits=service.bet_limits(
                    user=request.user, version=version, profile=player_rows(request.user)[1]
                ),
                balance=_balance(request.user),
            )
            if capped:
                note = _("The repeated bet was lowered to fit the table limits and your balance.")
    except GameError as exc:
        error = exc.message
    save_slip(request, table, slip)
    return _slip_response(request, table, slip, error=error, note=note, with_rack=action == "mult")


@login_required
@require_POST
def bet(request: HttpRequest, slug: str) -> HttpResponse:
    """BET: one service call settles the round; the reveal arrives over the websocket."""
    table = _table(slug)
    slip = load_slip(request, table)
    slip_key = request.POST.get("slip_key") or slip.key
    state = load_squeeze(request, table)
    wish = service.SqueezeWish(
        on=state.on, promo=promo_watched(state, request.POST.get("squeeze_visit"))
    )
    try:
        rnd = service.place_bet(
            user=request.user, table=table, bets=slip.bets, slip_key=slip_key, squeeze=wish
        )
    except GameError as exc:
        return _slip_response(request, table, slip, error=exc.message)
    except Exception:
        # Everything after the debit ran in one transaction, now rolled back.
        logger.exception("BET failed at table %s", table.slug)
        return _slip_response(
            request,
            table,
            slip,
            error=_(
                "Something went wrong while dealing. The round was cancelled and nothing was taken."
            ),
        )
    if rnd.slip_key == slip.key:
        # This slip is spent: start a fresh one (same chip and multiplier).
        slip = Slip(key=uuid.uuid4().hex, chip=slip.chip, mult=slip.mult)
        save_slip(request, table, slip)
    if not request.htmx:
        return redirect(table.get_absolute_url())
    # The fresh slip, and the hash of the server seed committed for the next round.
    # After a round, the profile as the round left it (rounds.remember).
    profile = player_rows(request.user)[1]
    fairness = {
        "table": table,
        "seed_hash": server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        "client_seed": profile.client_seed,
        "csrf_token": get_token(request),
        "oob": True,
    }
    toggle = squeeze_toggle(table, slip, state)
    html = render_fragment("slip_state", slip_state_context(table, slip, squeeze=toggle))
    html += render_fragment("fairness", fairness)
    return HttpResponse(html)


@login_required
@require_POST
def squeeze(request: HttpRequest, slug: str) -> HttpResponse:
    """The SQUEEZE toggle (ON / OFF), and the promo clip's start and end.

    ``action=toggle`` flips the toggle. ``promo_start`` / ``promo_end`` come
    from the clip (static/js/promo.js) with the page's visit token: the end
    unlocks the squeeze for the rest of this visit, if it comes at least the
    clip's length after a start recorded in the same visit.
    """
    table = _table(slug)
    state = load_squeeze(request, table)
    action = request.POST.get("action", "")
    visit = request.POST.get("visit", "")
    error = note = ""
    if action == "toggle":
        state.on = not state.on
    elif action == "promo_start":
        if visit and visit == state.visit:
            state.promo_started = time.time()
    elif action == "promo_end":
        started = state.promo_started
        if not visit or visit != state.visit:
            error = _("This page is out of date. Reload the table to watch the clip.")
        elif started is None or time.time() - started < PROMO_SECONDS - PROMO_SLACK:
            error = _("Watch the clip to its end to unlock the squeeze.")
        else:
            state.promo = True
            state.promo_started = None
            state.on = True  # the player watched the clip to squeeze: turn it on
            note = _("Squeeze unlocked for this visit to the table.")
    save_squeeze(request, table, state)
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif note:
            messages.success(request, note)
        return redirect(table.get_absolute_url())
    toggle = squeeze_toggle(table, load_slip(request, table), state)
    html = render_fragment("squeeze_toggle", {"table": table, "squeeze": toggle, "oob": True})
    html += render_fragment("promo_msg", {"promo_error": error, "promo_note": note, "oob": True})
    return HttpResponse(html)


@login_required
def roads(request: HttpRequest, slug: str) -> HttpResponse:
    """The roads in detail: larger roads, the derived roads, ask previews, score history."""
    table = _table(slug)
    detail = road_selectors.detail_roads(user=request.user, table=table)
    context = {"table": table, "detail": RoadsView(detail), "history": detail.history}
    if request.htmx:
        return render(request, "baccarat/roads.html#roads_detail", context)
    return render(request, "baccarat/roads.html", context)


@functools.lru_cache(maxsize=64)
def _rtp(pays: tuple[tuple[str, str], ...], decks: int) -> dict[str, Fraction]:
    return rtp(decimal_pays(dict(pays)), decks)


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


@login_required
def rules(request: HttpRequest, slug: str) -> HttpResponse:
    """Rules, this table's current paytable and limits, and each bet's exact RTP."""
    table = _table(slug)
    version = current_version(table)
    limits = service.bet_limits(user=request.user, version=version)
    returns = _rtp(tuple(sorted((k, str(v)) for k, v in version.pays.items())), version.decks)
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
    return render(
        request,
        "baccarat/rules.html",
        {"table": table, "version": version, "rows": rows, "limits": limits},
    )


@login_required
@require_POST
def client_seed(request: HttpRequest, slug: str) -> HttpResponse:
    table = _table(slug)
    error = ""
    try:
        service.change_client_seed(user=request.user, client_seed=request.POST.get("client_seed"))
    except GameError as exc:
        error = exc.message
    profile = Profile.objects.get(user=request.user)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(table.get_absolute_url())
    context = fairness_context(table, profile, error=error, saved=not error)
    if error:
        context["client_seed"] = request.POST.get("client_seed", "")
    return render(request, f"{TEMPLATE}#fairness", context)


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "on", "yes")


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    """The player's settings for every game: sound, effects, music, history panel, fast play.

    A full form posts every checkbox; a single toggle (the history panel's
    close button) posts ``field`` and ``value``.
    """
    _balance(request.user)  # makes the profile for accounts made outside sign-up
    profile = Profile.objects.get(user=request.user)
    saved = False
    if request.method == "POST":
        field_name = request.POST.get("field")
        if field_name in service.SETTINGS_FIELDS:
            values = {field_name: _truthy(request.POST.get("value"))}
        else:
            values = {f: _truthy(request.POST.get(f)) for f in service.SETTINGS_FIELDS}
        profile = service.save_settings(user=request.user, values=values)
        saved = True
        if not request.htmx:
            messages.success(request, _("Your settings have been saved."))
            target = request.POST.get("next", "")
            if not url_has_allowed_host_and_scheme(
                target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
            ):
                target = reverse("baccarat_settings")
            return redirect(target)
    context = {"profile": profile, "saved": saved, "oob": request.htmx}
    if request.htmx:
        html = render_to_string(
            "baccarat/settings.html#settings_form", context, request=request
        ) + render_fragment("prefs", {"profile": profile, "oob": True})
        return HttpResponse(html)
    return render(request, "baccarat/settings.html", context)
