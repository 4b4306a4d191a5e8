"""Who may read another player's data: one check for every staff view of it.

A player reads their own history and rounds; the views decide that before
asking here. Anyone else reading a player's rounds, history, exports or
account must be active staff, hold the model's view permission (or its change
permission, which implies it, as in the admin) and, where a second factor is
required (``CASINO_STAFF_OTP``, casino/otp.py), have given it this session.
Everyone who fails gets the 404 a player gets for another player's round, so
a refusal never tells whether the player or round exists.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest

from casino.otp import second_factor_passed

# What each kind of page reads, as "app_label.model" (its view permission).
ROUNDS = ("games.round",)  # a player's history, rounds, exports; the floor export
TABLES = ("games.table",)  # the dashboard's takings and the live RTP panel
PLAYER_ACCOUNTS = ("auth.user", "games.wallet")  # player search and a player's page


def may_view(user: User, model: str) -> bool:
    """The admin's rule: the view or the change permission on ``model``."""
    app_label, name = model.split(".")
    return user.has_perm(f"{app_label}.view_{name}") or user.has_perm(f"{app_label}.change_{name}")


def staff_reader(request: HttpRequest, models: tuple[str, ...]) -> User:
    """The signed-in staff member allowed to read ``models`` of any player;
    anyone else is told the page does not exist."""
    user = request.user
    if not (
        isinstance(user, User)
        and user.is_active
        and user.is_staff
        and all(may_view(user, model) for model in models)
        and second_factor_passed(request)
    ):
        raise Http404
    return user
