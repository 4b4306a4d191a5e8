"""Micro-benchmarks of the pure game core; the last line printed is one JSON object.

Run from the repository root: ``.venv/bin/python bench/core.py``.  Nothing is
cached between repetitions: every exact_odds / navigator call recomputes from
scratch, because the site computes them on demand.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import interleaved_medians
from games.baccarat.odds import exact_odds, navigator
from games.baccarat.roads import (
    Result,
    bead_plate,
    big_eye_boy,
    big_road,
    cockroach_pig,
    small_road,
)
from games.baccarat.rules import play_coup
from games.cards import Card, FairRng, new_shoe, shuffle


def median_ms(fn, repeat: int) -> float:
    return interleaved_medians([fn], repeat)[0]


def main() -> None:
    odds_ms = median_ms(lambda: exact_odds(8), 21)

    # Peeling the Player's 2nd card with 8 decks: P1 and B1 shown (the heaviest position).
    p1, b1 = Card.parse("4H"), Card.parse("QS")
    nav_ms = median_ms(lambda: navigator(8, [p1], [b1], "player"), 201)
    # Peeling the Banker's 2nd card: P1, P2, B1 shown.
    p2 = Card.parse("2D")
    nav_banker_ms = median_ms(lambda: navigator(8, [p1, p2], [b1], "banker"), 201)

    rng = random.Random(2024)
    weights = [0.4462, 0.4586, 0.0952]
    results = [
        Result(
            rng.choices(("player", "banker", "tie"), weights)[0],
            rng.random() < 0.0747,
            rng.random() < 0.0747,
        )
        for _ in range(10_000)
    ]

    def roads() -> None:
        bead_plate(results)
        big_road(results)
        big_eye_boy(results)
        small_road(results)
        cockroach_pig(results)

    roads_ms = median_ms(roads, 11)

    shoe = new_shoe(8)
    seed = bytes(range(32))
    coups = 2000
    t0 = time.perf_counter()
    for nonce in range(coups):
        play_coup(shuffle(shoe, FairRng(seed, "bench", nonce)))
    with_shuffle = coups / (time.perf_counter() - t0)

    shuffled = shuffle(shoe, random.Random(1))
    starts = list(range(0, len(shuffled) - 6))
    t0 = time.perf_counter()
    n = 0
    for _ in range(20):
        for i in starts:
            play_coup(shuffled[i : i + 6])
            n += 1
    without_shuffle = n / (time.perf_counter() - t0)

    out = {
        "exact_odds_8_ms": round(odds_ms, 3),
        "navigator_step_ms": round(nav_ms, 3),
        "navigator_step_position": "8 decks, peeling the Player's 2nd card (P1, B1 shown)",
        "navigator_banker_2nd_ms": round(nav_banker_ms, 3),
        "roads_10k_ms": round(roads_ms, 3),
        "coups_per_s": round(with_shuffle),
        "coups_per_s_includes_shuffle": True,
        "coups_per_s_without_shuffle": round(without_shuffle),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
