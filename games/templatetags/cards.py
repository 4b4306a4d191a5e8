"""``{% card code %}``: a playing card drawn by templates/games/card.html from
its code ("TH", "10H"), for pages that hold codes (history, the round page,
the replay). ``mini=True`` draws the small card of a list; ``dealt=True`` one
that slides in from the shoe as it is put on the page; ``testid`` names it for
tests. A code that is no card draws nothing."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext, pgettext

from games.cards import Card
from games.display import rank_label
from games.presenters.common import card_view as face_up
from games.presenters.common import partial_memo

register = template.Library()

_drawn = partial_memo("games/card.html", "card", maxsize=4096)


def _rank_word(rank: str) -> str:
    words = {
        "A": pgettext("card rank", "Ace"),
        "K": pgettext("card rank", "King"),
        "Q": pgettext("card rank", "Queen"),
        "J": pgettext("card rank", "Jack"),
    }
    return words.get(rank, rank_label(rank))


def _suit_word(suit: str) -> str:
    return {
        "S": pgettext("card suit", "spades"),
        "H": pgettext("card suit", "hearts"),
        "D": pgettext("card suit", "diamonds"),
        "C": pgettext("card suit", "clubs"),
    }[suit]


def card_view(code: str) -> dict[str, Any] | None:
    """The card view card.html draws, with the name a screen reader says."""
    try:
        card = Card.parse(code)
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return {
        **face_up(code),
        "name": gettext("%(rank)s of %(suit)s")
        % {"rank": _rank_word(card.rank), "suit": _suit_word(card.suit)},
    }


@register.simple_tag
def card(code: str, *, mini: bool = False, dealt: bool = False, testid: str = "") -> SafeString:
    view = card_view(code)
    if view is None:
        return SafeString("")
    if dealt:
        view["deal_delay"] = "0.00"
    return _drawn(card=view, mini=mini, testid=testid)


@register.simple_tag
def drawn_card(view: dict[str, Any], *, mini: bool = False, testid: str = "") -> SafeString:
    return _drawn(card=view, mini=mini, testid=testid)
