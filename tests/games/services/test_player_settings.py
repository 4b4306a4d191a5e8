"""The player's settings for every game, through the service: what is
stored, what a bad level or client seed leaves untouched, and the open
tables told of a fast-play change."""

from __future__ import annotations

import pytest

from games.errors import GameError
from games.models import Profile
from games.services.player_settings import change_client_seed, save_settings
from games.services.push import baccarat_group
from tests.groups import heard


def test_it_saves_the_players_settings(make_player):
    user = make_player()
    profile = save_settings(user=user, values={"sound": False, "music": True, "fast_play": True})
    stored = Profile.objects.get(user=user)
    assert (stored.sound, stored.effects, stored.music, stored.fast_play) == (
        False,
        True,
        True,
        True,
    )
    assert profile.music is True


@pytest.mark.parametrize("volume", ["101", "-1", "5.5", "loud", "１０"])
def test_a_bad_volume_refuses_the_whole_save(make_player, volume):
    user = make_player()
    before = Profile.objects.get(user=user)
    with pytest.raises(GameError, match="The volume is a whole number from 0 to 100."):
        save_settings(user=user, values={"sound": False, "volume": volume})
    after = Profile.objects.get(user=user)
    assert (after.sound, after.volume) == (before.sound, before.volume)


@pytest.mark.engines
def test_a_fast_play_change_reaches_the_players_open_tables(
    make_player, django_capture_on_commit_callbacks
):
    user = make_player()

    def fast() -> None:
        with django_capture_on_commit_callbacks(execute=True):
            save_settings(user=user, values={"fast_play": True})

    _, event = heard(baccarat_group(user.pk), fast)
    assert event == {"type": "speed.changed", "fast": True}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        save_settings(user=user, values={"fast_play": True, "music": False})
    assert callbacks == []  # fast play did not change: the tables hear nothing


@pytest.mark.parametrize("seed", ["", "   ", "x" * 65, "tab\there"])
def test_it_refuses_a_bad_client_seed(make_player, seed):
    user = make_player()
    before = Profile.objects.get(user=user).client_seed
    with pytest.raises(GameError, match="1 to 64 printable characters"):
        change_client_seed(user=user, client_seed=seed)
    assert Profile.objects.get(user=user).client_seed == before
