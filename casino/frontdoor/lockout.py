"""django-axes' lockout, with a limit of its own for a whole address.

Axes locks a username tried from one address after ``AXES_FAILURE_LIMIT``
failures (``CASINO_LOGIN_FAILURE_LIMIT``); ``AddressLockoutHandler`` also
locks an address after ``CASINO_ADDRESS_FAILURE_LIMIT`` failures over every
username (a flood with random names), since several players may share one.
It records each failure in one transaction, tried again when the database
gave it up for another's (SQLite's lock wait, a PostgreSQL deadlock), so
every failure counts once however many arrive at once.
docs/front-door.md, "Lockout".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db import OperationalError, connections, router, transaction
from django.db.models import Sum

log = logging.getLogger(__name__)

WRITE_TRIES = 3
# PostgreSQL's codes for a transaction it rolled back to let another through.
_RETRYABLE_SQLSTATES = {"40P01", "40001"}  # deadlock_detected, serialization_failure


def _lost_a_race(exc: OperationalError) -> bool:
    """The database gave up on this transaction for another's sake (SQLite's
    lock wait ran out, a PostgreSQL deadlock): trying again is safe."""
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return "database is locked" in str(exc) or sqlstate in _RETRYABLE_SQLSTATES


def in_one_transaction(record: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``record(...)`` in one transaction, tried again when the database
    gave it up for another's: it rolled back whole, so nothing counts twice.
    Inside a caller's transaction it runs once, as part of that one."""
    using = router.db_for_write(AccessAttempt)
    if connections[using].in_atomic_block:
        return record(*args, **kwargs)
    for attempt in range(1, WRITE_TRIES + 1):
        try:
            with transaction.atomic(using=using):
                return record(*args, **kwargs)
        except OperationalError as exc:
            if attempt == WRITE_TRIES or not _lost_a_race(exc):
                raise
            log.warning("axes: recording a log-in again after %s (try %d)", exc, attempt)
    raise AssertionError("unreachable")  # the loop returns or raises


class AddressLockoutHandler(AxesDatabaseHandler):
    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs) -> None:
        in_one_transaction(super().user_login_failed, sender, credentials, request, **kwargs)

    def user_logged_in(self, sender, request, user, **kwargs) -> None:
        # The clean-up, the access log and the reset of the failures: one
        # wait for SQLite's write lock instead of three.
        in_one_transaction(super().user_logged_in, sender, request, user, **kwargs)

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """The failures, scaled so that one limit (axes') fits both counts:
        the address's count reaches it when it reaches the address limit."""
        counts = [
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        ]
        if len(counts) != 2:  # lockout parameters other than the site's
            return max(counts, default=0)
        per_username, per_address = counts
        limit = get_failure_limit(request, credentials)
        address_scaled = per_address * limit // settings.CASINO_ADDRESS_FAILURE_LIMIT
        return max(per_username, address_scaled)
