"""The shared file of genuine and tampered live shoes (shoe_cases.json) that
every shoe verifier runs: the Python core (test_live_shoe.py, and through it
``python -m games.baccarat.live``) and static/js/verify.js under Node
(tests/js/live_shoe.test.mjs).

A case is a published shoe document (docs/fairness.md, "Live tables") and
what a verifier must say of it: ``match``, or ``fail`` with a phrase its
refusal names. The genuine shoes are dealt here by the core from fixed
seeds, so the file is the same on every run. Write it again after a change::

    .venv/bin/python -m tests.fairness.shoe_cases > tests/fairness/shoe_cases.json

A test checks that the file is exactly what this module builds.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from typing import Any

from games.baccarat.live import replay_shoe, seed_commitment

ABOUT = (
    "A live table's shoe documents, genuine and tampered (docs/fairness.md, Live tables), "
    "built by tests/fairness/shoe_cases.py: run by the Python core "
    "(tests/fairness/test_live_shoe.py) and static/js/verify.js (tests/js/live_shoe.test.mjs)."
)
SEED = hashlib.sha256(b"a live shoe for the tampered-shoe file").digest()
OTHER = hashlib.sha256(b"another seed").digest()
CONTRIBUTIONS = ["p-3f9a1c:lucky-seven", "p-81bd02:7f3e9a0c55d1", "p-c0ffee:my own seed"]
# U+FFFF sorts before U+1F600 by code point (Python, UTF-8 bytes) but after
# it by UTF-16 units (JavaScript's default sort).
WIDE = ["p-aa0001:\uffff-wide", "p-aa0002:\U0001f600-smile", "p-bb0002:ｃｈｉｐｓ"]


def committed(contributions: list[str]) -> list[str]:
    """Each contribution's commitment, as the table fixed them before the reveals."""
    out = []
    for item in contributions:
        name, _, seed = item.partition(":")
        out.append(f"{name}:{seed_commitment(seed)}")
    return sorted(out)


def document(
    seed: bytes,
    contributions: list[str],
    coups: int | None = None,
    *,
    withheld: tuple[str, ...] = (),
) -> dict[str, Any]:
    replay = replay_shoe(seed, contributions, 8)
    return {
        "server_seed": seed.hex(),
        "commitment": replay.commitment,
        "decks": 8,
        "commitments": sorted(committed(contributions) + list(withheld)),
        "contributions": contributions,
        "coups": [
            {"number": c.number, "cards": [str(x) for x in c.coup.cards_in_deal_order]}
            for c in replay.coups[:coups]
        ],
    }


def with_void(coups: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
    """The coups as a table lists them when coup ``number`` was void."""
    later = [{**c, "number": c["number"] + 1} for c in coups[number - 1 :]]
    return [*coups[: number - 1], {"number": number, "void": True, "cards": []}, *later]


def renumbered(coups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**c, "number": i} for i, c in enumerate(coups, 1)]


def build() -> list[dict[str, Any]]:
    genuine = document(SEED, CONTRIBUTIONS)
    cases: list[dict[str, Any]] = [
        {
            "name": "genuine shoe",
            "expect": "match",
            "why": "every coup is the shoe's",
            "shoe": genuine,
        },
        {
            "name": "contributions in another order",
            "expect": "match",
            "why": "the entropy sorts the contributions",
            "shoe": {**genuine, "contributions": CONTRIBUTIONS[::-1]},
        },
        {
            "name": "seeds outside ASCII",
            "expect": "match",
            "why": "sorted by code point (UTF-8 byte order), not by UTF-16 units",
            "shoe": document(hashlib.sha256(b"a shoe whose seeds are not ASCII").digest(), WIDE),
        },
        {
            "name": "a commitment withheld",
            "expect": "match",
            "why": "a seed committed and never revealed counts for nothing; the list shows it",
            "shoe": document(SEED, CONTRIBUTIONS, withheld=(f"p-dd0004:{'0' * 64}",)),
        },
        {
            "name": "a void coup mid-shoe",
            "expect": "match",
            "why": "a coup void (refunded) takes its number and no card; the next coup deals on",
            "shoe": {**genuine, "coups": with_void(genuine["coups"], 5)},
        },
    ]

    def tampered(
        name: str, names: str, why: str, change: Callable[[dict[str, Any]], object]
    ) -> None:
        shoe = copy.deepcopy(genuine)
        change(shoe)
        cases.append({"name": name, "expect": "fail", "names": names, "why": why, "shoe": shoe})

    def swap(shoe: dict[str, Any]) -> None:
        cards = shoe["coups"][4]["cards"]
        cards[0], cards[1] = cards[1], cards[0]

    past_cut = {"number": len(genuine["coups"]) + 1, "cards": ["AS", "2S", "3S", "4S"]}
    tampered("another server seed", "commitment", "the revealed seed is not the one committed before the shoe", lambda s: s.update(server_seed=OTHER.hex()))  # fmt: skip
    tampered("another commitment", "commitment", "the commitment shown is not the seed's", lambda s: s.update(commitment=hashlib.sha256(OTHER).hexdigest()))  # fmt: skip
    tampered("two cards of coup 5 swapped", "coup 5", "a coup's cards are not the shoe's", swap)
    tampered("a contribution left out", "coup 1", "a player's seed was dropped: another shoe", lambda s: s["contributions"].pop(1))  # fmt: skip
    tampered("a contribution added", "without a commitment", "a seed nobody committed before the close", lambda s: s["contributions"].append("p-000000:house"))  # fmt: skip
    tampered("a seed changed after its commitment", "does not hash to its commitment", "a seed revealed is not the one committed", lambda s: s["contributions"].__setitem__(0, "p-3f9a1c:lucky-eight"))  # fmt: skip
    tampered("a commitment twice", "committed twice", "one player, one commitment", lambda s: s["commitments"].append(s["commitments"][0]))  # fmt: skip
    tampered("a coup past the cut card", "no such coup", "the shoe ends at the cut card", lambda s: s["coups"].append(past_cut))  # fmt: skip
    tampered("a contribution twice", "appears twice", "one player counted twice", lambda s: s["contributions"].append(CONTRIBUTIONS[0]))  # fmt: skip
    tampered("no contributions", "at least one", "a shoe needs a player's seed", lambda s: s.update(contributions=[]))  # fmt: skip
    tampered("a coup left out", "coups missing", "a coup the verifier never sees could hold any card", lambda s: s.update(coups=renumbered(s["coups"][:6] + s["coups"][7:])))  # fmt: skip
    tampered("the last coups left out", "coups missing", "the document must show the shoe to its cut card", lambda s: s.update(coups=s["coups"][:10]))  # fmt: skip
    tampered("no coups", "coups missing", "a shoe with nothing to check proves nothing", lambda s: s.update(coups=[]))  # fmt: skip
    tampered("a coup listed twice", "numbered", "one coup, one number", lambda s: s["coups"].insert(3, s["coups"][3]))  # fmt: skip
    tampered("a coup number not whole", "whole number", "1.9 is no coup's number", lambda s: s["coups"][0].update(number=1.9))  # fmt: skip
    tampered("a dealt coup marked void", "coup 6", "a void coup took no card: the next coup's cards are the shoe's next", lambda s: s["coups"][4].update(void=True))  # fmt: skip
    tampered("a seed that is not hex", "not a shoe document", "the seed must be hexadecimal", lambda s: s.update(server_seed="zz"))  # fmt: skip
    return cases


def dumps(cases: list[dict[str, Any]]) -> str:
    """One case a line, so that a diff shows which case changed."""
    body = ",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cases)
    return f'{{"about": {json.dumps(ABOUT)},\n "cases": [\n{body}\n ]}}\n'


if __name__ == "__main__":
    print(dumps(build()), end="")
