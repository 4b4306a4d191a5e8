"""Casino War rounds through the service: what a player is paid, what is
refused, and the tie decision that waits (timeouts, coming back, restarts).

Shoes are chosen, never patched: ``seed_for`` searches server seeds with the
pure core until the shuffle deals the wanted case, and the player's profile
is set to use that seed next.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games.errors import BetRefused, GameError, InsufficientChips
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.services import war
from games.services.tables import save_table, table_snapshot
from games.verify import derive_shoe
from tests.seeds import find_seed, war_cases

ROOT = Path(__file__).resolve().parents[3]
CLIENT_SEED = "war-tests"
CHIP = 100


@cache
def seed_for(case: str, decks: int = 6) -> str:
    """A server seed whose shoe (client seed CLIENT_SEED, nonce 0) deals ``case``:
    a result of ``play_war`` ("win", "lose", "war_win", ...) or "tie"."""
    return find_seed("war-test", CLIENT_SEED, decks, lambda shoe: case in war_cases(shoe))


def shoe_of(case: str) -> list[str]:
    return [str(c) for c in derive_shoe(seed_for(case), CLIENT_SEED, 0, 6)]


def next_shoe(user, case: str) -> None:
    """The player's next round is dealt from the shoe of ``case``."""
    Profile.objects.filter(user=user).update(
        next_server_seed=seed_for(case), client_seed=CLIENT_SEED, nonce=0
    )


@pytest.fixture
def table(db) -> Table:
    return Table.objects.get(slug="casino-war")


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


def deal(user, table, *, ante: int, tie_bet: int = 0, slip: str = "slip-1", **kw) -> Round:
    return war.deal(
        user=user, table=table, ante=ante * CHIP, tie_bet=tie_bet * CHIP, slip_key=slip, **kw
    )


# --- returns --------------------------------------------------------------------


@pytest.mark.engines
def test_it_pays_the_ante_1_to_1_when_the_player_card_is_higher(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "win")
    rnd = deal(user, table, ante=10)
    assert rnd.status == Round.Status.SETTLED
    assert rnd.detail["result"] == "win"
    assert rnd.returns == {"ante": 2_000}
    assert rnd.cards == shoe_of("win")[:2]
    assert (rnd.balance_before, rnd.balance_after) == (100_000, 101_000)
    assert balance(user) == 101_000
    assert rnd.outcome == Round.Outcome.WIN
    assert rnd.server_seed == seed_for("win") and rnd.client_seed == CLIENT_SEED
    assert rnd.version_id == table.current_version_id
    rows = LedgerEntry.objects.filter(wallet__user=user, round=rnd)
    assert sorted(rows.values_list("amount", flat=True)) == [-1_000, 2_000]


def test_it_takes_the_ante_when_the_dealer_card_is_higher(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "lose")
    rnd = deal(user, table, ante=10, tie_bet=2)
    assert rnd.detail["result"] == "lose"
    assert rnd.returns == {"ante": 0, "tie_bet": 0}
    assert rnd.total_bet == 1_200 and rnd.total_return == 0
    assert balance(user) == 100_000 - 1_200
    assert rnd.outcome == Round.Outcome.LOSE


@pytest.mark.engines
def test_a_tie_waits_for_the_decision_with_the_bets_taken(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "tie")
    before = timezone.now()
    rnd = deal(user, table, ante=10)
    assert rnd.status == Round.Status.OPEN
    assert rnd.cards == shoe_of("tie")[:2]
    assert rnd.settled_at is None and rnd.balance_after is None
    assert balance(user) == 100_000 - 1_000
    timeout = table.current_version.decision_timeout
    assert rnd.decision_deadline >= before + dt.timedelta(seconds=timeout)


def test_surrender_gives_back_half_the_ante(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "tie")
    rnd = deal(user, table, ante=25)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="surrender")
    assert rnd.status == Round.Status.SETTLED
    assert rnd.detail["decision"] == "surrender" and rnd.detail["result"] == "surrender"
    assert rnd.returns == {"ante": 1_250}
    assert rnd.cards == shoe_of("tie")[:2]
    assert balance(user) == 100_000 - 2_500 + 1_250
    assert rnd.balance_after == balance(user)
    assert rnd.outcome == Round.Outcome.LOSE


@pytest.mark.engines
def test_a_war_win_pays_the_raise_and_pushes_the_ante(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_win")
    rnd = deal(user, table, ante=10)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.detail["result"] == "war_win"
    assert rnd.bets == {"ante": 1_000, "raise": 1_000}
    assert rnd.returns == {"ante": 1_000, "raise": 2_000}
    # player, dealer, three burns, war player, war dealer: the shoe's order
    assert rnd.cards == shoe_of("war_win")[:7]
    assert balance(user) == 100_000 + 1_000
    assert rnd.outcome == Round.Outcome.WIN
    kinds = list(LedgerEntry.objects.filter(round=rnd).order_by("id").values_list("kind", "amount"))
    assert kinds == [("bet", -1_000), ("bet", -1_000), ("payout", 1_000), ("payout", 2_000)]


def test_a_war_loss_loses_ante_and_raise(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_lose")
    rnd = deal(user, table, ante=10)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.detail["result"] == "war_lose"
    assert rnd.returns == {"ante": 0, "raise": 0}
    assert rnd.cards == shoe_of("war_lose")[:7]
    assert balance(user) == 100_000 - 2_000


def test_a_war_tie_counts_as_a_win_for_the_player(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_tie")
    rnd = deal(user, table, ante=10)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.detail["result"] == "war_tie"
    cards = rnd.cards
    assert cards[5][0] == cards[6][0]
    assert rnd.returns == {"ante": 1_000, "raise": 2_000}
    assert balance(user) == 100_000 + 1_000


def test_the_tie_bonus_pays_10_to_1_as_soon_as_the_first_cards_tie(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_lose")
    rnd = deal(user, table, ante=10, tie_bet=3)
    assert rnd.returns == {"tie_bet": 3_300}
    assert balance(user) == 100_000 - 1_300 + 3_300
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    # The war is lost but the tie bonus stays paid, once.
    assert rnd.returns == {"ante": 0, "raise": 0, "tie_bet": 3_300}
    assert rnd.total_bet == 2_300 and rnd.total_return == 3_300
    assert balance(user) == 100_000 - 2_300 + 3_300
    assert LedgerEntry.objects.filter(round=rnd, amount=3_300).count() == 1


def test_a_decision_is_settled_under_the_round_own_paytable(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_tie")
    rnd = deal(user, table, ante=10)
    before = table_snapshot(table)
    table.pays = {**table.pays, "raise": "3", "war_tie_bonus": "1"}
    save_table(table=table, actor=None, before=before)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.version.pays["raise"] == "2"
    assert rnd.returns == {"ante": 1_000, "raise": 2_000}
    # The next tie is played under the new paytable, with its tie-in-war bonus.
    next_shoe(user, "war_tie")
    later = deal(user, table, ante=10, slip="slip-2")
    later = war.decide(user=user, round_id=later.pk, decision="war")
    assert later.returns == {"ante": 2_000, "raise": 3_000}


# --- refusals ---------------------------------------------------------------------


def test_war_is_refused_when_the_raise_is_short_and_surrender_remains(make_player, table):
    user = make_player(chips=10)
    next_shoe(user, "tie")
    rnd = deal(user, table, ante=10)
    assert balance(user) == 0
    before = snapshot(user)
    with pytest.raises(InsufficientChips) as refused:
        war.decide(user=user, round_id=rnd.pk, decision="war")
    assert refused.value.code == "raise_short"
    assert "surrender" in refused.value.message.lower()
    assert snapshot(user) == before
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN
    rnd = war.decide(user=user, round_id=rnd.pk, decision="surrender")
    assert balance(user) == 500


@pytest.mark.parametrize(
    ("ante", "tie_bet", "chips", "code"),
    [
        (5_001, 0, 10_000, "area_max"),  # over the ante maximum
        (10, 501, 10_000, "area_max"),  # over the tie bonus maximum
        (20, 0, 10, "balance"),  # more than the balance
        (0, 5, 10_000, "empty"),  # no ante
        (-5, 0, 10_000, "chips"),
    ],
)
def test_nothing_moves_on_a_refused_bet(make_player, table, ante, tie_bet, chips, code):
    user = make_player(chips=chips)
    before = snapshot(user)
    with pytest.raises(GameError) as refused:
        deal(user, table, ante=ante, tie_bet=tie_bet)
    assert refused.value.code == code
    assert snapshot(user) == before


def test_a_bet_in_fractions_of_a_chip_is_refused(make_player, table):
    user = make_player(chips=1_000)
    before = snapshot(user)
    with pytest.raises(BetRefused):
        war.deal(user=user, table=table, ante=1_050, tie_bet=0, slip_key="s")
    assert snapshot(user) == before


def test_an_ante_under_the_minimum_is_raised_to_it(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "lose")
    rnd = deal(user, table, ante=1)
    assert rnd.bets == {"ante": 500}
    assert rnd.detail["ante_raised_from"] == 100
    assert balance(user) == 100_000 - 500


def test_the_personal_max_bet_refuses_a_bigger_war_bet(make_player, table):
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(personal_max_bet=40 * CHIP)
    before = snapshot(user)
    with pytest.raises(BetRefused) as refused:
        deal(user, table, ante=40, tie_bet=1)
    assert refused.value.code == "personal_max"
    assert snapshot(user) == before
    assert deal(user, table, ante=20).total_bet == 2_000


def test_a_personal_max_of_100_never_lets_one_round_stake_200_through_a_war(make_player, table):
    """The issue's attack: with a personal max bet of 100, an ante of 100
    went to war and 200 was staked in one round. The ante is refused at the
    bet, saying the largest that can still go to war; that one can, and the
    whole round stays within 100."""
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(personal_max_bet=100 * CHIP)
    before = snapshot(user)
    with pytest.raises(BetRefused) as refused:
        deal(user, table, ante=100)
    assert refused.value.code == "personal_max"
    assert "raise included" in refused.value.message
    assert "largest ANTE that can still go to war is 50 chips" in refused.value.message
    assert snapshot(user) == before
    with pytest.raises(BetRefused, match="largest ANTE that can still go to war is 45 chips"):
        deal(user, table, ante=50, tie_bet=10)  # the tie bet takes room too
    next_shoe(user, "war_lose")
    rnd = deal(user, table, ante=50)
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.bets == {"ante": 5_000, "raise": 5_000}
    assert rnd.total_bet == 100 * CHIP


def test_the_tables_max_bet_bounds_a_war_raise_too(make_player, table):
    edit = table_snapshot(table)
    table.max_bet = 5_500 * CHIP  # an operator's MAX BET below two top antes
    save_table(table=table, actor=None, before=edit)
    user = make_player(chips=10_000)
    before = snapshot(user)
    with pytest.raises(BetRefused) as refused:
        deal(user, table, ante=2_751)
    assert refused.value.code == "max_bet"
    assert "The MAX BET for one round is 5,500 chips, a war's raise included" in (
        refused.value.message
    )
    assert "largest ANTE that can still go to war is 2,750 chips" in refused.value.message
    assert snapshot(user) == before
    assert deal(user, table, ante=2_750).total_bet == 2_750 * CHIP


def test_an_ante_raised_to_the_minimum_that_could_not_go_to_war_is_refused(make_player, table):
    """A personal max of 9 chips: the ante is raised to the table's 5, whose
    war would stake 10. No ante can go to war, and the refusal says so."""
    user = make_player(chips=1_000)
    Profile.objects.filter(user=user).update(personal_max_bet=9 * CHIP)
    before = snapshot(user)
    with pytest.raises(BetRefused, match="no ANTE can go to war") as refused:
        deal(user, table, ante=1)
    assert refused.value.code == "personal_max"
    assert snapshot(user) == before


def test_a_closed_table_refuses_a_deal(make_player, table):
    user = make_player(chips=1_000)
    Table.objects.filter(pk=table.pk).update(enabled=False)
    table.refresh_from_db()
    before = snapshot(user)
    with pytest.raises(GameError):
        deal(user, table, ante=10)
    assert snapshot(user) == before


# --- idempotency ---------------------------------------------------------------------


@pytest.mark.engines
def test_a_double_deal_with_the_same_slip_charges_once(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "lose")
    first = deal(user, table, ante=10, slip="double")
    second = deal(user, table, ante=10, slip="double")
    assert first.pk == second.pk
    assert balance(user) == 100_000 - 1_000
    assert Round.objects.filter(player=user).count() == 1


@pytest.mark.engines
def test_a_second_decision_is_refused_and_moves_nothing(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_win")
    rnd = deal(user, table, ante=10)
    war.decide(user=user, round_id=rnd.pk, decision="war")
    before = snapshot(user)
    for decision in ("war", "surrender"):
        with pytest.raises(GameError) as refused:
            war.decide(user=user, round_id=rnd.pk, decision=decision)
        assert refused.value.code == "settled"
    assert snapshot(user) == before


def test_a_player_cannot_decide_someone_elses_round(make_player, table):
    owner, other = make_player(chips=1_000), make_player(chips=1_000)
    next_shoe(owner, "tie")
    rnd = deal(owner, table, ante=10)
    with pytest.raises(GameError) as refused:
        war.decide(user=other, round_id=rnd.pk, decision="surrender")
    assert refused.value.code == "missing"
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN


# --- the waiting round: timeout, coming back ------------------------------------------


@pytest.mark.engines
def test_a_new_deal_is_refused_while_the_tie_decision_waits(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "tie")
    rnd = deal(user, table, ante=10)
    before = snapshot(user)
    with pytest.raises(GameError) as refused:
        deal(user, table, ante=10, slip="slip-2")
    assert refused.value.code == "open_round"
    assert "finish your war decision first" in refused.value.message.lower()
    assert snapshot(user) == before
    war.decide(user=user, round_id=rnd.pk, decision="surrender")
    assert deal(user, table, ante=10, slip="slip-3").pk != rnd.pk


def test_timeout_saves_the_round_and_coming_back_resumes_it(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "war_win")
    start = timezone.now()
    rnd = deal(user, table, ante=10, now=start)
    late = start + dt.timedelta(seconds=60)
    assert war.timed_out(Round.objects.get(pk=rnd.pk), now=late)
    before = snapshot(user)
    with pytest.raises(GameError) as refused:
        war.decide(user=user, round_id=rnd.pk, decision="war", now=late)
    assert refused.value.code == "timeout"
    assert snapshot(user) == before
    saved = Round.objects.get(pk=rnd.pk)
    assert saved.status == Round.Status.OPEN and saved.cards == rnd.cards

    back = war.resume(user=user, table=table, now=late)
    assert back.pk == rnd.pk and back.cards == rnd.cards
    assert back.decision_deadline == late + dt.timedelta(seconds=30)
    assert not war.timed_out(back, now=late + dt.timedelta(seconds=29))
    settled = war.decide(user=user, round_id=rnd.pk, decision="war", now=late)
    assert settled.returns == {"ante": 1_000, "raise": 2_000}


def test_coming_back_while_the_countdown_runs_buys_no_time(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "tie")
    start = timezone.now()
    rnd = deal(user, table, ante=10, now=start)
    back = war.resume(user=user, table=table, now=start + dt.timedelta(seconds=29))
    assert back.decision_deadline == rnd.decision_deadline
    assert Round.objects.get(pk=rnd.pk).decision_deadline == rnd.decision_deadline
    late = rnd.decision_deadline + war.DECISION_GRACE + dt.timedelta(seconds=1)
    with pytest.raises(GameError) as refused:
        war.decide(user=user, round_id=rnd.pk, decision="war", now=late)
    assert refused.value.code == "timeout"


def test_a_decision_a_moment_after_the_deadline_still_counts(make_player, table):
    user = make_player(chips=1_000)
    next_shoe(user, "tie")
    start = timezone.now()
    rnd = deal(user, table, ante=10, now=start)
    just_late = rnd.decision_deadline + dt.timedelta(seconds=1)
    assert war.decide(user=user, round_id=rnd.pk, decision="surrender", now=just_late)


RESTART_SCRIPT = """
import json
from django.contrib.auth import get_user_model
from games.errors import GameError
from games.models import Table
from games.services import war
user = get_user_model().objects.get(username={username!r})
table = Table.objects.get(slug="casino-war")
out = {{}}
try:
    war.deal(user=user, table=table, ante=1000, tie_bet=0, slip_key="after-restart")
except GameError as exc:
    out["refused"] = exc.code
rnd = war.resume(user=user, table=table)
out["round"] = rnd.pk
out["cards"] = rnd.cards
out["status"] = rnd.status
print("RESULT" + json.dumps(out))
"""


@pytest.mark.engines
@pytest.mark.django_db(transaction=True)
def test_the_waiting_round_survives_a_restart(make_player):
    """A fresh process reading the same database finds the round, refuses a
    new deal and resumes it with the same cards."""
    table = Table.objects.get(slug="casino-war")
    user = make_player("restarted", chips=1_000)
    next_shoe(user, "war_win")
    rnd = deal(user, table, ante=10)
    assert rnd.status == Round.Status.OPEN
    db = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings"}
    if connection.vendor == "postgresql":  # the test database, not the one DATABASE_URL names
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        )
    else:
        env["CASINO_SQLITE_PATH"] = str(db["NAME"])
    proc = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", RESTART_SCRIPT.format(username="restarted")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))
    out = json.loads(line.removeprefix("RESULT"))
    assert out == {
        "refused": "open_round",
        "round": rnd.pk,
        "cards": shoe_of("war_win")[:2],
        "status": "open",
    }
    assert Round.objects.filter(player=user).count() == 1
    rnd = war.decide(user=user, round_id=rnd.pk, decision="war")
    assert rnd.cards == shoe_of("war_win")[:7]
