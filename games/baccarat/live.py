"""A live table's shoe: one shuffled shoe dealt coup after coup to the cut card.

Pure core (no Django), like ``games.cards`` and ``games.baccarat.rules``: the
site deals a live table with it, and the verifiers (``python -m games.verify
--shoe``, the browser's ``verify.js``) replay a whole shoe with it. The rules
are written down in docs/fairness.md ("Live tables"); change them only with
that document.

* **Order.** ``shuffle(new_shoe(decks), FairRng(server_seed, entropy, 0))``:
  the provably fair shuffle of a private round, keyed by the shoe's server
  seed (its SHA-256 published, and logged, before the shoe's first window
  opens) and, in place of one player's client seed, the shoe's *entropy*.
* **Commit, then reveal.** With a bet in the shoe's first betting window a
  player's browser commits to a fresh secret seed: it sends only
  ``seed_commitment(seed)``, the SHA-256 (hex) of the seed's UTF-8. When the
  window closes the commitments are fixed (each written ``pseudonym:hex``;
  their ``seal`` is shown to everybody at the table), and only then do the
  browsers reveal their seeds. Nobody, the house included, can compute the
  order before every commitment is in: a seed chosen after the others are
  known would need a commitment made before they were.
* **Entropy.** ``shoe_entropy(contributions)``: the SHA-256 (hex) of the
  revealed seeds, each written ``pseudonym:seed``, sorted, joined by
  newlines (UTF-8). Sorting makes it independent of arrival order. A
  commitment not revealed in time counts for nothing and stays in the
  published list (``withheld``), for everyone to see.
* **Burn.** The first card is turned face up and burned with as many more
  cards as its value (A = 1, 2-9 face value, T/J/Q/K = 10).
* **Cut card.** ``CUT_FROM_END`` cards before the end. A coup is dealt only
  while the next card lies before the cut card; the coup in which the cut
  card comes out is finished (a coup takes at most six cards) and is the
  shoe's last.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from games.baccarat.rules import Coup, play_coup
from games.cards import Card, FairRng, new_shoe, shuffle

CUT_FROM_END = 16
ENTROPY_NONCE = 0
# A contribution is the player's pseudonym and seed; neither may hold the
# separators that make the list unambiguous.
MAX_SEED_LENGTH = 64


def contribution(pseudonym: str, seed: str) -> str:
    """One player's part of the shoe's entropy, as the published list writes it."""
    for name, text in (("pseudonym", pseudonym), ("seed", seed)):
        if not text or len(text) > MAX_SEED_LENGTH or any(c in text for c in ":\n\r"):
            raise ValueError(
                f"a {name} is 1 to {MAX_SEED_LENGTH} characters without ':' or a line break"
            )
        if any(0xD800 <= ord(c) <= 0xDFFF or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
            raise ValueError(f"a {name} holds no lone surrogate and no control character")
    return f"{pseudonym}:{seed}"


def seed_commitment(seed: str) -> str:
    """What a player's browser sends in place of its seed: SHA-256 hex of its UTF-8."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _split(item: str) -> tuple[str, str]:
    name, _, rest = item.partition(":")
    return name, rest


def seal(commitments: Iterable[str]) -> str:
    """SHA-256 hex of the commitments (``pseudonym:hex``), sorted and joined by
    newlines: what the table shows when betting closes, before any reveal."""
    return hashlib.sha256("\n".join(sorted(commitments)).encode("utf-8")).hexdigest()


def check_reveals(commitments: Iterable[str], contributions: Iterable[str]) -> list[str]:
    """What is wrong between the published commitments and the revealed
    seeds: each revealed seed must hash to its player's one commitment."""
    committed: dict[str, str] = {}
    problems: list[str] = []
    for item in commitments:
        name, digest = _split(item)
        if name in committed:
            problems.append(f"{name}: committed twice")
        committed[name] = digest.strip().lower()
    for item in contributions:
        name, seed = _split(item)
        if name not in committed:
            problems.append(f"{name}: a seed revealed without a commitment")
        elif seed_commitment(seed) != committed[name]:
            problems.append(f"{name}: the revealed seed does not hash to its commitment")
    return problems


def withheld(commitments: Iterable[str], contributions: Iterable[str]) -> list[str]:
    """The pseudonyms that committed and did not reveal (their seeds count for nothing)."""
    revealed = {_split(item)[0] for item in contributions}
    return sorted({_split(item)[0] for item in commitments} - revealed)


def shoe_entropy(contributions: Iterable[str]) -> str:
    """SHA-256 hex of the contributions, sorted and joined by newlines."""
    items = sorted(contributions)
    if not items:
        raise ValueError("a shoe needs at least one player's seed")
    if len(set(items)) != len(items):
        raise ValueError("a contribution appears twice")
    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()


def shoe_order(server_seed: bytes, entropy: str, decks: int) -> list[Card]:
    """The shoe's cards in deal order."""
    return shuffle(new_shoe(decks), FairRng(server_seed, entropy, ENTROPY_NONCE))


def burn_value(card: Card) -> int:
    """How many cards the turned first card burns after itself."""
    return min("A23456789TJQK".index(card.rank) + 1, 10)


@dataclass(frozen=True)
class DealtCoup:
    """One coup of a shoe: its number (from 1), where its cards start in
    the shoe, and the coup itself."""

    number: int
    start: int
    coup: Coup

    @property
    def end(self) -> int:
        return self.start + len(self.coup.cards_in_deal_order)


def burned(order: Sequence[Card]) -> int:
    """How many cards the burn takes from the top of the shoe (the turned card included)."""
    return 1 + burn_value(order[0])


def cut_position(order: Sequence[Card]) -> int:
    """The index of the first card at or after the cut card."""
    return len(order) - CUT_FROM_END


def deal_coups(order: Sequence[Card]) -> Iterator[DealtCoup]:
    """Every coup of the shoe, in order, to the cut card."""
    position = burned(order)
    cut = cut_position(order)
    number = 0
    while position < cut:
        number += 1
        coup = play_coup(order[position:])
        dealt = DealtCoup(number=number, start=position, coup=coup)
        yield dealt
        position = dealt.end


def coup_at(order: Sequence[Card], start: int) -> Coup:
    """The coup whose first card is ``order[start]`` (the next coup of a live table)."""
    if start < burned(order) or start >= cut_position(order):
        raise ValueError(f"no coup starts at card {start} of this shoe")
    return play_coup(order[start:])


@dataclass(frozen=True)
class ShoeReplay:
    commitment: str  # SHA-256 hex of the server seed
    entropy: str
    order: tuple[Card, ...]
    coups: tuple[DealtCoup, ...]


def replay_shoe(server_seed: bytes, contributions: Iterable[str], decks: int) -> ShoeReplay:
    """The whole shoe again from its revealed seed and its published contributions."""
    entropy = shoe_entropy(contributions)
    order = shoe_order(server_seed, entropy, decks)
    return ShoeReplay(
        commitment=hashlib.sha256(server_seed).hexdigest(),
        entropy=entropy,
        order=tuple(order),
        coups=tuple(deal_coups(order)),
    )


def check_shoe(
    *,
    server_seed: bytes,
    commitment: str,
    commitments: Iterable[str],
    contributions: Iterable[str],
    decks: int,
    dealt: Sequence[tuple[int, Sequence[str] | None]],
) -> list[str]:
    """What does not match between a revealed shoe and every coup the table
    opened on it (``dealt``: each coup's number, from 1 without a gap, and
    its cards in deal order as shown; None for a coup that was void, which
    took no card). An empty list: every seed was committed before it was
    revealed, and the coups dealt are the shoe's, all of them, in order."""
    contributions = list(contributions)
    replay = replay_shoe(server_seed, contributions, decks)
    problems = check_reveals(commitments, contributions)
    if replay.commitment != commitment.strip().lower():
        problems.append("the server seed does not hash to the commitment shown before the shoe")
    numbers = [number for number, _ in dealt]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append("the coups are not numbered 1, 2, 3 ... without a gap or a repeat")
    shown = [(number, cards) for number, cards in dealt if cards is not None]
    for (number, cards), derived in zip(shown, replay.coups, strict=False):
        want = [str(card) for card in derived.coup.cards_in_deal_order]
        if [str(Card.parse(c)) for c in cards] != want:
            problems.append(
                f"coup {number}: dealt {' '.join(cards)}, the shoe gives {' '.join(want)}"
            )
    for number, _ in shown[len(replay.coups) :]:
        problems.append(f"coup {number}: the shoe has no such coup (it ends at the cut card)")
    if len(shown) < len(replay.coups):
        problems.append(
            f"coups missing: the shoe deals {len(replay.coups)} coups to the cut card, "
            f"the document shows {len(shown)}"
        )
    return problems


# --- the published shoe ----------------------------------------------------
#
# At the end of a shoe the table publishes one JSON document that holds all a
# player needs to replay it (docs/fairness.md, "Live tables"):
#   {"server_seed": hex, "commitment": hex, "decks": 8,
#    "commitments": ["pseudonym:sha256hex", ...],
#    "contributions": ["pseudonym:seed", ...],
#    "coups": [{"number": 1, "cards": ["5H", "KD", ...]}, ...,
#              {"number": 7, "void": true, "cards": []}, ...]}
# Every coup the table opened on the shoe is listed, a void one (refunded,
# no card dealt) marked so.


def _listed_coup(item: dict[str, object]) -> tuple[int, list[str] | None]:
    number, cards = item["number"], item["cards"]
    if not isinstance(number, int) or isinstance(number, bool):
        raise ValueError("a coup's number is a whole number")
    if not isinstance(cards, list):
        raise ValueError("a coup's cards are a list")
    if item.get("void") is True:
        if cards:
            raise ValueError(f"coup {number} is void: a void coup holds no card")
        return number, None
    return number, [str(x) for x in cards]


def check_document(doc: dict[str, object]) -> list[str]:
    """``check_shoe`` on a published shoe document; a malformed one is one problem."""
    try:
        seed = bytes.fromhex(str(doc["server_seed"]).strip())
        decks = doc["decks"]
        if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 8:
            raise ValueError("decks is a whole number from 1 to 8")
        commitments, contributions, coups = (
            doc["commitments"],
            doc["contributions"],
            doc["coups"],
        )
        if not (
            isinstance(commitments, list)
            and isinstance(contributions, list)
            and isinstance(coups, list)
        ):
            raise ValueError("commitments, contributions and coups are lists")
        dealt = [_listed_coup(c) for c in coups]
        return check_shoe(
            server_seed=seed,
            commitment=str(doc["commitment"]),
            commitments=[str(c) for c in commitments],
            contributions=[str(c) for c in contributions],
            decks=decks,
            dealt=dealt,
        )
    except (KeyError, TypeError, ValueError) as exc:
        return [f"not a shoe document: {exc}"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m games.baccarat.live shoe.json``: replay a published shoe."""
    parser = argparse.ArgumentParser(
        prog="python -m games.baccarat.live",
        description="Replay a live table's shoe from its published document.",
    )
    parser.add_argument("document", help="the shoe's JSON document (- for standard input)")
    parser.add_argument(
        "--commitment",
        help="the shoe's commitment as the table showed it before its first coup (and the log holds)",
    )
    parser.add_argument(
        "--seed",
        help="your own seed as your round page shows it, written pseudonym:seed",
    )
    args = parser.parse_args(argv)
    if args.document == "-":
        doc = json.load(sys.stdin)
    else:
        with open(args.document, encoding="utf-8") as f:
            doc = json.load(f)
    problems = check_document(doc)
    if args.commitment and str(doc.get("commitment", "")).lower() != args.commitment.lower():
        problems.append("this is not the shoe whose commitment you give: another server seed")
    if args.seed and args.seed not in doc.get("contributions", []):
        problems.append("your seed is not among the seeds the shoe was shuffled with")
    if not problems:
        replay = replay_shoe(
            bytes.fromhex(str(doc["server_seed"])), doc["contributions"], doc["decks"]
        )
        print(f"commitment {replay.commitment}\nseal {seal(doc['commitments'])}")
        for name in withheld(doc["commitments"], doc["contributions"]):
            print(f"withheld: {name} committed a seed and did not reveal it")
        print(f"entropy {replay.entropy}")
        dealt = iter(replay.coups)
        for listed in doc["coups"]:
            if listed.get("void") is True:
                print(f"coup {listed['number']}: void (refunded, no card)")
                continue
            coup = next(dealt).coup
            cards = " ".join(str(c) for c in coup.cards_in_deal_order)
            print(f"coup {listed['number']}: {cards} -> {coup.winner}")
        print(f"every one of the {len(replay.coups)} coups dealt is the shoe's")
        return 0
    for problem in problems:
        print(problem)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
