"""The standalone verifier (games.verify): functions and the CLI, pinned seeds."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from games.baccarat.rules import Coup
from games.cards import FairRng, new_shoe, parse_cards, server_seed_hash, shuffle
from games.money import decimal_pays
from games.presets import CLASSIC_PAYS, WAR_PAYS
from games.verify import (
    Difference,
    StoredRound,
    check_round,
    derive_shoe,
    main,
    replay_baccarat,
    replay_war,
    report,
)
from games.war.rules import first_cards_tied, play_war, settle_war

ROOT = Path(__file__).resolve().parents[2]
SEED_A = "00" * 32  # client "alice", nonce 0, 8 decks
SEED_B = bytes(range(32)).hex()  # client "player-42", nonce 7, 6 decks: a war tie


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.verify", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_derive_shoe_is_the_fair_shuffle_of_the_ordered_shoe() -> None:
    shoe = derive_shoe(SEED_A, "alice", 0, 8)
    assert shoe == shuffle(new_shoe(8), FairRng(bytes(32), "alice", 0))
    assert shoe[:12] == parse_cards("4D 3C 2D KS KD 2D 9S 4H KS QC TS 9D")


def test_replay_baccarat_pinned() -> None:
    coup = replay_baccarat(SEED_A, "alice", 0, 8)
    assert coup == Coup(
        player=tuple(parse_cards("4D 2D")),
        banker=tuple(parse_cards("3C KS KD")),
        player_total=6,
        banker_total=3,
        winner="player",
        natural=False,
        player_pair=False,
        banker_pair=False,
    )


def test_replay_war_pinned_tie() -> None:
    with pytest.raises(ValueError):
        replay_war(SEED_B, "player-42", 7, 6)
    war = replay_war(SEED_B, "player-42", 7, 6, "war")
    assert (str(war.player_card), str(war.dealer_card)) == ("5C", "5S")
    assert (str(war.war_player_card), str(war.war_dealer_card)) == ("5D", "AD")  # burns 4S 3H 4D
    assert war.result == "war_lose"
    assert replay_war(SEED_B, "player-42", 7, 6, "surrender").result == "surrender"


def test_cli_baccarat_output() -> None:
    proc = run_cli(
        "--server-seed", SEED_A, "--client-seed", "alice", "--nonce", "0",
        "--game", "baccarat", "--decks", "8",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert (
        "server_seed_hash: 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925" in out
    )
    assert "first_cards: 4D 3C 2D KS KD 2D 9S 4H KS QC TS 9D" in out
    assert "player: 4D 2D" in out
    assert "banker: 3C KS KD" in out
    assert "player_total: 6" in out and "banker_total: 3" in out
    assert "winner: player" in out
    assert "natural: no" in out
    assert "player_pair: no" in out and "banker_pair: no" in out


def test_cli_war_output_and_json() -> None:
    base = ["--server-seed", SEED_B, "--client-seed", "player-42", "--nonce", "7", "--game", "war"]
    proc = run_cli(*base, "--decks", "6")
    assert proc.returncode == 0, proc.stderr
    assert "first_cards: 5C 5S 4S 3H 4D 5D AD KC 5S KS 8C 3C" in proc.stdout
    assert "tied: yes" in proc.stdout
    assert "--decision" in proc.stdout  # tells the player a decision is needed
    proc = run_cli(*base, "--decision", "war", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["server_seed_hash"] == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    assert data["decks"] == 6
    assert (data["player_card"], data["dealer_card"]) == ("5C", "5S")
    assert (data["war_player_card"], data["war_dealer_card"]) == ("5D", "AD")
    assert data["result"] == "war_lose"


def test_cli_refuses_a_bad_seed() -> None:
    proc = run_cli("--server-seed", "not-hex", "--client-seed", "c", "--nonce", "0")
    assert proc.returncode == 2
    assert "hexadecimal" in proc.stderr


def test_main_and_report_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--server-seed", SEED_A, "--client-seed", "alice", "--nonce", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == report(SEED_A, "alice", 0, "baccarat", 8)
    assert data["first_cards"][:3] == ["4D", "3C", "2D"]


# --- checking a stored round against its seeds ----------------------------------


COUP = StoredRound(
    game="baccarat",
    server_seed=SEED_A,
    server_seed_hash=server_seed_hash(bytes.fromhex(SEED_A)),
    client_seed="alice",
    nonce=0,
    decks=8,
    pays=CLASSIC_PAYS,
    bets={"player": 100},
    returns={"player": 200},
    cards=["4D", "3C", "2D", "KS", "KD"],
    result="player",
    player_total=6,
    banker_total=3,
    natural=False,
    player_pair=False,
    banker_pair=False,
)


def stored_coup(**changes: Any) -> StoredRound:
    """SEED_A's coup (Player 4D 2D = 6, Banker 3C KS KD = 3) as the site stores
    it, with 1 chip on PLAYER paid x2."""
    return replace(COUP, **changes)


WAR = StoredRound(
    game="war",
    server_seed=SEED_B,
    server_seed_hash=server_seed_hash(bytes.fromhex(SEED_B)),
    client_seed="player-42",
    nonce=7,
    decks=6,
    pays=WAR_PAYS,
    bets={"ante": 100, "raise": 100},
    returns={"ante": 0, "raise": 0, "tie_bet": 0},
    cards=["5C", "5S", "4S", "3H", "4D", "5D", "AD"],
    result="war_lose",
    decision="war",
)


def stored_war(**changes: Any) -> StoredRound:
    """SEED_B's war: a tie (5C 5S), 1 chip raised, then war lost (5D against AD)."""
    return replace(WAR, **changes)


def test_a_round_stored_as_dealt_matches() -> None:
    check = check_round(stored_coup())
    assert check.matches, check.differences
    assert check.derived_cards == ["4D", "3C", "2D", "KS", "KD"]
    assert check.derived_result == "player"
    war = check_round(stored_war())
    assert war.matches, war.differences
    assert war.derived_result == "war_lose"


def test_each_tampered_fact_is_named_with_both_values() -> None:
    check = check_round(
        stored_coup(
            cards=["4D", "3C", "9D", "KS", "KD"],
            result="banker",
            player_total=3,
            returns={"player": 0},
            server_seed_hash="00" * 32,
        )
    )
    assert check.differences == [
        Difference("server_seed_hash", "00" * 32, server_seed_hash(bytes.fromhex(SEED_A))),
        Difference("winner", "banker", "player"),
        Difference("player_total", 3, 6),
        Difference("return", 0, 200, where="player"),
        Difference("card", "9D", "2D", where=3),
    ]


def test_a_winning_bet_the_paytable_gives_no_number_for_is_named_not_raised() -> None:
    check = check_round(stored_coup(pays={"player": "two"}))
    assert check.differences == [Difference("pay", "two", where="player")]


def test_a_seed_that_is_not_hex_stops_the_check() -> None:
    check = check_round(stored_coup(server_seed="not hex"))
    assert check.differences == [Difference("server_seed", "not hex")]
    assert check.derived_cards == []


def test_a_war_tie_stored_without_its_decision_is_a_difference() -> None:
    check = check_round(stored_war(decision=None, cards=["5C", "5S"]))
    assert check.differences == [Difference("decision", None)]


def test_a_void_round_checks_its_dealt_cards_but_not_its_money() -> None:
    void = stored_coup(void=True, cards=["4D", "3C"], returns={}, result="")
    assert check_round(void).matches
    extra_card = stored_coup(void=True, cards=["4D", "3C", "2D", "KS", "KD", "7H"])
    assert check_round(extra_card).differences == [Difference("card_count", 6, 5)]


def untied_war(**changes: Any) -> StoredRound:
    """SEED_B's round at nonce 0 (6 decks), whose first cards do not tie,
    settled by the core with 1 chip on the ante and 1 on the tie bet."""
    shoe = derive_shoe(SEED_B, "player-42", 0, 6)
    assert not first_cards_tied(shoe)
    war = play_war(shoe, None)
    back = settle_war(war, 100, 100, decimal_pays(WAR_PAYS))
    genuine = replace(
        WAR,
        nonce=0,
        bets={"ante": 100, "tie_bet": 100},
        returns={"ante": back["ante"], "tie_bet": back["tie_bet"]},
        cards=[str(c) for c in shoe[:2]],
        result=war.result,
        decision=None,
    )
    return replace(genuine, **changes)


def test_a_war_round_that_did_not_tie_matches() -> None:
    check = check_round(untied_war())
    assert check.matches, check.differences


def test_a_war_multiplier_that_is_no_number_is_named_not_replaced_by_the_default() -> None:
    # The tie pays 11 by default: a paytable that says "eleven" must not
    # pass for the default just because the return happens to be 11 times.
    tie_bonus = stored_war(
        bets={"ante": 100, "raise": 100, "tie_bet": 100},
        returns={"ante": 0, "raise": 0, "tie_bet": 1_100},
        pays={**WAR_PAYS, "tie_bet": "eleven"},
    )
    assert check_round(tie_bonus).differences == [Difference("pay", "eleven", where="tie_bet")]
    assert check_round(replace(tie_bonus, pays=WAR_PAYS)).matches


def test_a_war_paytable_naming_a_pay_the_game_has_not_is_named() -> None:
    check = check_round(stored_war(pays={**WAR_PAYS, "insurance": "3"}))
    assert check.differences == [Difference("pay_unknown", where="insurance")]


def test_a_raise_that_is_not_the_ante_is_named_with_the_decision_it_was_staked_for() -> None:
    more = check_round(stored_war(bets={"ante": 100, "raise": 200}))
    assert more.differences == [Difference("raise", 200, 100, where="war")]
    none = check_round(stored_war(bets={"ante": 100}))
    assert none.differences == [Difference("raise", 0, 100, where="war")]


def test_a_raise_staked_without_a_war_is_named() -> None:
    surrender = stored_war(
        decision="surrender",
        cards=["5C", "5S"],
        result="surrender",
        bets={"ante": 100, "raise": 100},
        returns={"ante": 50},
    )
    assert check_round(surrender).differences == [Difference("raise", 100, 0, where="surrender")]
    untied = untied_war(bets={"ante": 100, "tie_bet": 100, "raise": 100})
    assert check_round(untied).differences == [Difference("raise", 100, 0)]


def test_a_decision_stored_on_a_round_that_did_not_tie_is_named() -> None:
    check = check_round(untied_war(decision="war"))
    assert check.differences == [Difference("decision_untied", "war")]


def test_a_war_result_stored_empty_is_named() -> None:
    check = check_round(stored_war(result=""))
    assert check.differences == [Difference("result", "", "war_lose")]


def test_a_void_tie_that_waited_for_its_decision_is_checked_as_far_as_it_was_dealt() -> None:
    waiting = stored_war(void=True, decision=None, cards=["5C", "5S"], returns={}, result="")
    assert check_round(waiting).matches, check_round(waiting).differences
    swapped = replace(waiting, cards=["5S", "5C"])
    assert check_round(swapped).differences == [
        Difference("card", "5S", "5C", where=1),
        Difference("card", "5C", "5S", where=2),
    ]


def test_a_bet_on_no_area_of_the_game_or_a_stake_in_no_whole_units_is_named() -> None:
    check = check_round(stored_coup(bets={"player": 100, "dragon": 100}))
    assert check.differences == [Difference("area", where="dragon")]
    check = check_round(stored_coup(bets={"player": 99.5}))
    assert check.differences == [Difference("stake", 99.5, where="player")]
    check = check_round(stored_war(bets={"ante": 100, "raise": True}))
    assert check.differences == [Difference("stake", True, where="raise")]


def test_a_stored_return_that_is_no_number_is_named_as_stored() -> None:
    check = check_round(stored_coup(returns={"player": "lots"}))
    assert check.differences == [Difference("return", "lots", 200, where="player")]


@pytest.mark.parametrize(
    ("changes", "difference"),
    [
        ({"server_seed": ""}, Difference("server_seed", "")),
        ({"game": "roulette"}, Difference("game", "roulette")),
        ({"nonce": -1}, Difference("nonce", -1)),
        ({"decks": 0}, Difference("decks", 0)),
        ({"decks": 9}, Difference("decks", 9)),
    ],
)
def test_inputs_no_table_deals_from_are_named_not_raised(
    changes: dict[str, Any], difference: Difference
) -> None:
    check = check_round(stored_coup(**changes))
    assert check.differences == [difference]
    assert check.derived_cards == []
