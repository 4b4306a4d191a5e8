"""A live table's shoe (games/baccarat/live.py): dealt in order to the cut
card, replayed whole from its published document, and every tampered
document of tests/fairness/shoe_cases.json refused with its reason (the
same file static/js/verify.js runs under node)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.baccarat import live
from games.baccarat.rules import play_coup
from games.cards import Card, FairRng, new_shoe, shuffle
from tests.fairness import shoe_cases

FILE = Path(__file__).with_name("shoe_cases.json")
CASES = json.loads(FILE.read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_published_shoe_is_checked(case: dict) -> None:
    problems = live.check_document(case["shoe"])
    if case["expect"] == "match":
        assert problems == []
    else:
        assert any(case["names"] in p for p in problems), (case["why"], problems)


def test_the_file_is_what_the_core_deals_today() -> None:
    """Write it again with ``python -m tests.fairness.shoe_cases`` after a change."""
    assert FILE.read_text() == shoe_cases.dumps(shoe_cases.build())
    doc = CASES[0]["shoe"]
    replay = live.replay_shoe(bytes.fromhex(doc["server_seed"]), doc["contributions"], 8)
    assert [c["number"] for c in doc["coups"]] == list(range(1, len(replay.coups) + 1))


def test_the_order_is_the_private_shuffle_keyed_by_the_entropy() -> None:
    seed = bytes(range(32))
    entropy = live.shoe_entropy(["b:2", "a:1"])
    assert entropy == live.shoe_entropy(["a:1", "b:2"])
    assert live.shoe_order(seed, entropy, 8) == shuffle(new_shoe(8), FairRng(seed, entropy, 0))


@pytest.mark.parametrize("seed", range(5))
def test_coups_follow_each_other_from_the_burn_to_the_cut_card(seed: int) -> None:
    order = shuffle(new_shoe(8), random.Random(seed))
    coups = list(live.deal_coups(order))
    first = order[0]
    burn = 10 if first.rank in "TJQK" else "A23456789".index(first.rank) + 1
    assert coups[0].start == 1 + burn
    for before, after in zip(coups, coups[1:], strict=False):
        assert after.start == before.end  # no card skipped, none dealt twice
        assert after.number == before.number + 1
    cut = len(order) - live.CUT_FROM_END
    assert coups[-1].start < cut <= coups[-1].end  # the coup that reached the cut card is the last
    assert all(c.coup == play_coup(order[c.start :]) for c in coups)
    with pytest.raises(ValueError, match="no coup starts"):
        live.coup_at(order, cut)


@pytest.mark.parametrize(
    ("pseudonym", "seed"),
    [("", "x"), ("p", ""), ("p:q", "x"), ("p", "a\nb"), ("p", "x" * 65)],
)
def test_a_contribution_that_could_be_read_two_ways_is_refused(pseudonym: str, seed: str) -> None:
    with pytest.raises(ValueError, match="without ':'"):
        live.contribution(pseudonym, seed)


def test_the_command_replays_a_published_shoe(tmp_path: Path) -> None:
    genuine, tampered = CASES[0]["shoe"], next(c for c in CASES if c["name"].startswith("two"))
    for doc, code, said in (
        (genuine, 0, "coups dealt is the shoe's"),
        (tampered["shoe"], 1, "coup 5"),
    ):
        path = tmp_path / "shoe.json"
        path.write_text(json.dumps(doc))
        run = subprocess.run(
            [sys.executable, "-m", "games.baccarat.live", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == code, run.stderr
        assert said in run.stdout


def test_cards_compared_in_any_spelling() -> None:
    doc = json.loads(json.dumps(CASES[0]["shoe"]))
    doc["coups"][0]["cards"] = [c.replace("T", "10").lower() for c in doc["coups"][0]["cards"]]
    assert live.check_document(doc) == []
    assert Card.parse("10h") == Card("T", "H")


def test_the_command_lists_each_coup_under_its_own_number_void_ones_too(tmp_path, capsys) -> None:
    """A player at coup 6 of a shoe whose coup 5 was void reads their cards
    under "coup 6", as the table numbered it."""
    doc = next(c for c in CASES if c["name"] == "a void coup mid-shoe")["shoe"]
    path = tmp_path / "shoe.json"
    path.write_text(json.dumps(doc))
    assert live.main([str(path)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert "coup 5: void (refunded, no card)" in said
    sixth = next(c for c in doc["coups"] if c["number"] == 6)
    assert any(line.startswith(f"coup 6: {' '.join(sixth['cards'])} ->") for line in said)


def test_the_command_ties_the_document_to_the_commitment_and_seed_you_saw(tmp_path, capsys) -> None:
    """A document consistent in itself, but not the shoe the table showed
    (another commitment) or not shuffled with your seed, is refused."""
    doc = CASES[0]["shoe"]
    path = tmp_path / "shoe.json"
    path.write_text(json.dumps(doc))
    mine = doc["contributions"][0]
    assert live.main([str(path), "--commitment", doc["commitment"].upper(), "--seed", mine]) == 0
    assert live.main([str(path), "--commitment", "0" * 64]) == 1
    assert "another server seed" in capsys.readouterr().out
    assert live.main([str(path), "--seed", mine.split(":")[0] + ":not-mine"]) == 1
    assert "your seed is not among" in capsys.readouterr().out
