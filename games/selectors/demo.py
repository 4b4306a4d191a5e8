"""Which accounts are demo accounts, for every read that must leave them out.

A visitor's demo (games/services/demo.py) is a real Django user whose
profile says ``demo``; its wallet, ledger rows and rounds are ordinary rows.
The house's figures, the floor export and the player search read only real
players' rows: they filter with ``real_rounds`` / ``real_users`` here, so
"leave the demos out" is written once. The dashboard's kept hours are
written without demo play (``services.rollups``) and checked against
``real_rounds`` (``selectors.rollups``).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import Q, QuerySet

from games.models import Profile, Round

# A round played by a demo account, and a demo user, as filters.
DEMO_ROUND = Q(player__profile__demo=True)
DEMO_USER = Q(profile__demo=True)


def real_rounds(rounds: QuerySet[Round]) -> QuerySet[Round]:
    """``rounds`` without those of demo accounts (players with no profile stay)."""
    return rounds.exclude(DEMO_ROUND)


def real_users(users: QuerySet[User]) -> QuerySet[User]:
    """``users`` without demo accounts (staff with no profile stay)."""
    return users.exclude(DEMO_USER)


def is_demo(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """Whether ``user`` is a signed-in demo account (one indexed query)."""
    if user is None or not user.is_authenticated:
        return False
    return Profile.objects.filter(user_id=user.pk, demo=True).exists()
