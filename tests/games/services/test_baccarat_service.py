"""Baccarat rounds through the service: what each bet area returns, what is
refused (taking nothing), idempotent BETs and a failure half-way.

Shoes are chosen, never patched: ``seed_for`` tries server seeds with the
pure core until the shuffle deals the wanted coup, and the player's profile
is set to use that seed for the next round.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from functools import cache

import pytest

from games.baccarat.rules import Coup, play_coup
from games.errors import BetRefused, GameError, InsufficientChips, TableClosed
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services import baccarat, bets
from games.services.faults import InjectedFault, inject_fault
from games.services.player_settings import change_client_seed
from games.verify import derive_shoe
from tests.groups import heard
from tests.threads import at_once

CLIENT_SEED = "baccarat-tests"
CHIP = 100

CASES: dict[str, Callable[[Coup], bool]] = {
    "player": lambda c: c.winner == "player" and not c.player_pair and not c.banker_pair,
    "banker": lambda c: c.winner == "banker" and not c.player_pair and not c.banker_pair,
    "tie": lambda c: c.winner == "tie" and not c.player_pair and not c.banker_pair,
    "player_pair": lambda c: c.player_pair and not c.banker_pair and c.winner == "banker",
    "banker_pair": lambda c: c.banker_pair and not c.player_pair and c.winner == "player",
    "tie_with_pair": lambda c: c.winner == "tie" and c.player_pair,
    "six_cards": lambda c: len(c.player) == 3 and len(c.banker) == 3,
}


@cache
def seed_for(case: str, decks: int = 8) -> str:
    """A server seed whose shoe (client seed CLIENT_SEED, nonce 0) deals ``case``."""
    wanted = CASES[case]
    for i in range(200_000):
        seed = hashlib.sha256(f"baccarat-test-{i}".encode()).hexdigest()
        if wanted(play_coup(derive_shoe(seed, CLIENT_SEED, 0, decks))):
            return seed
    raise AssertionError(f"no seed deals {case}")


def coup_of(case: str, decks: int = 8) -> Coup:
    return play_coup(derive_shoe(seed_for(case, decks), CLIENT_SEED, 0, decks))


def next_shoe(user, case: str, decks: int = 8) -> None:
    """The player's next round is dealt from the shoe of ``case``."""
    Profile.objects.filter(user=user).update(
        next_server_seed=seed_for(case, decks), client_seed=CLIENT_SEED, nonce=0
    )


@pytest.fixture
def classic(db) -> Table:
    """8 decks: PLAYER x2, BANKER x1.95, TIE x9, PAIRS x12; MIN 10, MAX BET 25,000."""
    return Table.objects.get(slug="baccarat-classic")


def balance(user) -> int:
    return Wallet.objects.get(user=user).balance


def snapshot(user) -> tuple:
    """Everything a refused bet must leave untouched."""
    profile = Profile.objects.get(user=user)
    return (
        balance(user),
        LedgerEntry.objects.filter(wallet__user=user).count(),
        Round.objects.filter(player=user).count(),
        profile.nonce,
        profile.next_server_seed,
    )


def play(user, table, case: str, **bets_in_chips: int) -> Round:
    next_shoe(user, case, table.decks)
    bets = {area: chips * CHIP for area, chips in bets_in_chips.items()}
    return baccarat.place_bet(user=user, table=table, bets=bets, slip_key=f"{case}-{sorted(bets)}")


# --- returns ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "side_bets", "expected"),
    [
        # PLAYER wins: PLAYER x2, TIE and both PAIRs lose.
        (
            "player",
            {"player": 100, "tie": 10, "player_pair": 10, "banker_pair": 10},
            {"player": 20_000, "tie": 0, "player_pair": 0, "banker_pair": 0},
        ),
        ("player", {"banker": 100}, {"banker": 0}),
        # BANKER wins: BANKER x1.95.
        ("banker", {"banker": 100, "tie": 10}, {"banker": 19_500, "tie": 0}),
        ("banker", {"player": 100, "player_pair": 10}, {"player": 0, "player_pair": 0}),
        # TIE: TIE x9, PLAYER and BANKER pushed back, PAIRs still lose.
        (
            "tie",
            {"player": 100, "tie": 10, "banker_pair": 10},
            {"player": 10_000, "tie": 9_000, "banker_pair": 0},
        ),
        ("tie", {"banker": 100}, {"banker": 10_000}),
        # PAIRs x12, settled on their own (also on a tie).
        (
            "player_pair",
            {"player": 20, "player_pair": 10, "banker_pair": 10},
            {"player": 0, "player_pair": 12_000, "banker_pair": 0},
        ),
        (
            "banker_pair",
            {"player": 20, "player_pair": 10, "banker_pair": 10},
            {"player": 4_000, "player_pair": 0, "banker_pair": 12_000},
        ),
        (
            "tie_with_pair",
            {"banker": 10, "player_pair": 10},
            {"banker": 1_000, "player_pair": 12_000},
        ),
    ],
)
def test_it_returns_what_each_area_pays(make_player, classic, case, side_bets, expected):
    user = make_player(chips=1_000)
    rnd = play(user, classic, case, **side_bets)
    coup = coup_of(case)
    stakes = {area: chips * CHIP for area, chips in side_bets.items()}
    total_bet, total_return = sum(stakes.values()), sum(expected.values())

    assert rnd.returns == expected
    assert rnd.bets == stakes
    assert (rnd.total_bet, rnd.total_return) == (total_bet, total_return)
    assert rnd.balance_before == 100_000
    assert rnd.balance_after == 100_000 - total_bet + total_return == balance(user)
    net = total_return - total_bet
    assert rnd.outcome == ("win" if net > 0 else "lose" if net < 0 else "push")
    # The stored round is the coup the seeds deal, in deal order.
    assert rnd.cards == [str(c) for c in coup.cards_in_deal_order]
    assert rnd.winner == coup.winner == rnd.detail["winner"]
    assert (rnd.player_pair, rnd.banker_pair) == (coup.player_pair, coup.banker_pair)
    assert rnd.detail["player"] == [str(c) for c in coup.player]
    assert rnd.detail["banker"] == [str(c) for c in coup.banker]
    assert (rnd.detail["player_total"], rnd.detail["banker_total"]) == (
        coup.player_total,
        coup.banker_total,
    )
    assert rnd.detail["natural"] == coup.natural
    # The seed is revealed with the round and re-derives its shoe.
    assert rnd.server_seed == seed_for(case)
    assert rnd.server_seed_hash == hashlib.sha256(bytes.fromhex(seed_for(case))).hexdigest()
    assert (rnd.client_seed, rnd.nonce) == (CLIENT_SEED, 0)
    assert rnd.version_id == classic.current_version_id
    assert rnd.status == Round.Status.SETTLED and rnd.settled_at is not None
    # One ledger row per stake and per return, all tied to the round.
    rows = list(LedgerEntry.objects.filter(round=rnd).order_by("id"))
    assert sorted((r.kind, r.amount) for r in rows) == sorted(
        [("bet", -s) for s in stakes.values()] + [("payout", v) for v in expected.values() if v]
    )
    assert rows[-1].balance_after == balance(user)


@pytest.mark.engines
def test_it_numbers_rounds_and_moves_the_seeds_on(make_player, classic):
    user = make_player(chips=1_000)
    first = play(user, classic, "player", player=10)
    profile = Profile.objects.get(user=user)
    assert profile.nonce == 1
    assert profile.next_server_seed != seed_for("player")  # a fresh commitment
    second = baccarat.place_bet(
        user=user, table=classic, bets={"banker": 10 * CHIP}, slip_key="second"
    )
    assert (first.seq, second.seq) == (1, 2)
    assert second.nonce == 1
    assert second.server_seed == profile.next_server_seed


# --- refusals --------------------------------------------------------------


@pytest.mark.parametrize(
    ("bets", "error", "message"),
    [
        ({"player": 100, "banker": 100}, BetRefused, "PLAYER and BANKER cannot both be bet"),
        ({"tie": 5}, BetRefused, "minimum bet on TIE is 10"),
        # Every area under its minimum at once: the player mends them in one go.
        (
            {"banker": 10, "tie": 5, "player_pair": 1, "banker_pair": 1},
            BetRefused,
            "minimum bet on TIE is 10 chips. The minimum bet on PLAYER PAIR is 10 chips. "
            "The minimum bet on BANKER PAIR is 10 chips.$",
        ),
        ({"player_pair": 2_001}, BetRefused, "maximum bet on PLAYER PAIR is 2,000"),
        (
            {"player": 20_000, "tie": 2_000, "player_pair": 2_000, "banker_pair": 2_000},
            BetRefused,
            "MAX BET for one round is 25,000",
        ),
        ({}, BetRefused, "Place at least one chip"),
        ({"player": 0}, BetRefused, "Place at least one chip"),
        ({"dragon": 10}, BetRefused, "no dragon bet"),
    ],
)
def test_it_refuses_a_bad_slip_and_takes_nothing(make_player, classic, bets, error, message):
    user = make_player(chips=100_000)
    before = snapshot(user)
    with pytest.raises(error, match=message):
        baccarat.place_bet(
            user=user,
            table=classic,
            bets={area: chips * CHIP for area, chips in bets.items()},
            slip_key="refused",
        )
    assert snapshot(user) == before


def test_it_refuses_part_chips(make_player, classic):
    """The Classic table takes cents in steps of its smallest chip (0.10); the
    Social table takes whole chips."""
    user = make_player(chips=1_000)
    before = snapshot(user)
    with pytest.raises(BetRefused, match="steps of 0.10 chips"):
        baccarat.place_bet(user=user, table=classic, bets={"player": 1_055}, slip_key="k")
    social = Table.objects.get(slug="baccarat-social")
    with pytest.raises(BetRefused, match="whole chips"):
        baccarat.place_bet(user=user, table=social, bets={"player": 1_050}, slip_key="k")
    assert snapshot(user) == before


@pytest.mark.engines
def test_it_refuses_a_bet_over_the_balance(make_player, classic):
    user = make_player(chips=50)
    before = snapshot(user)
    with pytest.raises(InsufficientChips, match="needs 100 and your balance is 50"):
        baccarat.place_bet(user=user, table=classic, bets={"banker": 100 * CHIP}, slip_key="k")
    assert snapshot(user) == before


def test_it_honours_a_personal_max_bet(make_player, classic):
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(personal_max_bet=50 * CHIP)
    before = snapshot(user)
    with pytest.raises(BetRefused, match="personal max bet is 50 chips"):
        baccarat.place_bet(user=user, table=classic, bets={"banker": 60 * CHIP}, slip_key="k")
    assert snapshot(user) == before
    rnd = baccarat.place_bet(user=user, table=classic, bets={"banker": 50 * CHIP}, slip_key="k2")
    assert rnd.total_bet == 50 * CHIP


@pytest.mark.engines
def test_it_refuses_a_closed_table(make_player, classic):
    user = make_player(chips=1_000)
    Table.objects.filter(pk=classic.pk).update(enabled=False)
    classic.refresh_from_db()
    before = snapshot(user)
    with pytest.raises(TableClosed):
        baccarat.place_bet(user=user, table=classic, bets={"banker": 10 * CHIP}, slip_key="k")
    assert snapshot(user) == before


def test_rebet_is_lowered_to_the_limits_and_the_balance(make_player, classic):
    user = make_player(chips=100)
    limits = bets.baccarat_limits(user=user, version=classic.current_version)
    fitted, capped = bets.fit_bets(
        wanted={"player": 40 * CHIP, "tie": 30 * CHIP}, limits=limits, balance=1_000_000
    )
    assert (fitted, capped) == ({"player": 4_000, "tie": 3_000}, False)
    # x2 past the TIE maximum and past the balance.
    fitted, capped = bets.fit_bets(
        wanted={"player": 80 * CHIP, "tie": 4_000 * CHIP}, limits=limits, balance=100 * CHIP
    )
    assert capped
    assert fitted == {"player": 8_000, "tie": 2_000}
    # What is left under an area's MIN is dropped.
    fitted, capped = bets.fit_bets(
        wanted={"player": 95 * CHIP, "tie": 10 * CHIP}, limits=limits, balance=100 * CHIP
    )
    assert (fitted, capped) == ({"player": 9_500}, True)


# --- idempotency, faults, events --------------------------------------------


@pytest.mark.engines
def test_the_same_slip_charges_once(make_player, classic):
    user = make_player(chips=1_000)
    first = baccarat.place_bet(user=user, table=classic, bets={"tie": 10 * CHIP}, slip_key="dup")
    after = balance(user)
    again = baccarat.place_bet(user=user, table=classic, bets={"tie": 10 * CHIP}, slip_key="dup")
    # A replay even with a different (or emptied) slip returns the same round.
    empty = baccarat.place_bet(user=user, table=classic, bets={}, slip_key="dup")
    assert first.pk == again.pk == empty.pk
    assert balance(user) == after
    assert LedgerEntry.objects.filter(wallet__user=user, kind="bet").count() == 1


@pytest.mark.engines
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_bets_with_the_same_slip_charge_once(make_player):
    user = make_player(chips=1_000)
    table = Table.objects.get(slug="baccarat-classic")

    def bet(_: int) -> int:
        return baccarat.place_bet(
            user=user, table=table, bets={"banker": 100 * CHIP}, slip_key="double-click"
        ).pk

    results = at_once(2, bet, seconds=30)
    assert len(results) == 2 and all(isinstance(r, int) for r in results), results
    assert results[0] == results[1]
    assert Round.objects.filter(player=user).count() == 1
    rnd = Round.objects.get(player=user)
    assert LedgerEntry.objects.filter(wallet__user=user, kind="bet").count() == 1
    assert balance(user) == 100_000 - 10_000 + rnd.total_return


@pytest.mark.engines
def test_a_failure_after_the_debit_rolls_the_whole_round_back(make_player, classic):
    user = make_player(chips=1_000)
    next_shoe(user, "banker")
    before = snapshot(user)
    with inject_fault("baccarat.after_debit"), pytest.raises(InjectedFault):
        baccarat.place_bet(user=user, table=classic, bets={"banker": 100 * CHIP}, slip_key="f")
    assert snapshot(user) == before
    assert not LedgerEntry.objects.filter(wallet__user=user, kind__in=["bet", "payout"]).exists()
    # Nothing armed: the same slip now plays normally, with the same shoe.
    rnd = baccarat.place_bet(user=user, table=classic, bets={"banker": 100 * CHIP}, slip_key="f")
    assert rnd.server_seed == seed_for("banker")


@pytest.mark.engines
def test_it_announces_the_round_to_the_players_tables_after_commit(
    make_player, classic, django_capture_on_commit_callbacks
):
    user = make_player(chips=1_000)
    with (
        django_capture_on_commit_callbacks(execute=False) as callbacks,
        pytest.raises(GameError),
    ):
        baccarat.place_bet(user=user, table=classic, bets={"tie": 1 * CHIP}, slip_key="x")
    assert callbacks == []  # a refused bet announces nothing

    def bet() -> tuple[Round, list]:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            rnd = baccarat.place_bet(
                user=user, table=classic, bets={"tie": 10 * CHIP}, slip_key="y"
            )
        return rnd, callbacks

    (rnd, callbacks), event = heard(baccarat.reveal_group(user.pk), bet)
    # One push (the other callback writes the round's log line).
    assert [c.func.__name__ for c in callbacks] == ["send_now", "log_round"]
    # When BET reached the server: the socket counts BET-to-result from it.
    assert time.time() - 60 < event.pop("bet_at") <= time.time()
    assert event == {
        "type": "round.reveal",
        "round_id": rnd.pk,
        "table": classic.slug,
        "squeeze": None,
    }
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        baccarat.place_bet(user=user, table=classic, bets={"tie": 10 * CHIP}, slip_key="y")
    assert callbacks == []  # a replayed slip is not shown twice


# --- the client seed ---------------------------------------------------------


def test_a_new_client_seed_shuffles_the_next_round(make_player, classic):
    user = make_player(chips=1_000)
    assert change_client_seed(user=user, client_seed="  lucky seven  ") == "lucky seven"
    rnd = baccarat.place_bet(user=user, table=classic, bets={"tie": 10 * CHIP}, slip_key="s")
    assert rnd.client_seed == "lucky seven"
    assert rnd.cards == [
        str(c)
        for c in play_coup(
            derive_shoe(rnd.server_seed, "lucky seven", rnd.nonce, 8)
        ).cards_in_deal_order
    ]


@pytest.mark.parametrize(("stake", "paid"), [(10, 19), (20, 39), (30, 58)])
def test_a_cent_banker_win_on_classic_is_floored_to_the_cent(make_player, classic, stake, paid):
    """Seed 001: BANKER pays 1.95 times the stake, floored to the cent:
    0.10 -> 0.19, 0.20 -> 0.39, 0.30 -> 0.58."""
    user = make_player(chips=100)
    next_shoe(user, "banker")
    rnd = baccarat.place_bet(user=user, table=classic, bets={"banker": stake}, slip_key="c")
    assert rnd.winner == "banker"
    assert rnd.returns == {"banker": paid}
    assert Wallet.objects.get(user=user).balance == 10_000 - stake + paid
    assert LedgerEntry.objects.filter(wallet__user=user, kind="payout").get().amount == paid
