"""The player's settings for every game: sound, effects, music, the history
panel, fast play (each on or off), the volume, and the client seed mixed
into their next shuffles.

Both tables' menus and the settings page save through ``save_settings``; a
socket at an open Baccarat table hears a fast-play change at once.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games.errors import GameError
from games.models import Profile
from games.services.push import baccarat_group, push

SETTINGS_FIELDS = ("sound", "effects", "music", "history_panel", "fast_play")  # on / off
SETTINGS_LEVELS = {"volume": (0, 100)}  # whole numbers within these bounds
CLIENT_SEED_MAX = 64


def _level(field: str, raw: object) -> int:
    """A level setting (the volume) as sent by a slider: a whole number within bounds."""
    low, high = SETTINGS_LEVELS[field]
    text = str(raw).strip()
    if not (text.isascii() and text.isdigit() and low <= int(text) <= high):
        raise GameError(
            _("The volume is a whole number from %(low)s to %(high)s.")
            % {"low": low, "high": high},
            code="setting",
        )
    return int(text)


@transaction.atomic
def save_settings(*, user: User, values: Mapping[str, bool | int | str]) -> Profile:
    """Store the player's sound / effects / music / history panel / fast play
    and volume (for every game). Open tables pick up a fast-play change at once.

    A level out of bounds raises ``GameError`` before anything is written.
    """
    levels = {f: _level(f, values[f]) for f in SETTINGS_LEVELS if f in values}
    profile = Profile.objects.select_for_update().get(user=user)
    wanted = {f: bool(values[f]) for f in SETTINGS_FIELDS if f in values} | levels
    changed = [f for f, v in wanted.items() if getattr(profile, f) != v]
    for field in changed:
        setattr(profile, field, wanted[field])
    if changed:
        profile.save(update_fields=changed)
    if "fast_play" in changed:
        push(baccarat_group(user.pk), {"type": "speed.changed", "fast": profile.fast_play})
    return profile


def check_client_seed(client_seed: str) -> str:
    seed = (client_seed or "").strip()
    if not 1 <= len(seed) <= CLIENT_SEED_MAX or not seed.isprintable():
        raise GameError(
            _("A client seed is 1 to %(max)s printable characters.") % {"max": CLIENT_SEED_MAX},
            code="client_seed",
        )
    return seed


@transaction.atomic
def change_client_seed(*, user: User, client_seed: str) -> str:
    """Set the client seed mixed into the player's next shuffles (all games)."""
    seed = check_client_seed(client_seed)
    Profile.objects.filter(user=user).update(client_seed=seed)
    return seed
