"""Cards, shoe order, Fisher-Yates and the provably fair generator (games.cards)."""

from __future__ import annotations

import hashlib
import hmac
import random
import time
from collections import Counter

import pytest

from games.cards import (
    RANKS,
    SUITS,
    Card,
    FairRng,
    new_server_seed,
    new_shoe,
    parse_cards,
    server_seed_hash,
    shuffle,
)


def test_card_parse_and_str_round_trip() -> None:
    assert Card.parse("TH") == Card("T", "H")
    assert Card.parse("10H") == Card("T", "H")
    assert Card.parse("as") == Card("A", "S")
    assert str(Card("T", "H")) == "TH"
    assert str(Card.parse("10c")) == "TC"
    for rank in RANKS:
        for suit in SUITS:
            assert str(Card.parse(rank + suit)) == rank + suit


@pytest.mark.parametrize("text", ["1H", "TX", "", "10", "AHH", "11S"])
def test_card_parse_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError):
        Card.parse(text)


def test_card_is_frozen_and_validated() -> None:
    card = Card("A", "S")
    with pytest.raises(AttributeError):
        card.rank = "K"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Card("1", "S")
    with pytest.raises(ValueError):
        Card("A", "X")


def test_new_shoe_order_is_deck_by_deck_suits_shdc_ranks_a_to_k() -> None:
    shoe = new_shoe(2)
    assert len(shoe) == 104
    assert [str(c) for c in shoe[:14]] == [
        "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AH",
    ]  # fmt: skip
    assert str(shoe[26]) == "AD"
    assert str(shoe[39]) == "AC"
    assert str(shoe[51]) == "KC"
    assert str(shoe[52]) == "AS"
    assert shoe[:52] == shoe[52:]
    assert Counter(new_shoe(8)) == Counter({card: 8 for card in new_shoe(1)})


@pytest.mark.parametrize("decks", [0, -1, 1.5, True])
def test_new_shoe_refuses_bad_deck_counts(decks: object) -> None:
    with pytest.raises(ValueError):
        new_shoe(decks)  # type: ignore[arg-type]


def test_shuffle_returns_a_new_permutation_and_keeps_the_input() -> None:
    shoe = new_shoe(1)
    before = list(shoe)
    out = shuffle(shoe, random.Random(3))
    assert shoe == before
    assert out is not shoe
    assert Counter(out) == Counter(shoe)
    assert out != shoe


def test_shuffle_with_random_random_matches_its_own_shuffle() -> None:
    """Same Fisher-Yates direction as the standard library: easy to re-implement."""
    expected = new_shoe(1)
    random.Random(99).shuffle(expected)
    assert shuffle(new_shoe(1), random.Random(99)) == expected


def _chi_square_positions(rng_for_round, rounds: int) -> float:
    deck = list(range(52))
    counts = [[0] * 52 for _ in range(52)]  # counts[position][card]
    for i in range(rounds):
        for pos, card in enumerate(shuffle(deck, rng_for_round(i))):  # type: ignore[arg-type]
            counts[pos][card] += 1
    expected = rounds / 52
    return sum((k - expected) ** 2 / expected for row in counts for k in row)


def test_shuffle_puts_every_card_in_every_position_uniformly_chi_square() -> None:
    """52 x 52 position/card table; (52-1)^2 = 2601 degrees of freedom.

    The mean is 2601 and the standard deviation sqrt(2 * 2601) ~ 72; the band
    of +-5 sd makes a false alarm practically impossible while a biased
    shuffle (e.g. the naive ``randrange(n)`` every step) lands far outside.
    Deterministic: fixed seeds.
    """
    dof = 51 * 51
    sd = (2 * dof) ** 0.5
    rng = random.Random(20240601)
    stat = _chi_square_positions(lambda i: rng, 2600)
    assert dof - 5 * sd < stat < dof + 5 * sd
    fair = _chi_square_positions(lambda i: FairRng(b"chi-square", "uniform", i), 2600)
    assert dof - 5 * sd < fair < dof + 5 * sd


def test_chi_square_catches_a_biased_shuffle() -> None:
    """The naive 'swap with any position' shuffle is biased; the test above would see it."""

    def naive_shuffle(cards: list[int], rng: random.Random) -> list[int]:
        out = list(cards)
        for i in range(len(out)):
            j = rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
        return out

    rng = random.Random(5)
    deck = list(range(52))
    counts = [[0] * 52 for _ in range(52)]
    rounds = 2600
    for _ in range(rounds):
        for pos, card in enumerate(naive_shuffle(deck, rng)):
            counts[pos][card] += 1
    expected = rounds / 52
    stat = sum((k - expected) ** 2 / expected for row in counts for k in row)
    assert stat > 2601 + 5 * (2 * 2601) ** 0.5


# ------------------------------------------------------------------ FairRng


def reference_words(server_seed: bytes, client_seed: str, nonce: int):
    """Straightforward re-implementation of the documented stream (for comparison)."""
    counter = 0
    while True:
        msg = f"{client_seed}:{nonce}:{counter}".encode()
        digest = hmac.new(server_seed, msg, hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        counter += 1


def reference_shuffle(cards: list, server_seed: bytes, client_seed: str, nonce: int) -> list:
    words = reference_words(server_seed, client_seed, nonce)

    def randrange(n: int) -> int:
        limit = (2**32 // n) * n
        while True:
            u = next(words)
            if u < limit:
                return u % n

    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        j = randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def test_fair_rng_stream_matches_the_documented_hmac_words() -> None:
    rng = FairRng(b"\x00" * 32, "alice", 0)
    ref = reference_words(b"\x00" * 32, "alice", 0)
    assert [rng.next_u32() for _ in range(40)] == [next(ref) for _ in range(40)]


@pytest.mark.parametrize(
    ("seed", "client", "nonce", "decks"),
    [(b"\x00" * 32, "alice", 0, 8), (bytes(range(32)), "player-42", 7, 6), (b"k", "", 123, 1)],
)
def test_fair_shuffle_matches_an_independent_reimplementation(
    seed: bytes, client: str, nonce: int, decks: int
) -> None:
    shoe = new_shoe(decks)
    assert shuffle(shoe, FairRng(seed, client, nonce)) == reference_shuffle(
        shoe, seed, client, nonce
    )


def test_fair_shuffle_regression_pins() -> None:
    """Hard-coded shoes: a change here would break every stored round's verification."""
    first = shuffle(new_shoe(8), FairRng(b"\x00" * 32, "alice", 0))
    assert " ".join(str(c) for c in first[:12]) == "4D 3C 2D KS KD 2D 9S 4H KS QC TS 9D"
    second = shuffle(new_shoe(6), FairRng(bytes(range(32)), "player-42", 7))
    assert " ".join(str(c) for c in second[:12]) == "5C 5S 4S 3H 4D 5D AD KC 5S KS 8C 3C"


def test_fair_rng_depends_on_every_input() -> None:
    base = shuffle(new_shoe(1), FairRng(b"s", "c", 1))
    assert shuffle(new_shoe(1), FairRng(b"s", "c", 1)) == base
    assert shuffle(new_shoe(1), FairRng(b"t", "c", 1)) != base
    assert shuffle(new_shoe(1), FairRng(b"s", "d", 1)) != base
    assert shuffle(new_shoe(1), FairRng(b"s", "c", 2)) != base


def test_randrange_rejects_instead_of_taking_a_biased_modulo() -> None:
    """n = 3 * 2**30: limit = 3 * 2**30, so words in the top quarter must be skipped.

    A plain ``u % n`` would return small values twice as often; with rejection
    the answer is the first *accepted* word.  We search a nonce whose first
    word is rejected so the rejection path is really exercised.
    """
    n = 3 * 2**30
    for nonce in range(200):
        words = reference_words(b"bias", "x", nonce)
        first, second, third = next(words), next(words), next(words)
        if first >= n:
            break
    else:  # pragma: no cover - 25% chance per nonce
        raise AssertionError("no rejected first word found")
    rng = FairRng(b"bias", "x", nonce)
    expected = second % n if second < n else third % n
    assert rng.randrange(n) == expected
    # ...and the next call continues right after the accepted word.
    nxt = FairRng(b"bias", "x", nonce)
    nxt.randrange(n)
    assert nxt.next_u32() == (third if second < n else next(words))


def test_randrange_rejection_rate_and_range() -> None:
    """n = 2**31 + 1 rejects almost half of all words; results stay in range."""
    n = 2**31 + 1
    words = reference_words(b"rate", "y", 0)
    rng = FairRng(b"rate", "y", 0)
    consumed = 0
    for _ in range(2000):
        got = rng.randrange(n)
        assert 0 <= got < n
        while True:
            u = next(words)
            consumed += 1
            if u < n:
                assert got == u
                break
    assert 3600 < consumed < 4400  # about 2 words per call


def test_randrange_small_n_is_uniform() -> None:
    rng = FairRng(b"dice", "z", 5)
    counts = Counter(rng.randrange(6) for _ in range(60_000))
    stat = sum((k - 10_000) ** 2 / 10_000 for k in counts.values())
    assert set(counts) == set(range(6))
    assert stat < 25  # 5 dof; p ~ 1e-4


def test_randrange_power_of_two_never_rejects() -> None:
    rng = FairRng(b"p", "q", 0)
    ref = reference_words(b"p", "q", 0)
    assert [rng.randrange(2**32) for _ in range(20)] == [next(ref) for _ in range(20)]
    with pytest.raises(ValueError):
        rng.randrange(0)


def test_fair_rng_refuses_bad_inputs() -> None:
    with pytest.raises(TypeError):
        FairRng("00", "c", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        FairRng(b"s", "c", -1)


def test_server_seed_hash_and_new_seed() -> None:
    assert server_seed_hash(bytes(32)) == hashlib.sha256(bytes(32)).hexdigest()
    assert (
        server_seed_hash(bytes(32))
        == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )
    seed = new_server_seed()
    assert isinstance(seed, bytes) and len(seed) == 32
    assert new_server_seed() != seed


def test_shuffling_an_eight_deck_shoe_is_fast() -> None:
    shoe = new_shoe(8)
    best = float("inf")
    for nonce in range(20):
        t0 = time.perf_counter()
        shuffle(shoe, FairRng(b"speed", "c", nonce))
        best = min(best, time.perf_counter() - t0)
    assert best < 0.005  # about 0.3 ms on a laptop; generous for loaded CI


def test_parse_cards() -> None:
    assert parse_cards("AS 10H, 9c") == [Card("A", "S"), Card("T", "H"), Card("9", "C")]
    assert parse_cards(["KD"]) == [Card("K", "D")]
