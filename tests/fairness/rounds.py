"""The shared file of genuine and tampered rounds (tampered_rounds.json) that
both of the player's verifiers run in the test suite: the Python snippet of the
round page (tests/fairness/test_tampered_rounds.py) and static/js/verify.js
under Node (tests/js/verify.test.js).

The genuine rounds are dealt and settled here by the real core (the shuffle,
``play_coup``/``settle``, ``play_war``/``settle_war``), and each tampered
round is one of them with one fact changed, the reason it must fail and the
words its failure must name. Write the file again after a change here::

    .venv/bin/python -m tests.fairness.rounds > tests/fairness/tampered_rounds.json

A test checks that the file is exactly what this module builds, so the file
cannot drift from what the core deals.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.baccarat.rules import play_coup, settle
from games.cards import Card, server_seed_hash
from games.fairness_vectors import VECTORS
from games.money import decimal_pays
from games.presets import CLASSIC_PAYS, WAR_PAYS
from games.verify import derive_shoe
from games.war.rules import first_cards_tied, play_war, settle_war
from tests.seeds import find_seed

FILE = Path(__file__).with_name("tampered_rounds.json")
# A client seed a player may type: quotes, a backslash and Japanese, so both
# verifiers read it back exactly (the snippet as a Python literal).
CLIENT_SEED = 'it\'s "mine" \\ ラッキー'
OTHER_SEED = "ff" * 32


def _coup_wanted(shoe: list[Card]) -> bool:
    """Six cards (both sides draw), BANKER wins (x1.95 floors) and a pair."""
    coup = play_coup(shoe)
    return (
        len(coup.cards_in_deal_order) == 6
        and coup.winner == "banker"
        and (coup.player_pair or coup.banker_pair)
    )


def _war_wanted(decision: str, result: str) -> Callable[[list[Card]], bool]:
    """A tie on the first cards that ``decision`` turns into ``result``."""

    def wanted(shoe: list[Card]) -> bool:
        return first_cards_tied(shoe) and play_war(shoe, decision).result == result

    return wanted


def _seeds(seed: str) -> dict[str, Any]:
    return {
        "server_seed": seed,
        "server_seed_hash": server_seed_hash(bytes.fromhex(seed)),
        "client_seed": CLIENT_SEED,
        "nonce": 0,
    }


def genuine_coup() -> dict[str, Any]:
    """A Baccarat Classic coup (8 decks) with a stake on every area."""
    seed = find_seed("tampered-coup", CLIENT_SEED, 8, _coup_wanted)
    coup = play_coup(derive_shoe(seed, CLIENT_SEED, 0, 8))
    bets = {"player": 1_000, "banker": 1_030, "tie": 500, "player_pair": 100, "banker_pair": 100}
    return {
        "game": "baccarat",
        **_seeds(seed),
        "decks": 8,
        "pays": dict(CLASSIC_PAYS),
        "bets": bets,
        "returns": settle(coup, bets, decimal_pays(CLASSIC_PAYS)),
        "cards": [str(c) for c in coup.cards_in_deal_order],
        "result": coup.winner,
        "void": False,
        "decision": None,
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "natural": coup.natural,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
    }


def _war_round(label: str, decision: str, result: str, ante: int, tie_bet: int) -> dict[str, Any]:
    seed = find_seed(label, CLIENT_SEED, 6, _war_wanted(decision, result))
    shoe = derive_shoe(seed, CLIENT_SEED, 0, 6)
    war = play_war(shoe, decision)
    back = settle_war(war, ante, tie_bet, decimal_pays(WAR_PAYS))
    bets = {"ante": ante, "tie_bet": tie_bet}
    returns = {"ante": back["ante"], "tie_bet": back["tie_bet"]}
    if decision == "war":
        bets["raise"] = ante
        returns["raise"] = back["raise"]
    return {
        "game": "war",
        **_seeds(seed),
        "decks": 6,
        "pays": dict(WAR_PAYS),
        "bets": bets,
        "returns": returns,
        "cards": [str(c) for c in shoe[: 7 if decision == "war" else 2]],
        "result": war.result,
        "void": False,
        "decision": decision,
        "player_total": None,
        "banker_total": None,
        "natural": None,
        "player_pair": None,
        "banker_pair": None,
    }


def genuine_war() -> dict[str, Any]:
    """A War round that tied and went to war (three burns), with a tie bet."""
    return _war_round("tampered-war", "war", "war_win", 1_000, 500)


def genuine_surrender() -> dict[str, Any]:
    """A War round that tied and was surrendered: half an odd ante back, floored."""
    return _war_round("tampered-surrender", "surrender", "surrender", 1_050, 0)


def _changed(rnd: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(rnd)
    change(out)
    return out


def _other_card(code: str) -> str:
    return "AS" if code != "AS" else "KD"


def cases() -> list[dict[str, Any]]:
    coup, war, surrender = genuine_coup(), genuine_war(), genuine_surrender()
    shoe = [str(c) for c in derive_shoe(coup["server_seed"], CLIENT_SEED, 0, 8)]
    other_hash = server_seed_hash(bytes.fromhex(OTHER_SEED))
    banker_back = coup["returns"]["banker"]

    def tampered(
        name: str, base: dict[str, Any], why: str, names: str, change: Callable[..., None]
    ) -> dict[str, Any]:
        round_ = _changed(base, change)
        return {"name": name, "expect": "fail", "why": why, "names": names, "round": round_}

    def swap_3_and_4(r: dict[str, Any]) -> None:
        r["cards"][2], r["cards"][3] = r["cards"][3], r["cards"][2]

    return [
        {"name": "genuine coup", "expect": "match", "round": coup},
        {"name": "genuine war", "expect": "match", "round": war},
        {"name": "genuine surrender", "expect": "match", "round": surrender},
        tampered(
            "empty hash",
            coup,
            "no commitment was shown, so nothing binds the seed to the time before the bet",
            "the commitment hash is missing",
            lambda r: r.update(server_seed_hash=""),
        ),
        tampered(
            "no hash at all",
            coup,
            "the page gives no commitment to check",
            "the commitment hash is missing",
            lambda r: r.pop("server_seed_hash"),
        ),
        tampered(
            "wrong hash",
            coup,
            "the commitment shown is another seed's: the revealed seed was not the one committed",
            "is not the SHA-256 of the revealed server seed",
            lambda r: r.update(server_seed_hash=other_hash),
        ),
        tampered(
            "seed not matching the hash",
            coup,
            "another server seed is revealed than the one committed before the bet",
            "is not the SHA-256 of the revealed server seed",
            lambda r: r.update(server_seed=OTHER_SEED),
        ),
        tampered(
            "seed not hexadecimal",
            coup,
            "a revealed seed that is not hex cannot be checked",
            "not hexadecimal",
            lambda r: r.update(server_seed="zz" * 32),
        ),
        tampered(
            "cards cut short",
            coup,
            "the Banker's third card was left out",
            "5 cards dealt, the game needs 6",
            lambda r: r["cards"].pop(),
        ),
        tampered(
            "no cards at all",
            coup,
            "a settled coup with no card proves nothing",
            "0 cards dealt, the game needs 6",
            lambda r: r.update(cards=[]),
        ),
        tampered(
            "extra card",
            coup,
            "the coup is complete after six cards; a seventh was added",
            "7 cards dealt, the game needs 6",
            lambda r: r["cards"].append(shoe[6]),
        ),
        tampered(
            "swapped cards",
            coup,
            "the third and fourth cards were dealt in another order",
            f"card 3 (Player): dealt {coup['cards'][3]}, the seeds deal {coup['cards'][2]}",
            swap_3_and_4,
        ),
        tampered(
            "a burn changed",
            war,
            "the second burnt card is not the shoe's",
            "card 4 (Burn)",
            lambda r: r["cards"].__setitem__(3, _other_card(r["cards"][3])),
        ),
        tampered(
            "wrong winner",
            coup,
            "the coup is stored as won by the other side",
            "winner: stored player",
            lambda r: r.update(result="player"),
        ),
        tampered(
            "wrong pair flag",
            coup,
            "a pair is stored where the cards make none, or none where they do",
            "pair: stored",
            lambda r: r.update(player_pair=not r["player_pair"], banker_pair=not r["banker_pair"]),
        ),
        tampered(
            "wrong total",
            coup,
            "the Player's total is not what the cards add up to",
            "player total: stored",
            lambda r: r.update(player_total=(r["player_total"] + 1) % 10),
        ),
        tampered(
            "a return changed",
            coup,
            "BANKER paid one unit less than x1.95 floored gives",
            "return on banker",
            lambda r: r["returns"].update(banker=banker_back - 1),
        ),
        tampered(
            "a return left out",
            coup,
            "a winning pair bet shows no return at all",
            "return on",
            lambda r: r["returns"].pop("player_pair" if r["player_pair"] else "banker_pair"),
        ),
        tampered(
            "wrong paytable multiplier",
            coup,
            "the paytable shown says BANKER pays x2, but the return is x1.95's",
            "return on banker",
            lambda r: r["pays"].update(banker="2"),
        ),
        tampered(
            "a multiplier that is not a number",
            coup,
            "BANKER won, and the paytable gives no number to pay it with",
            "no usable multiplier for banker",
            lambda r: r["pays"].update(banker="x1.95"),
        ),
        tampered(
            "wrong decks",
            coup,
            "the shoe is shuffled from 6 decks, not the table's 8",
            "card 1",
            lambda r: r.update(decks=6),
        ),
        tampered(
            "nonce changed",
            coup,
            "the shoe of another round of the same seeds",
            "card 1",
            lambda r: r.update(nonce=1),
        ),
        tampered(
            "client seed changed",
            coup,
            "the shoe of another client seed",
            "card 1",
            lambda r: r.update(client_seed=CLIENT_SEED + "!"),
        ),
        tampered(
            "wrong decision",
            war,
            "the war is stored as a surrender, yet a raise was staked",
            "tie decision",
            lambda r: r.update(decision="surrender"),
        ),
        tampered(
            "no decision on a tie",
            war,
            "a settled tie needs the player's decision",
            "tie decision",
            lambda r: r.update(decision=None),
        ),
        tampered(
            "war result changed",
            war,
            "the war was won, and it is stored as lost",
            "result: stored war_lose",
            lambda r: r.update(result="war_lose"),
        ),
        tampered(
            "raise return changed",
            war,
            "the raise paid 1 to 1 is 2,000 units back, not 1,000",
            "return on raise",
            lambda r: r["returns"].update({"raise": 1_000}),
        ),
        tampered(
            "raise stake changed",
            war,
            "the raise always equals the ante",
            "raise: 20 staked",
            lambda r: r["bets"].update({"raise": 2_000}),
        ),
        tampered(
            "surrender paid in full",
            surrender,
            "a surrender gives back half the ante, floored",
            "return on ante",
            lambda r: r["returns"].update(ante=r["bets"]["ante"]),
        ),
        tampered(
            "surrender with the war cards",
            surrender,
            "a surrender deals no war: its burns and war cards cannot be in the round",
            "7 cards dealt, the game needs 2",
            lambda r: r["cards"].extend(war_tail(r)),
        ),
    ]


def war_tail(rnd: dict[str, Any]) -> list[str]:
    shoe = derive_shoe(rnd["server_seed"], rnd["client_seed"], rnd["nonce"], rnd["decks"])
    return [str(c) for c in shoe[2:7]]


def build() -> dict[str, Any]:
    return {
        "about": (
            "Rounds both verifiers of the round page must judge: the genuine ones match, "
            "each tampered one fails and its failure names `names`. "
            "Written by tests/fairness/rounds.py; amounts in units (1 chip = 100 units). "
            "`vectors` are the fairness page's test vectors (games/fairness_vectors.py)."
        ),
        "cases": cases(),
        "vectors": [dict(v) for v in VECTORS],
    }


def dump() -> str:
    return json.dumps(build(), ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    print(dump(), end="")
