"""Server seeds for tests that need a particular deal.

The shoe of a round is ``derive_shoe(server_seed, client_seed, nonce,
decks)``; a test that needs, say, a War tie or a six-card Baccarat coup
commits a server seed whose shoe deals it. ``find_seed`` tries the seeds
``sha256("<label>-0")``, ``sha256("<label>-1")``, ... in order, so each label
always gives the same seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from games.cards import Card
from games.verify import derive_shoe
from games.war.rules import first_cards_tied, play_war

TRIES = 100_000


def find_seed(
    label: str, client_seed: str, decks: int, wanted: Callable[[list[Card]], bool]
) -> str:
    """The first seed of ``label`` whose shoe (nonce 0) is ``wanted``."""
    for i in range(TRIES):
        seed = hashlib.sha256(f"{label}-{i}".encode()).hexdigest()
        if wanted(derive_shoe(seed, client_seed, 0, decks)):
            return seed
    raise AssertionError(f"no wanted shoe among {TRIES} {label!r} seeds")


def war_cases(shoe: list[Card]) -> set[str]:
    """What a War shoe can deal: the result of its first two cards, or, when
    they tie, "tie", "surrender" and the result of going to war."""

    if first_cards_tied(shoe):
        return {"tie", "surrender", play_war(shoe, "war").result}
    return {play_war(shoe, None).result}
