"""Helpers for the security sweep: the casino's books before and after an
attack, and what a refusal must look like.

"The books" are everything a request must not touch when it is refused:
every wallet's balance, the ledger, the rounds and each player's provably
fair state (nonce and committed server seed: a refused bet must not use up a
shuffle). A fuzzed request is compared against a snapshot taken just before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from games.models import LedgerEntry, Profile, Round, Wallet
from games.services.wallet import ledger_mismatches
from games.war.rules import first_cards_tied
from tests.seeds import find_seed

# The whole suite must stay around a minute: each example is a request, so a
# form gets 3 in 10 of the profile's examples (tests/conftest.py; ci: 30), a
# costly one 4 in 10 of those (ci: 12).
FUZZ = settings(
    max_examples=settings.default.max_examples * 3 // 10,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FEW = settings(FUZZ, max_examples=FUZZ.max_examples * 2 // 5)

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}

# Text a browser can send: any character but lone surrogates (not UTF-8).
SENDABLE = st.characters(exclude_categories=["Cs"])

# Amounts no form may accept: zero and negative, fractional, huge, not numbers.
BAD_AMOUNT_TEXT = st.one_of(
    st.integers(max_value=0).map(str),
    st.integers(min_value=10**7, max_value=10**40).map(str),
    st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False)
    .filter(lambda d: d != d.to_integral_value())
    .map(str),
    st.sampled_from(
        [
            "",
            " ",
            "abc",
            "1e3",
            "0x10",
            "NaN",
            "inf",
            "-0",
            "1,000",
            "1_0",
            "²",
            "5 chips",
            "null",
            "[]",
            "{}",
            "<script>alert(1)</script>",
            "' OR 1=1 --",
            "9" * 400,
            "9" * 5000,  # past int()'s 4,300-digit limit
        ]
    ),
    st.text(SENDABLE, max_size=40),
)


CLIENT_SEED = "security-sweep"


@cache
def war_seed(tied: bool) -> str:
    """A committed server seed whose first two War cards tie (or not)."""

    return find_seed("security-war", CLIENT_SEED, 6, lambda shoe: first_cards_tied(shoe) == tied)


@dataclass(frozen=True)
class Books:
    balances: dict[int, int]
    ledger_rows: int
    rounds: dict[int, tuple[str, int, int]]  # id -> (status, total_bet, total_return)
    fairness: dict[int, tuple[int, str, str]]  # user -> (nonce, next seed, client seed)


def read_books() -> Books:

    return Books(
        balances=dict(Wallet.objects.values_list("user_id", "balance")),
        ledger_rows=LedgerEntry.objects.count(),
        rounds={
            pk: (status, bet, back)
            for pk, status, bet, back in Round.objects.values_list(
                "pk", "status", "total_bet", "total_return"
            )
        },
        fairness={
            user: (nonce, seed, client)
            for user, nonce, seed, client in Profile.objects.values_list(
                "user_id", "nonce", "next_server_seed", "client_seed"
            )
        },
    )


@contextmanager
def books_unchanged() -> Iterator[Books]:
    """Assert that nothing inside the block moved a chip, wrote a ledger row,
    made or changed a round, or used up a player's shuffle."""
    before = read_books()
    yield before
    after = read_books()
    assert after.balances == before.balances, "a balance moved"
    assert after.ledger_rows == before.ledger_rows, "a ledger row was written"
    assert after.rounds == before.rounds, "a round was made or changed"
    assert after.fairness == before.fairness, "a player's seeds or nonce moved"


def ledger_balances_agree() -> None:
    """Every wallet still equals the sum of its ledger rows."""

    assert not ledger_mismatches()


_TAGS = re.compile(r"<[^>]+>")


def text_of(html: str) -> str:
    return " ".join(_TAGS.sub(" ", html).split())


def assert_no_raw_markup(html: str) -> None:
    """Nothing a fuzzer sent comes back as live markup (it is escaped)."""
    assert "<script>alert(1)</script>" not in html
