"""The shared file of tampered rounds (tampered_rounds.json) against the
server's own check, ``games.verify.check_round``: the one behind the round
page's server-side VERIFY and ``python -m games.verify``. It must be as strict
as the player's two verifiers that run the same file (the snippet,
test_tampered_rounds.py, and static/js/verify.js, tests/js/): a genuine round
matches, and each tampered one fails with a difference about the very thing
the file says its failure names, and the page says that difference in words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.utils import translation

from games.selectors.round_verification import describe
from games.verify import Difference, StoredRound, check_round, derive_shoe
from games.war.rules import first_cards_tied
from tests.fairness.rounds import FILE

CASES = json.loads(FILE.read_text(encoding="utf-8"))["cases"]
TAMPERED = [c for c in CASES if c["expect"] == "fail"]

Named = Callable[[Difference], bool]


def _units(chips: str) -> int:
    return int(Decimal(chips.replace(",", "")) * 100)


# The words the file's cases name (the snippet's and verify.js's), each as the
# differences of check_round that name the same thing. A pattern matches the
# whole of ``names``; its groups narrow the difference down.
NAMES: list[tuple[str, Callable[..., Named]]] = [
    (
        r"the commitment hash is missing",
        lambda: lambda d: d.what == "server_seed_hash" and not d.stored,
    ),
    (
        r"is not the SHA-256 of the revealed server seed",
        lambda: lambda d: d.what == "server_seed_hash" and bool(d.stored),
    ),
    (r"not hexadecimal", lambda: lambda d: d.what == "server_seed" and bool(d.stored)),
    (
        r"(\d+) cards dealt, the game needs (\d+)",
        lambda n, m: lambda d: d == Difference("card_count", int(n), int(m)),
    ),
    (
        r"card (\d+) \(\w+\): dealt (\w+), the seeds deal (\w+)",
        lambda n, dealt, derived: lambda d: d == Difference("card", dealt, derived, int(n)),
    ),
    (r"card (\d+)(?: \(\w+\))?", lambda n: lambda d: d.what == "card" and d.where == int(n)),
    (r"winner: stored (\w+)", lambda was: lambda d: d.what == "winner" and d.stored == was),
    (r"player total: stored", lambda: lambda d: d.what == "player_total"),
    (r"pair: stored", lambda: lambda d: d.what in ("player_pair", "banker_pair")),
    (r"result: stored (\w+)", lambda was: lambda d: d.what == "result" and d.stored == was),
    (r"return on (\w+)", lambda area: lambda d: d.what == "return" and d.where == area),
    (r"return on", lambda: lambda d: d.what == "return"),
    (
        r"no usable multiplier for (\w+)",
        lambda area: lambda d: d.what == "pay" and d.where == area,
    ),
    (
        r"raise: ([\d,.]+) staked",
        lambda chips: lambda d: d.what == "raise" and d.stored == _units(chips),
    ),
    # The tie decision is missing, stored without a tie, or says another
    # thing than the raise staked for it (the raise names its decision).
    (
        r"tie decision",
        lambda: (
            lambda d: (
                d.what in ("decision", "decision_untied") or (d.what == "raise" and bool(d.where))
            )
        ),
    ),
]

# Facts whose English name is the code itself.
WORDS_AS_CODES = ("winner", "result", "natural")


def named(names: str) -> Named:
    for pattern, difference in NAMES:
        found = re.fullmatch(pattern, names)
        if found:
            return difference(*found.groups())
    raise AssertionError(f"map {names!r} to check_round's differences in NAMES")


def stored(round_: dict[str, Any]) -> StoredRound:
    """A round of the file as check_round takes it (a key the file leaves
    out is a value the page does not give: None)."""
    return StoredRound(**{"server_seed_hash": None, **round_})


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_servers_check_judges_each_round_of_the_shared_file(case):
    check = check_round(stored(case["round"]))
    if case["expect"] == "match":
        assert check.differences == [], case["name"]
        assert check.derived_cards == case["round"]["cards"]
        assert check.derived_result == case["round"]["result"]
    else:
        is_named = named(case["names"])
        assert any(is_named(d) for d in check.differences), (case["why"], check.differences)


@pytest.mark.parametrize("case", TAMPERED, ids=[c["name"] for c in TAMPERED])
def test_the_round_page_says_each_tampering_in_words(case):
    """Every difference of every tampered round is a sentence on the page,
    never a bare code such as ``decision_untied``."""
    differences = check_round(stored(case["round"])).differences
    assert differences
    with translation.override("en"):
        for d in differences:
            sentence = describe(d)
            # The page's last resort, "code: stored …, derived …", is for
            # the facts only, and only those named by their code read so.
            bare = sentence.startswith(f"{d.what}: stored ") and d.what not in WORDS_AS_CODES
            assert not bare, sentence


def genuine(name: str) -> dict[str, Any]:
    (case,) = [c for c in CASES if c["name"] == name]
    return json.loads(json.dumps(case["round"]))


def said_in_english(round_: dict[str, Any]) -> list[str]:
    with translation.override("en"):
        return [describe(d) for d in check_round(stored(round_)).differences]


def test_a_raise_that_is_not_the_ante_is_said_with_the_decision_and_both_stakes():
    war = genuine("genuine war")
    war["bets"]["raise"] = 2_000
    assert said_in_english(war) == ["raise: 20 staked, the tie decision WAR needs 10"]


def test_a_war_multiplier_that_is_no_number_is_said_not_replaced_by_the_default():
    war = genuine("genuine war")
    war["pays"]["raise"] = "two"
    assert said_in_english(war) == ["the paytable has no usable multiplier for RAISE (two)"]


def test_a_decision_on_a_round_whose_first_cards_did_not_tie_is_said():
    # The surrender's seeds at the next nonce whose first cards do not tie:
    # the stored surrender is then a decision no tie asked for.
    surrender = genuine("genuine surrender")
    seeds = (surrender["server_seed"], surrender["client_seed"])
    surrender["nonce"] = next(
        n for n in range(1, 100) if not first_cards_tied(derive_shoe(*seeds, n, 6))
    )
    said = said_in_english(surrender)
    assert "tie decision: SURRENDER stored, but the first cards do not tie" in said


def test_a_war_result_stored_empty_is_said():
    war = genuine("genuine war")
    war["result"] = ""
    assert said_in_english(war) == ["result: stored —, derived war_win"]
