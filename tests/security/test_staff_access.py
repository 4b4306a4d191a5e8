"""Staff status alone opens no player's data: every view of it (history,
rounds and their verification, exports, the player search and page, the
dashboard, the floor export, the live RTP panel) needs the matching view
permission and, where it is required, the second factor
(games/views/staff_access.py). Whoever may not read it gets the 404 a player
gets for another player's round: a refusal never confirms that it exists."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.security.totp import code_now, enrolled
from tests.stored_results import settled_coup

User = get_user_model()
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}

# The permissions each kind of page asks for, by codename.
ROUNDS = frozenset({"view_round"})
ACCOUNTS = frozenset({"view_user", "view_wallet"})
TABLES = frozenset({"view_table"})
EVERY_VIEW = ROUNDS | ACCOUNTS | TABLES


@dataclass(frozen=True)
class Read:
    """One request for player data, the permissions it needs, and what a
    reader who holds them gets."""

    method: str
    url: str
    data: dict
    needs: frozenset[str]
    admin: bool = False  # behind admin_site.admin_view
    ok: int = 200

    def send(self, client: Client):
        return getattr(client, self.method)(self.url, self.data, **EN)


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.fixture
def alices_round(alice):
    rnd, _coup = settled_coup(alice, bets={"banker": 1_000}, client_seed="lucky")
    return rnd


@pytest.fixture
def reads(alice, alices_round) -> list[Read]:
    today = timezone.localdate().isoformat()
    history = [
        Read("get", reverse("history_player", args=[alice.pk]), {}, ROUNDS),
        Read("get", reverse("history_player_summary", args=[alice.pk]), {}, ROUNDS),
        Read("get", reverse("history_player_export", args=[alice.pk]), {}, ROUNDS),
        Read("get", reverse("history_round", args=[alices_round.pk]), {}, ROUNDS),
        Read("get", reverse("history_round_verify", args=[alices_round.pk]), {}, ROUNDS),
        Read("post", reverse("history_round_verify", args=[alices_round.pk]), {}, ROUNDS),
    ]
    accounts = [
        Read("get", reverse("operator_player", args=[alice.pk]), {}, ACCOUNTS),
        Read("get", reverse("history_player_lookup"), {"q": "alice"}, ACCOUNTS),
        Read("get", reverse("history_player_lookup"), {"username": "alice"}, ACCOUNTS, ok=302),
    ]
    console = [
        Read("get", reverse("admin:games_dashboard"), {}, TABLES, admin=True),
        Read(
            "get",
            reverse("admin:games_floor_export"),
            {"date_from": today, "date_to": today},
            ROUNDS,
            admin=True,
        ),
        Read(
            "post",
            reverse("admin:games_table_rtp", args=["baccarat"]),
            {"decks": "8", "pay_banker": "0.95"},
            TABLES,
            admin=True,
        ),
    ]
    return history + accounts + console


def staff_with(username: str, codenames=frozenset(), **extra):
    # No password: force_login (axes breaks client.login, and hashing is slow).
    user = User.objects.create_user(username, is_staff=True, **extra)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_staff_status_alone_reads_no_players_data(reads, alices_round):
    client = signed_in(staff_with("clerk"))
    for read in reads:
        response = read.send(client)
        assert response.status_code == 404, read.url
        assert "Content-Disposition" not in response, read.url
    # Staff status alone still opens the console's door, but no player's data.
    assert client.get(reverse("admin:index")).status_code == 200


@pytest.mark.parametrize(
    "granted", [ROUNDS, ACCOUNTS, TABLES], ids=["rounds", "accounts", "tables"]
)
def test_each_view_permission_opens_its_own_pages_and_no_others(reads, granted):
    client = signed_in(staff_with("viewer", granted))
    for read in reads:
        expected = read.ok if read.needs <= granted else 404
        assert read.send(client).status_code == expected, read.url


def test_staff_with_the_view_permissions_read_a_players_rounds_and_account(
    reads, alice, alices_round
):
    client = signed_in(staff_with("pit-boss", EVERY_VIEW))
    for read in reads:
        assert read.send(client).status_code == read.ok, read.url
    page = client.get(reverse("history_round", args=[alices_round.pk]), **EN).content.decode()
    assert 'data-testid="round-player">alice<' in page
    export = client.get(reverse("history_player_export", args=[alice.pk]))
    rows = b"".join(export.streaming_content).decode().splitlines()
    assert len(rows) == 2 and str(alices_round.pk) in rows[1]


def test_the_change_permission_reads_as_the_view_one_does(reads):
    """As in the admin: who may change tables may look at them."""
    client = signed_in(staff_with("table-editor", {"change_table"}))
    for read in reads:
        expected = read.ok if read.needs == TABLES else 404
        assert read.send(client).status_code == expected, read.url


def test_a_player_never_reads_another_players_data_even_holding_the_permissions(make_player, reads):
    """Permissions given to a player's account by mistake open nothing:
    reading others' data is for staff."""
    bob = make_player("bob")
    bob.user_permissions.set(Permission.objects.filter(codename__in=EVERY_VIEW))
    client = signed_in(bob)
    for read in reads:
        response = read.send(client)
        if read.admin:
            assert response.status_code == 302, read.url
            assert response["Location"].startswith(reverse("admin:login")), read.url
        else:
            assert response.status_code == 404, read.url


def test_an_inactive_staff_account_reads_nothing(reads):
    client = signed_in(staff_with("gone", EVERY_VIEW))
    User.objects.filter(username="gone").update(is_active=False)
    for read in reads:
        assert read.send(client).status_code in (302, 404), read.url


def test_with_the_second_factor_on_an_unverified_reader_sees_nothing_until_the_code(
    settings, reads
):
    settings.CASINO_STAFF_OTP = True
    reader = staff_with("pit-boss", EVERY_VIEW)
    device = enrolled(reader)
    client = signed_in(reader)
    for read in reads:
        response = read.send(client)
        assert response.status_code == 302, read.url
        if read.admin:
            assert response["Location"].startswith(reverse("admin:login")), read.url
        else:  # the code page, whether or not the player or round exists
            assert response["Location"].startswith(reverse("staff_otp_verify")), read.url

    response = client.post(reverse("staff_otp_verify"), {"code": code_now(device)}, **EN)
    assert response.status_code == 302
    for read in reads:
        assert read.send(client).status_code == read.ok, read.url


def test_a_player_reads_their_own_rounds_with_the_second_factor_on(settings, alice, alices_round):
    settings.CASINO_STAFF_OTP = True
    client = signed_in(alice)
    for url in (
        reverse("history"),
        reverse("history_summary"),
        reverse("history_export"),
        reverse("history_player", args=[alice.pk]),
        reverse("history_round", args=[alices_round.pk]),
        reverse("history_round_verify", args=[alices_round.pk]),
    ):
        assert client.get(url, **EN).status_code == 200, url


def test_staff_read_their_own_rounds_without_any_permission(settings, make_player):
    """Their own play is theirs, as for any player; only others' needs more
    (and any page at all, the code first)."""
    settings.CASINO_STAFF_OTP = True
    clerk = staff_with("clerk")
    rnd, _coup = settled_coup(clerk, bets={"banker": 1_000}, client_seed="mine")
    client = signed_in(clerk)
    client.post(reverse("staff_otp_verify"), {"code": code_now(enrolled(clerk))})
    assert client.get(reverse("history_round", args=[rnd.pk])).status_code == 200
    assert client.get(reverse("history")).status_code == 200
