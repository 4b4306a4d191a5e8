"""The mean and variance of one bet, which the live RTP watch adds up
(docs/monitoring.md): exact, from the exact odds, paid as the rules pay."""

from __future__ import annotations

import random
import statistics
from fractions import Fraction

import pytest

from games.baccarat.odds import bet_moments, exact_odds, rtp
from games.baccarat.rules import CLASSIC_PAYS, SOCIAL_PAYS, play_coup, settle
from games.cards import new_shoe, shuffle
from games.war.odds import tie_bet_moments, tie_probability
from games.war.rules import DEFAULT_PAYS


@pytest.mark.parametrize("area", ["player", "banker", "tie", "player_pair", "banker_pair"])
def test_it_expects_the_paytables_rtp_when_nothing_is_floored(area):
    mean, variance = bet_moments(area, 100, CLASSIC_PAYS, 8)
    assert mean == rtp(CLASSIC_PAYS, 8)[area] * 100
    assert variance > 0


def test_it_expects_less_when_the_payout_is_floored():
    # 0.10 on BANKER x1.95 pays 0.19 (seed 001): the floor is the house's.
    odds = exact_odds(8)
    mean, _ = bet_moments("banker", 10, CLASSIC_PAYS, 8)
    assert mean == odds.banker * 19 + odds.tie * 10
    assert mean < rtp(CLASSIC_PAYS, 8)["banker"] * 10


def test_its_tie_variance_is_that_of_one_big_payout():
    odds = exact_odds(1)
    mean, variance = bet_moments("tie", 1, SOCIAL_PAYS, 1)
    assert variance == odds.tie * 8 * 8 - (odds.tie * 8) ** 2
    assert mean == odds.tie * 8


@pytest.mark.parametrize("area", ["banker", "tie"])
def test_it_agrees_with_dealt_coups(area):
    """Seeded coups dealt by the rules land within five standard errors."""
    rng = random.Random(30)
    stake = 100
    backs = []
    for _ in range(20_000):
        coup = play_coup(shuffle(new_shoe(1), rng))
        backs.append(settle(coup, {area: stake}, SOCIAL_PAYS)[area])
    mean, variance = bet_moments(area, stake, SOCIAL_PAYS, 1)
    error = (float(variance) / len(backs)) ** 0.5
    assert abs(statistics.fmean(backs) - float(mean)) < 5 * error
    assert statistics.pvariance(backs) == pytest.approx(float(variance), rel=0.1)


def test_it_refuses_an_unknown_area():
    with pytest.raises(ValueError, match="unknown baccarat bet area"):
        bet_moments("dragon", 100, CLASSIC_PAYS, 8)


def test_the_war_tie_bet_moments_come_from_the_tie_probability():
    tie = tie_probability(6)
    mean, variance = tie_bet_moments(100, 6, DEFAULT_PAYS)
    back = int(100 * DEFAULT_PAYS["tie_bet"])
    assert mean == tie * back
    assert variance == tie * back * back - (tie * back) ** 2
    assert isinstance(mean, Fraction)
