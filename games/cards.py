"""Cards, shoes and the provably fair shuffle shared by Baccarat and Casino War.

Pure core (no Django): the same code runs in the site, in the standalone
verifier (``python -m games.verify``) and in a player's own re-implementation.
The shoe order, the shuffle and the random stream are specified in
docs/fairness.md; change them only with that document.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

RANKS = "A23456789TJQK"
SUITS = "SHDC"

_WORDS = struct.Struct(">8I")
_TWO_32 = 1 << 32


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card; ``rank`` in ``RANKS`` ("T" is the ten), ``suit`` in ``SUITS``.

    Cards are plain values: two ``Card("T", "H")`` are equal, so a shoe of
    several decks simply holds equal cards several times.
    """

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if not isinstance(self.rank, str) or len(self.rank) != 1 or self.rank not in RANKS:
            raise ValueError(f"bad card rank {self.rank!r}; expected one of {RANKS}")
        if not isinstance(self.suit, str) or len(self.suit) != 1 or self.suit not in SUITS:
            raise ValueError(f"bad card suit {self.suit!r}; expected one of {SUITS}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``"TH"``, ``"10H"``, ``"as"`` (case-insensitive) into a card."""
        s = text.strip().upper()
        if s.startswith("10"):
            s = "T" + s[2:]
        if len(s) != 2:
            raise ValueError(f"cannot read card {text!r}; write it like 'TH', '10H' or 'AS'")
        return _CARD_BY_TEXT.get(s) or cls(s[0], s[1])

    def __str__(self) -> str:
        return self.rank + self.suit


# One shared instance per card: cards are immutable, and reusing them makes
# building a 416-card shoe a list copy instead of 416 validations.
_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
_CARD_BY_TEXT: dict[str, Card] = {str(card): card for card in _DECK}


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read several cards, e.g. ``"AS TH 9C"`` or ``["AS", "10H"]``."""
    items = text.replace(",", " ").split() if isinstance(text, str) else text
    return [Card.parse(item) for item in items]


def new_shoe(decks: int) -> list[Card]:
    """The unshuffled shoe of ``decks`` 52-card decks, in the order documented above."""
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"a shoe needs a positive whole number of decks, got {decks!r}")
    return list(_DECK) * decks


class RandRange(Protocol):
    """Anything with ``randrange(n)``: ``random.Random``, ``FairRng``..."""

    def randrange(self, n: int, /) -> int: ...


def shuffle(cards: Sequence[Card], rng: RandRange) -> list[Card]:
    """Return a shuffled copy of ``cards`` (the input is left untouched).

    Fisher-Yates from the end, ``j = rng.randrange(i + 1)``; see the module
    docstring.  Every permutation is equally likely as long as ``rng`` is
    unbiased, which ``FairRng`` guarantees by rejection sampling.
    """
    deck = list(cards)
    randrange = rng.randrange
    for i in range(len(deck) - 1, 0, -1):
        j = randrange(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class FairRng:
    """Deterministic generator from (server seed, client seed, nonce); see module docstring.

    It is not a general purpose RNG; it exists so that a shuffle can be
    reproduced later by anybody who learns the server seed.
    """

    __slots__ = ("_mac", "_prefix", "_counter", "_words", "_pos")

    def __init__(self, server_seed: bytes, client_seed: str, nonce: int) -> None:
        if not isinstance(server_seed, bytes | bytearray):
            raise TypeError("server_seed must be bytes (decode the hex first)")
        if not isinstance(nonce, int) or isinstance(nonce, bool) or nonce < 0:
            raise ValueError(f"nonce must be a non-negative integer, got {nonce!r}")
        # Keyed once; each block copies it (the same HMAC, at two thirds of
        # the CPU of keying hmac.digest again for every block).
        self._mac = hmac.new(bytes(server_seed), digestmod="sha256")
        self._prefix = f"{client_seed}:{nonce}:"
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self) -> None:
        msg = (self._prefix + str(self._counter)).encode("utf-8")
        self._counter += 1
        mac = self._mac.copy()
        mac.update(msg)
        self._words = _WORDS.unpack(mac.digest())
        self._pos = 0

    def next_u32(self) -> int:
        """The next 32-bit word of the stream."""
        if self._pos >= len(self._words):
            self._refill()
        word = self._words[self._pos]
        self._pos += 1
        return word

    def randrange(self, n: int, /) -> int:
        """Uniform integer in ``[0, n)`` without modulo bias (rejection sampling)."""
        if n < 1 or n > _TWO_32:
            raise ValueError(f"randrange needs 1 <= n <= 2**32, got {n}")
        limit = _TWO_32 - _TWO_32 % n
        while True:
            pos = self._pos
            if pos >= len(self._words):
                self._refill()
                pos = 0
            u = self._words[pos]
            self._pos = pos + 1
            if u < limit:
                return u % n


def server_seed_hash(seed: bytes) -> str:
    """SHA-256 hex of the raw server seed bytes: the commitment shown before a round."""
    return hashlib.sha256(bytes(seed)).hexdigest()


def new_server_seed() -> bytes:
    """32 bytes from the operating system's cryptographically secure source."""
    return secrets.token_bytes(32)
