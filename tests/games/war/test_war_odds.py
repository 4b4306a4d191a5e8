"""Exact Casino War house edges (games.war.odds)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from games.war.odds import exact_edge


def brute_force_edges(decks: int, tie_pays: int = 11, raise_pays: int = 2, bonus: int = 0):
    """Enumerate first cards and war cards rank by rank (burns do not change the
    war cards' distribution, so they are left out), written independently."""
    per_rank = [4 * decks] * 13
    n = 52 * decks
    war_loss = Fraction(0)
    surrender_loss = Fraction(0)
    tie_prob = Fraction(0)
    for p in range(13):
        for d in range(13):
            w = Fraction(per_rank[p], n) * Fraction(per_rank[d] - (p == d), n - 1)
            if p > d:
                war_loss += w * (1 - 2)
                surrender_loss += w * (1 - 2)
            elif p < d:
                war_loss += w * 1
                surrender_loss += w * 1
            else:
                tie_prob += w
                surrender_loss += w * Fraction(1, 2)
                left = list(per_rank)
                left[p] -= 2
                m = n - 2
                for wp in range(13):
                    for wd in range(13):
                        v = w * Fraction(left[wp], m) * Fraction(left[wd] - (wp == wd), m - 1)
                        staked = 2
                        back = (1 + raise_pays + (bonus if wp == wd else 0)) if wp >= wd else 0
                        war_loss += v * (staked - back)
    return {"war": war_loss, "surrender": surrender_loss, "tie_bet": 1 - tie_prob * tie_pays}


def test_six_deck_edges_are_the_published_figures() -> None:
    edge = exact_edge(6, {})
    assert round(float(edge["war"]) * 100, 3) == 2.877
    assert round(float(edge["surrender"]) * 100, 3) == 3.698
    assert round(float(edge["tie_bet"]) * 100, 2) == 18.65
    assert all(isinstance(v, Fraction) for v in edge.values())
    assert edge["tie_bet"] == Fraction(58, 311)


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_edges_match_a_rank_by_rank_enumeration(decks: int) -> None:
    assert exact_edge(decks, None) == brute_force_edges(decks)


def test_edges_follow_the_paytable() -> None:
    pays = {"tie_bet": Decimal(12), "war_tie_bonus": Decimal(1)}
    assert exact_edge(6, pays) == brute_force_edges(6, tie_pays=12, bonus=1)
    assert exact_edge(6, {"raise": Decimal("2")}) == exact_edge(6, {})
