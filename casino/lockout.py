"""django-axes' lockout, with a limit of its own for a whole address.

Axes counts failed logins for each combination in ``AXES_LOCKOUT_PARAMETERS``
and locks when the largest count reaches one limit (``AXES_FAILURE_LIMIT``).
A username tried from one address should lock after a handful of failures;
an address trying many usernames (a flood with random names) after more,
since several players may share it. ``AddressLockoutHandler`` counts the
address's failures over every username against
``CASINO_ADDRESS_FAILURE_LIMIT`` instead.
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from django.conf import settings
from django.db.models import Sum


class AddressLockoutHandler(AxesDatabaseHandler):
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
