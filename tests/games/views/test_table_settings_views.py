"""The Baccarat table's sound and settings as a player uses them: the mute
button and the volume slider saved per player (and a bad volume refused
with a message, changing nothing), the settings menu's "Game history" of the
player's last rounds at this table, and the rules page stamped with its
paytable version and the time it was generated."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from games.display import signed_chips
from games.models import Profile, Round, Table
from games.services.tables import snapshot_version
from tests.tables import shown_version

SLUG = "baccarat-classic"
OTHER = "baccarat-social"


@pytest.fixture
def player(make_player):
    return make_player(chips=1_000)


@pytest.fixture
def tab(client, player):
    client.force_login(player)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def save(client, field: str, value: str, *, htmx: bool = True):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("baccarat_settings"), {"field": field, "value": value}, **headers)


def bet(client, slug: str, key: str, bets: dict[str, str]):
    response = client.post(
        reverse("baccarat_bet", args=[slug]),
        {"slip_key": key, "table_version": shown_version(slug), **bets},
        HTTP_HX_REQUEST="true",
    )
    assert 'id="bac-placed"' in response.content.decode()


def table_page(client) -> str:
    response = client.get(reverse("baccarat_table", args=[SLUG]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_new_player_hears_the_table_at_70_with_sound_on(tab):
    html = table_page(tab)
    assert re.search(r'data-testid="mute" aria-pressed="false"', html)
    assert re.search(r'<input type="range"[^>]*value="70"[^>]*data-testid="volume"', html)
    assert 'data-volume="70"' in html


def test_the_volume_is_saved_and_comes_back_on_the_table(tab, player):
    response = save(tab, "volume", "35")
    html = response.content.decode()
    # The prefs element comes back out of band, so sound.js applies the stored level.
    assert re.search(r'id="bac-prefs"[^>]*data-volume="35"[^>]*hx-swap-oob="true"', html)
    assert Profile.objects.get(user=player).volume == 35
    assert re.search(r'value="35"[^>]*data-testid="volume"', table_page(tab))


def test_the_mute_button_turns_sound_off_and_keeps_the_volume(tab, player):
    save(tab, "volume", "40")
    save(tab, "sound", "0")
    profile = Profile.objects.get(user=player)
    assert (profile.sound, profile.volume) == (False, 40)
    html = table_page(tab)
    assert 'data-testid="mute" aria-pressed="true"' in html
    # The next press asks for sound on again.
    assert '"field": "sound", "value": "1"' in html
    # The settings dialog's Sound checkbox is the same setting.
    assert not re.search(r'name="sound" value="1" checked', html)


@pytest.mark.parametrize("value", ["loud", "101", "-1", "3.5", "", "٣"])
def test_a_volume_out_of_range_is_refused_and_changes_nothing(tab, player, value):
    save(tab, "volume", "55")
    response = save(tab, "volume", value)
    html = response.content.decode()
    assert 'data-testid="settings-error"' in html
    assert "The volume is a whole number from 0 to 100." in html
    assert 'data-volume="55"' in html  # the slider is put back to the stored level
    assert Profile.objects.get(user=player).volume == 55


def test_without_htmx_a_bad_volume_is_a_message_after_the_redirect(tab, player):
    response = tab.post(
        reverse("baccarat_settings"),
        {"field": "volume", "value": "500", "next": reverse("baccarat_table", args=[SLUG])},
        follow=True,
    )
    assert "The volume is a whole number from 0 to 100." in response.content.decode()
    assert Profile.objects.get(user=player).volume == 70


def test_the_settings_menu_offers_the_game_history(tab):
    html = table_page(tab)
    dialog = html[html.index('id="bac-settings-dialog"') :]
    dialog = dialog[: dialog.index("</dialog>")]
    url = reverse("baccarat_table_history", args=[SLUG])
    assert 'data-testid="open-game-history"' in dialog and f'hx-get="{url}"' in dialog


def test_game_history_lists_the_players_last_rounds_here_newest_first(tab, player, make_player):
    bet(tab, SLUG, "a", {"player": "10"})
    bet(tab, SLUG, "b", {"banker": "5"})
    bet(tab, SLUG, "c", {"tie": "10"})
    bet(tab, OTHER, "elsewhere", {"player": "5"})  # another table: not in this panel
    someone = make_player()
    tab.force_login(someone)
    bet(tab, SLUG, "theirs", {"player": "5"})  # another player: not in this panel
    tab.force_login(player)

    response = tab.get(reverse("baccarat_table_history", args=[SLUG]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<html" not in html  # the panel only, for the dialog
    mine = Round.objects.filter(player=player, table__slug=SLUG).order_by("-seq")
    shown = re.findall(r'data-testid="game-history-row" data-round="(\d+)"', html)
    assert shown == [str(r.pk) for r in mine]
    for rnd in mine:
        link = reverse("history_round", args=[rnd.pk])
        assert f'href="{link}" data-testid="game-history-link">#{rnd.seq}<' in html
    newest = mine[0]
    row = html[html.index(f'data-round="{newest.pk}"') :]
    row = row[: row.index("</tr>")]
    label = {"player": "PLAYER WINS", "banker": "BANKER WINS", "tie": "TIE"}[newest.winner]
    assert label in row
    assert signed_chips(newest.total_return - newest.total_bet) in row
    assert newest.created_at.strftime("%H:%M:%S") in row


def test_game_history_shows_the_last_twenty(tab, player):
    table = Table.objects.get(slug=SLUG)
    Round.objects.bulk_create(
        Round(
            player=player,
            table=table,
            version_id=table.current_version_id,
            game="baccarat",
            seq=n,
            slip_key=f"bulk-{n}",
            server_seed="00" * 32,
            server_seed_hash="00" * 32,
            client_seed="c",
            nonce=n,
            bets={"player": 100},
            returns={"player": 200},
            total_bet=100,
            total_return=200,
            balance_before=100_000,
            balance_after=100_100,
            outcome="win",
            winner="player",
        )
        for n in range(1, 26)
    )
    html = tab.get(
        reverse("baccarat_table_history", args=[SLUG]), HTTP_HX_REQUEST="true"
    ).content.decode()
    seqs = re.findall(r'data-testid="game-history-link">#(\d+)<', html)
    assert seqs == [str(n) for n in range(25, 5, -1)]
    assert "Your last 20 rounds at Baccarat Classic" in html


def test_game_history_without_rounds_says_so_and_works_without_htmx(tab):
    response = tab.get(reverse("baccarat_table_history", args=[SLUG]))
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert 'data-testid="game-history-empty"' in html
    assert "No rounds yet at this table." in html


def test_game_history_needs_a_login(client, db):
    response = client.get(reverse("baccarat_table_history", args=[SLUG]))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_the_rules_page_shows_the_paytable_version_and_when_it_was_generated(tab):
    table = Table.objects.get(slug=SLUG)
    version = snapshot_version(table=table)
    before = timezone.now().replace(microsecond=0)
    html = tab.get(reverse("baccarat_rules", args=[SLUG])).content.decode()
    after = timezone.now()
    made = version.created_at.strftime("%Y-%m-%d %H:%M")
    assert (
        f"Paytable version {version.number} (id {version.pk}), in force since {made} (UTC)." in html
    )
    stamp = re.search(r'data-testid="rules-generated">[^<]*<time datetime="([^"]+)"', html)
    generated = dt.datetime.fromisoformat(stamp.group(1))
    assert before <= generated <= after
    assert generated.strftime("%Y-%m-%d %H:%M:%S") in html


def test_the_rules_page_in_japanese_stamps_the_time_as_seed_001_does(tab):
    html = tab.get(reverse("baccarat_rules", args=[SLUG]), HTTP_ACCEPT_LANGUAGE="ja").content
    assert "ゲームのルール生成時刻:" in html.decode()
