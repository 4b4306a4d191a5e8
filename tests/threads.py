"""Calls released at one instant from threads of their own, for the tests
of what holds when requests race (each thread closes its own database
connections when done)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(n: int, call: Callable[[int], Any], *, seconds: float = 120) -> list[Any]:
    """``call(0)`` ... ``call(n - 1)``, each on a thread of its own, all
    released together; what each returned or raised, in that order."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = call(i)
        except Exception as exc:  # returned, for the test's assertions
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds)
    return results
