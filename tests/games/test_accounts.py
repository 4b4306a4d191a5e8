from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import LedgerEntry, Table, Wallet


def test_it_signs_up_grants_chips_and_shows_the_lobby(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "alice", "password1": "pw-Secret-123", "password2": "pw-Secret-123"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="alice")
    assert Wallet.objects.get(user=user).balance == 1_000_000
    assert LedgerEntry.objects.filter(wallet__user=user, kind="grant").count() == 1
    lobby = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en")
    body = lobby.content.decode()
    assert "10,000" in body
    for name in ("Baccarat Social", "Baccarat Classic", "Casino War"):
        assert name in body


def test_the_presets_exist_with_their_versions(db):
    tables = {t.slug: t for t in Table.objects.select_related("current_version")}
    assert tables["baccarat-social"].decks == 1
    assert tables["baccarat-social"].pays["tie"] == "8"
    assert tables["baccarat-classic"].decks == 8
    assert tables["baccarat-classic"].pays["player_pair"] == "12"
    assert tables["casino-war"].decks == 6
    assert all(t.current_version and t.current_version.number == 1 for t in tables.values())


def test_a_visitor_gets_the_front_page_with_the_demo_and_a_player_page_needs_a_login(client, db):
    front = client.get(reverse("lobby"))
    assert front.status_code == 200
    assert 'data-testid="play-demo"' in front.content.decode()
    response = client.get(reverse("history"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_browser_language_decides_and_japanese_is_the_fallback(client, make_player):
    client.force_login(make_player())
    english = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert "Lobby" in english
    fallback = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "ロビー" in fallback
    assert '<html lang="ja">' in fallback


def test_the_language_switcher_changes_the_language(client, make_player):
    client.force_login(make_player())
    client.post(reverse("set_language"), {"language": "ja", "next": "/"}, HTTP_ACCEPT_LANGUAGE="en")
    assert "ロビー" in client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_player_at_zero_claims_the_topup_once(client, make_player):
    user = make_player(chips=0)
    client.force_login(user)
    assert "top-up" in client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    client.post(reverse("topup"))
    client.post(reverse("topup"))
    assert Wallet.objects.get(user=user).balance == 100_000
    assert LedgerEntry.objects.filter(wallet__user=user, kind="topup").count() == 1
    # Back at zero the same day: the lobby says it is claimed, and offers no claim.
    Wallet.objects.filter(user=user).update(balance=0)
    lobby = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "already claimed today's top-up" in lobby
    assert reverse("topup") not in lobby


def test_repeated_login_failures_are_throttled(client, make_player):
    make_player("mallory")
    for _ in range(5):
        client.post(reverse("login"), {"username": "mallory", "password": "wrong"})
    response = client.post(reverse("login"), {"username": "mallory", "password": "pw-Secret-123"})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
