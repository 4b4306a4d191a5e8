"""What both tables show the same way: cards, chips on the felt, paytables,
and the rendering of one partial of a screen's template.

A partial whose output depends only on a small view model (a card, a road
cell) is rendered once per process for each distinct model and language by
``fragment_memo`` and its output reused: a reveal shows the same few hundred
road cells and card faces round after round, and rendering them again cost
most of its CPU."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.autoreload import file_changed
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from games.cards import Card
from games.display import UNITS_PER_CHIP, is_red, rank_label, suit_symbol

CHIP_COLOURS = 12  # chip-c0 .. chip-c11 of css/casino.css (presets.MOST_CHIPS: one each)
# What json_script escapes: "</script>" or "<!--" in a value can never end
# or change the <script type="application/json"> block it is written into.
_SCRIPT_JSON_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def script_json(value: Any) -> SafeString:
    """``value`` as compact JSON safe to write inside a script element (the
    template then needs no ``|safe``)."""
    text = json.dumps(value, separators=(",", ":")).translate(_SCRIPT_JSON_ESCAPES)
    return SafeString(text)


MULTIPLIERS = (1, 10, 100)  # the chip rack's multiplier button (seed 000)
# Chips drawn on a bet area or spot, the amount under it says the rest: the
# same on both tables and in the browser (static/js/chips.js's STACK_SHOWN,
# which says why five).
STACK_SHOWN = 5


def render_fragment(
    template: str, name: str, context: Mapping[str, Any], request: HttpRequest | None = None
) -> str:
    """One partial of a screen's template (the page, an htmx answer or a socket push)."""
    return render_to_string(f"{template}#{name}", dict(context), request=request)


# The memos of fragment_memo, emptied when a template changes under runserver.
_memos: list[Any] = []


def fragment_memo(
    template: str,
    name: str,
    var: str,
    *,
    maxsize: int,
    view: Callable[[Any], Any] | None = None,
) -> Callable[[Iterable[Hashable]], SafeString]:
    """A partial rendered with ``{var: model}`` once per distinct model and
    language (at most ``maxsize`` kept), then served from memory.

    Only for partials whose output depends on nothing but the model and the
    language (no request, no other context, no time): the model is the key.
    With ``view``, the key is turned into the partial's model by
    ``view(key)``, only when it is rendered. The function returned takes
    models (or keys) and gives their fragments one after another, as a
    template loop over them would.
    """

    @functools.lru_cache(maxsize=maxsize)
    def render(model: Hashable, language: str | None) -> SafeString:
        shown = model if view is None else view(model)
        return SafeString(render_fragment(template, name, {var: shown}))

    _memos.append(render)

    def html(models: Iterable[Hashable]) -> SafeString:
        language = get_language()
        # Each part is a template's output, so the whole is too.
        return SafeString("".join([render(model, language) for model in models]))

    return html


def partial_memo(template: str, name: str, *, maxsize: int) -> Callable[..., SafeString]:
    """A partial rendered once per distinct context and language, then
    served from memory: the function returned takes the context as keyword
    arguments, each a hashable value or a dict of them (a card view).

    For partials drawn from their context alone, as ``fragment_memo``'s."""

    @functools.lru_cache(maxsize=maxsize)
    def render(items: tuple[tuple[str, Any], ...], language: str | None) -> SafeString:
        context = {k: dict(v) if isinstance(v, frozenset) else v for k, v in items}
        return SafeString(render_fragment(template, name, context))

    _memos.append(render)

    def html(**context: Any) -> SafeString:
        items = tuple(
            sorted(
                (k, frozenset(v.items()) if isinstance(v, dict) else v) for k, v in context.items()
            )
        )
        return render(items, get_language())

    return html


def forget_fragments() -> None:
    """Empty every fragment_memo (the next render of each goes to its template)."""
    for memo in _memos:
        memo.cache_clear()


def _forget_fragments(sender: Any, file_path: Path, **kwargs: Any) -> None:
    # runserver reloads a changed template without restarting: the memos go
    # with it (returning None leaves Django's own reload decision alone).
    if Path(file_path).suffix == ".html":
        forget_fragments()


file_changed.connect(_forget_fragments, dispatch_uid="games.presenters.common.fragments")


@dataclass(frozen=True)
class CardFace:
    """One card slot on a board."""

    slot: str
    state: str  # "face" (open) | "back" (dealt, not open yet) | "empty" (not dealt)
    code: str = ""
    rank: str = ""
    suit: str = ""
    red: bool = False
    fresh: bool = False  # opened by this very message: animate it and play the card sound
    peeling: bool = False  # face down in its slot while the player peels it (squeeze)


def card_view(code: str, *, deal_delay: str | None = None) -> dict[str, Any]:
    """A card face up as templates/games/card.html#card reads it (``deal_delay``:
    seconds as text when it slides in from the shoe)."""
    card = Card.parse(code)
    return {
        "code": str(card),
        "rank": rank_label(card.rank),
        "suit": suit_symbol(card.suit),
        "red": is_red(card.suit),
        "face_down": False,
        "deal_delay": deal_delay,
    }


def card_face(slot: str, code: str, *, fresh: bool = False) -> CardFace:
    card = Card.parse(code)
    return CardFace(
        slot=slot,
        state="face",
        code=str(card),
        rank=rank_label(card.rank),
        suit=suit_symbol(card.suit),
        red=is_red(card.suit),
        fresh=fresh,
    )


@dataclass(frozen=True)
class ChipView:
    base: Decimal  # chip value before the multiplier, in chips (0.1, 5, 100)
    value: Decimal  # in chips, multiplier applied
    label: str
    colour: int
    selected: bool = False
    units: int = 0  # the value in minor units


def chip_value(chip: Any) -> Decimal:
    """A stored chip value (0.1, 5, "25") as an exact Decimal without trailing zeros."""
    value = Decimal(str(chip))
    return value.quantize(Decimal(1)) if value == value.to_integral_value() else value.normalize()


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def chip_label(value: Any) -> str:
    """A chip's face: 0.1, 5, 50, 1K, 2.5K, 10K, 1M."""
    value = chip_value(value)
    if value >= 1_000_000 and value % 100_000 == 0:
        return _plain(value / 1_000_000) + "M"
    if value >= 1_000 and value % 100 == 0:
        return _plain(value / 1_000) + "K"
    return f"{value:,f}"


def denominations(chips: Sequence[Any]) -> list[Decimal]:
    """Every chip value the rack can show, multipliers included, smallest first."""
    return sorted({chip_value(chip_value(chip) * mult) for chip in chips for mult in MULTIPLIERS})


# The colour of each chip value, the same at every table of both games
# (chip-c0 white, c1 red, c2 blue, c3 green, c4 black, c5 purple, c6 orange,
# c7 gold, c8 pink, c9 teal, c10 brown, c11 silver: css/casino.css; the same
# table is static/js/chips.js's COLOUR_OF). Chosen so that no rack of the
# preset tables shows two chips of one colour, and at any multiplier no two
# chips a bet there could take; from 25K up a value takes the colour of its
# thousandth (25K green as 25).
CHIP_COLOUR_OF: dict[Decimal, int] = {
    Decimal(value): colour
    for value, colour in {
        "0.1": 9, "0.5": 8, "1": 0, "5": 1, "10": 2, "25": 3, "50": 6, "100": 4,
        "250": 8, "500": 5, "1000": 7, "2500": 9, "5000": 10, "10000": 11,
        "25000": 3, "50000": 6, "100000": 4, "250000": 8, "500000": 5, "1000000": 7,
    }.items()
}  # fmt: skip


def chip_colour(chips: Sequence[Any], value: Any) -> int:
    """The colour of a chip of ``value``: its usual colour, or for another
    value its place among the denominations of this table's rack."""
    found = chip_value(value)
    if found in CHIP_COLOUR_OF:
        return CHIP_COLOUR_OF[found]
    denoms = denominations(chips)
    return denoms.index(found) % CHIP_COLOURS if found in denoms else 0


def chip_views(chips: Sequence[Any]) -> list[ChipView]:
    views = []
    for i, chip in enumerate(chips):
        value = chip_value(chip)
        views.append(
            ChipView(
                base=value,
                value=value,
                label=chip_label(value),
                colour=chip_colour(chips, value),
                selected=i == 0,
                units=int(value * UNITS_PER_CHIP),
            )
        )
    return views


def pay_label(value: Any) -> str:
    """A paytable multiplier as printed: 1.95, 2, 12."""
    return format(Decimal(str(value)).normalize(), "f")


def settled_kind(staked: int, returned: int) -> str:
    """What a settled stake did, as both tables mark it on the felt: "won"
    (more came back), "push" (the stake came back), "back" (part of it came
    back) or "lost" (nothing came back)."""
    if returned > staked:
        return "won"
    if returned == staked:
        return "push"
    return "back" if returned else "lost"


def truthy(value: Any) -> bool:
    """A checkbox or a socket flag: "1", "true", "on", "yes" (any case) or True."""
    if isinstance(value, bool):
        return value
    return str(value or "").lower() in ("1", "true", "on", "yes")
