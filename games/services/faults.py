"""Named fault points, so tests can prove that a round failing half-way
leaves nothing behind.

A service calls ``maybe_fail("baccarat.after_debit")`` at a point where a
crash would hurt most (chips already taken). In production nothing is armed
and the call is a set lookup. A test arms a point with ``inject_fault``::

    with inject_fault("baccarat.after_debit"):
        place_bet(...)      # raises InjectedFault; the transaction rolls back

Randomness and the database are never patched: the fault is a real
exception raised inside the real transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_armed: set[str] = set()


class InjectedFault(RuntimeError):
    """The failure a test asked for."""


def maybe_fail(point: str) -> None:
    """Raise ``InjectedFault`` when a test has armed ``point``; otherwise nothing."""
    if _armed and point in _armed:
        raise InjectedFault(f"injected fault at {point}")


@contextmanager
def inject_fault(point: str) -> Iterator[None]:
    """Arm ``point`` for the duration of the block (all threads see it)."""
    _armed.add(point)
    try:
        yield
    finally:
        _armed.discard(point)
