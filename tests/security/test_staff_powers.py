"""Staff powers are least privilege and audited: the operator console's
account pages (games/admin/users.py) against staff who try to give
themselves or others more than they hold, and deactivation that really ends
a player's sessions (casino/sessions.py, games/services/sockets.py).

Each attack is posted as a browser could post it, field included even when
the page does not offer it, by a staff member holding ``auth.change_user``.
"""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, Permission, User
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from casino.asgi import application
from casino.sessions import CACHE_PREFIX
from games.consumers.session import SESSION_END_CLOSE_CODE
from games.models import AuditEntry, Profile, Round, Table
from games.services.account import set_pin
from games.services.sockets import user_group
from games.services.staff import OPERATOR, SUPPORT, set_account_active, set_up_roles
from tests.tables import shown_version

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HASH_MARKS = ("pbkdf2", "argon2", "md5$", "scrypt", "bcrypt", "sha1$")


def browser(user: User) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def perms(*names: str) -> list[Permission]:
    found = []
    for name in names:
        app_label, codename = name.split(".")
        found.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return found


@pytest.fixture
def boss(db) -> User:
    return User.objects.create_superuser("boss", "boss@example.com", "boss-Secret-987")


@pytest.fixture
def clerk(db) -> User:
    """Staff who may change and add users and see balances (the player
    page), and nothing else."""
    user = User.objects.create_user("clerk", is_staff=True)
    user.user_permissions.set(
        perms("auth.view_user", "auth.change_user", "auth.add_user", "games.view_wallet")
    )
    return user


@pytest.fixture
def colleague(db) -> User:
    return User.objects.create_user("colleague", password="colleague-Secret-1", is_staff=True)


@pytest.fixture
def alice(make_player) -> User:
    return make_player("alice", chips=100)


def change_url(user: User) -> str:
    return reverse("admin:auth_user_change", args=[user.pk])


def password_url(user: User) -> str:
    return reverse("admin:auth_user_password_change", args=[user.pk])


def as_posted(user: User, **fields) -> dict[str, object]:
    """The change form as a browser posts it: the account's own values,
    then whatever the attacker adds."""
    data: dict[str, object] = {
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
    }
    if user.is_active:
        data["is_active"] = "on"
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def privileges(user: User) -> tuple:
    user = User.objects.get(pk=user.pk)
    return (
        user.is_active,
        user.is_staff,
        user.is_superuser,
        sorted(user.groups.values_list("name", flat=True)),
        sorted(user.user_permissions.values_list("codename", flat=True)),
    )


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# --- a staff member with change_user reaching for more -------------------------------


def test_staff_with_change_user_cannot_make_themself_superuser(clerk):
    before = privileges(clerk)
    response = browser(clerk).post(
        change_url(clerk),
        as_posted(
            clerk,
            is_staff="on",
            is_superuser="on",
            user_permissions=[p.pk for p in perms("games.change_table", "auth.change_group")],
        ),
    )
    assert response.status_code == 403
    assert privileges(clerk) == before
    refreshed = User.objects.get(pk=clerk.pk)
    assert not refreshed.has_perm("games.change_table")
    assert not AuditEntry.objects.exists()


def test_staff_with_change_user_cannot_grant_a_player_staff_a_role_or_permissions(
    clerk, alice, boss
):
    set_up_roles()
    operator_role = Group.objects.get(name=OPERATOR)
    before = privileges(alice)
    client = browser(clerk)
    page = client.get(change_url(alice)).content.decode()
    # The fields are shown, never offered.
    for name in ("is_staff", "is_superuser", "groups", "user_permissions", "username"):
        assert f'name="{name}"' not in page
    response = client.post(
        change_url(alice),
        as_posted(
            alice,
            email="alice@example.com",
            is_staff="on",
            is_superuser="on",
            groups=[operator_role.pk],
            user_permissions=[p.pk for p in perms("games.change_wallet")],
            username="alice-renamed",
        ),
    )
    assert response.status_code == 302
    assert privileges(alice) == before
    refreshed = User.objects.get(pk=alice.pk)
    assert (refreshed.username, refreshed.email) == ("alice", "alice@example.com")
    entry = AuditEntry.objects.get(action="account.change")
    assert (entry.actor, entry.before, entry.after) == (
        clerk,
        {"email": ""},
        {"email": "alice@example.com"},
    )


def test_staff_with_change_user_cannot_deactivate_a_superuser(clerk, boss):
    client = browser(clerk)
    response = client.post(change_url(boss), as_posted(boss, is_active=None, reason="coup"))
    assert response.status_code == 403
    page = client.post(
        reverse("operator_player_active", args=[boss.pk]),
        {"active": "0", "reason": "coup"},
        follow=True,
        **EN,
    )
    assert "Only a superuser can change a staff or superuser account" in text(page.content.decode())
    assert User.objects.get(pk=boss.pk).is_active
    assert not AuditEntry.objects.exists()


def test_staff_with_change_user_cannot_change_another_staffs_password(clerk, colleague):
    stored = colleague.password
    client = browser(clerk)
    assert client.get(password_url(colleague)).status_code == 403
    response = client.post(
        password_url(colleague),
        {"usable_password": "true", "password1": "Taken-Over-123", "password2": "Taken-Over-123"},
    )
    assert response.status_code == 403
    assert User.objects.get(pk=colleague.pk).password == stored
    assert not AuditEntry.objects.exists()


def test_staff_with_change_user_cannot_edit_another_staff_account_at_all(clerk, colleague):
    response = browser(clerk).post(
        change_url(colleague), as_posted(colleague, email="mine@example.com")
    )
    assert response.status_code == 403
    assert User.objects.get(pk=colleague.pk).email == ""


def test_staff_with_add_user_can_only_add_players(clerk):
    client = browser(clerk)
    response = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "newcomer",
            "usable_password": "true",
            "password1": "Fresh-Start-456",
            "password2": "Fresh-Start-456",
            "is_staff": "on",
            "is_superuser": "on",
        },
    )
    assert response.status_code == 302
    newcomer = User.objects.get(username="newcomer")
    assert not (newcomer.is_staff or newcomer.is_superuser)
    entry = AuditEntry.objects.get(action="account.create")
    assert entry.actor == clerk
    assert entry.after["username"] == "newcomer" and entry.after["is_staff"] is False
    assert entry.after["password"] == "set"


def test_nobody_deletes_an_account_in_the_console(boss, alice):
    client = browser(boss)
    assert client.get(reverse("admin:auth_user_delete", args=[alice.pk])).status_code == 403
    assert (
        client.post(reverse("admin:auth_user_delete", args=[alice.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert User.objects.filter(pk=alice.pk).exists()


def test_staff_with_change_group_cannot_give_a_role_more_permissions(db):
    set_up_roles()
    support = Group.objects.get(name=SUPPORT)
    before = sorted(support.permissions.values_list("codename", flat=True))
    sneaky = User.objects.create_user("sneaky", is_staff=True)
    sneaky.user_permissions.set(perms("auth.view_group", "auth.change_group", "auth.add_group"))
    client = browser(sneaky)
    url = reverse("admin:auth_group_change", args=[support.pk])
    response = client.post(
        url, {"name": SUPPORT, "permissions": [p.pk for p in perms("games.change_wallet")]}
    )
    assert response.status_code == 403
    assert client.post(reverse("admin:auth_group_add"), {"name": "Mine"}).status_code == 403
    assert sorted(support.permissions.values_list("codename", flat=True)) == before
    assert not Group.objects.filter(name="Mine").exists()


# --- what is allowed is audited ------------------------------------------------------


def test_staff_deactivate_a_player_only_with_a_reason_and_it_is_audited(clerk, alice):
    client = browser(clerk)
    refused = client.post(change_url(alice), as_posted(alice, is_active=None), **EN)
    assert refused.status_code == 200
    assert "Give a reason: the audit log records it." in text(refused.content.decode())
    assert User.objects.get(pk=alice.pk).is_active

    done = client.post(change_url(alice), as_posted(alice, is_active=None, reason="self-exclusion"))
    assert done.status_code == 302
    assert not User.objects.get(pk=alice.pk).is_active
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor, entry.before, entry.after) == (
        "player.deactivate",
        clerk,
        {"is_active": True},
        {"is_active": False, "reason": "self-exclusion"},
    )


def test_a_superuser_grants_staff_and_a_role_and_the_log_says_so_in_words(boss, alice):
    set_up_roles()
    operator_role = Group.objects.get(name=OPERATOR)
    client = browser(boss)
    response = client.post(
        change_url(alice),
        as_posted(alice, is_staff="on", groups=[operator_role.pk], reason="new floor manager"),
    )
    assert response.status_code == 302
    assert privileges(alice)[1:4] == (True, False, [OPERATOR])
    entry = AuditEntry.objects.get(action="account.change")
    assert (entry.actor, entry.before, entry.after) == (
        boss,
        {"is_staff": False, "groups": []},
        {"is_staff": True, "groups": [OPERATOR], "reason": "new floor manager"},
    )
    page = client.get(reverse("admin:games_auditentry_change", args=[entry.pk]), **EN)
    words = text(page.content.decode())
    assert "boss changed the account alice" in words
    assert "staff status No → Yes" in words
    assert f"groups added: {OPERATOR}" in words
    assert "reason: new floor manager" in words


def test_a_password_reset_is_an_audited_event_that_signs_the_player_out(
    clerk, alice, django_capture_on_commit_callbacks
):
    theirs = browser(alice)
    assert theirs.get(reverse("account")).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = browser(clerk).post(
            password_url(alice),
            {
                "usable_password": "true",
                "password1": "Brand-New-Secret-9",
                "password2": "Brand-New-Secret-9",
                "set-password": "1",
            },
        )
    assert response.status_code == 302
    assert User.objects.get(pk=alice.pk).check_password("Brand-New-Secret-9")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor, entry.before, entry.after) == (
        "account.password_reset",
        clerk,
        None,
        {"password": "set"},
    )
    account = theirs.get(reverse("account"))
    assert account.status_code == 302 and "login" in account["Location"]


def test_the_user_pages_never_show_a_password_or_pin_hash(boss, clerk, alice):
    set_pin(user=alice, password="pw-Secret-123", new_pin="2468")
    pin_hash = Profile.objects.get(user=alice).pin_hash
    stored = User.objects.get(pk=alice.pk).password
    salt_and_hash = stored.split("$", 1)[1]
    # The audit log too, after a change and a reset.
    browser(boss).post(
        password_url(alice),
        {"usable_password": "true", "password1": "Xyz-Secret-77", "password2": "Xyz-Secret-77"},
    )
    browser(boss).post(change_url(alice), as_posted(alice, email="a@example.com"))
    pages = [
        reverse("admin:auth_user_changelist"),
        change_url(alice),
        change_url(boss),
        password_url(alice),
        reverse("admin:auth_user_history", args=[alice.pk]),
        reverse("admin:auth_user_add"),
        reverse("admin:games_auditentry_changelist"),
        reverse("admin:games_profile_change", args=[alice.profile.pk]),
        *(reverse("admin:games_auditentry_change", args=[e.pk]) for e in AuditEntry.objects.all()),
    ]
    now_stored = User.objects.get(pk=alice.pk).password
    for who in (boss, clerk):
        client = browser(who)
        for url in pages:
            response = client.get(url)
            if response.status_code == 403:
                continue
            assert response.status_code == 200, url
            html = response.content.decode().lower()
            assert salt_and_hash.lower() not in html, url
            assert now_stored.split("$", 1)[1].lower() not in html, url
            assert pin_hash.split("$", 1)[1].lower() not in html, url
            for mark in HASH_MARKS:
                assert mark not in html, (url, mark)
    page = text(browser(boss).get(change_url(alice), **EN).content.decode())
    assert "Password-based authentication: Enabled" in page


# --- roles ---------------------------------------------------------------------------


@pytest.fixture
def support_member(db) -> User:
    set_up_roles()
    user = User.objects.create_user("helpdesk", is_staff=True)
    user.groups.add(Group.objects.get(name=SUPPORT))
    return user


@pytest.fixture
def operator_member(db) -> User:
    set_up_roles()
    user = User.objects.create_user("floor", is_staff=True)
    user.groups.add(Group.objects.get(name=OPERATOR))
    return user


def test_a_support_member_reads_players_but_cannot_change_anything(support_member, alice, boss):
    client = browser(support_member)
    assert client.get(change_url(alice)).status_code == 200  # looks
    assert client.get(reverse("admin:games_round_changelist")).status_code == 200
    table = Table.objects.get(slug="baccarat-classic")
    attempts = [
        (change_url(alice), as_posted(alice, is_active=None, reason="x")),
        (change_url(support_member), as_posted(support_member, is_superuser="on")),
        (password_url(alice), {"password1": "Abc-Secret-55", "password2": "Abc-Secret-55"}),
        (reverse("admin:games_table_change", args=[table.pk]), {"name": "Mine"}),
        (reverse("admin:games_wallet_adjust") + f"?ids={alice.wallet.pk}", {"amount": "10"}),
        (reverse("admin:auth_group_add"), {"name": "Mine"}),
    ]
    for url, data in attempts:
        assert client.post(url, {**data, "direction": "credit", "reason": "x"}).status_code == 403
    assert client.post(
        reverse("operator_player_active", args=[alice.pk]), {"active": "0", "reason": "x"}
    ).status_code in (403, 404)
    alice.refresh_from_db()
    assert alice.is_active and alice.wallet.balance == 100 * 100
    assert Table.objects.get(pk=table.pk).name == table.name
    assert not AuditEntry.objects.filter(actor=support_member).exists()


def test_an_operator_runs_tables_but_cannot_touch_staff_superuser_or_roles(operator_member, alice):
    client = browser(operator_member)
    table = Table.objects.get(slug="baccarat-classic")
    assert (
        client.post(
            reverse("admin:games_table_changelist"),
            {"action": "close_tables", "_selected_action": [table.pk]},
        ).status_code
        == 302
    )
    assert not Table.objects.get(pk=table.pk).enabled

    support = Group.objects.get(name=SUPPORT)
    own = client.post(
        change_url(operator_member),
        as_posted(operator_member, is_superuser="on", groups=[support.pk], reason="x"),
    )
    assert own.status_code == 403
    client.post(
        change_url(alice),
        as_posted(alice, is_staff="on", is_superuser="on", groups=[support.pk], reason="x"),
    )
    assert privileges(alice)[1:4] == (False, False, [])
    assert privileges(operator_member)[1:4] == (True, False, [OPERATOR])


# --- deactivation ends every session; reactivation does not bring them back ------------


def bet(client: Client):
    return client.post(
        reverse("baccarat_bet", args=["baccarat-classic"]),
        {
            "slip_key": "after-reactivation",
            "player": "1",
            "table_version": shown_version("baccarat-classic"),
        },
        HTTP_HX_REQUEST="true",
    )


def test_a_reactivated_players_old_session_stays_signed_out(
    boss, alice, django_capture_on_commit_callbacks
):
    theirs = browser(alice)  # the browser they had open
    elsewhere = browser(alice)  # and another one
    assert theirs.get(reverse("account")).status_code == 200
    operator = browser(boss)
    with django_capture_on_commit_callbacks(execute=True):
        for active, reason in (("0", "fraud review"), ("1", "cleared")):
            operator.post(
                reverse("operator_player_active", args=[alice.pk]),
                {"active": active, "reason": reason},
            )
    assert User.objects.get(pk=alice.pk).is_active
    for client in (theirs, elsewhere):
        account = client.get(reverse("account"))
        assert account.status_code == 302 and "login" in account["Location"]
        refused = bet(client)
        assert refused.status_code == 302 and "login" in refused["Location"]
    assert not Round.objects.filter(player=alice).exists()
    assert not Session.objects.filter(
        session_key__in=[theirs.cookies["sessionid"].value, elsewhere.cookies["sessionid"].value]
    ).exists()
    # Logging in again works as usual.
    assert browser(alice).get(reverse("account")).status_code == 200


def test_a_deactivation_drops_the_cached_copy_of_the_session_too(
    settings, boss, alice, django_capture_on_commit_callbacks
):
    settings.CASINO_SESSION_CACHE = True  # as in the cluster
    theirs = browser(alice)
    key = theirs.cookies["sessionid"].value
    try:
        assert theirs.get(reverse("account")).status_code == 200
        assert cache.get(CACHE_PREFIX + key) is not None
        with django_capture_on_commit_callbacks(execute=True):
            set_account_active(actor=boss, account=alice, active=False, reason="fraud review")
        assert cache.get(CACHE_PREFIX + key) is None
        with django_capture_on_commit_callbacks(execute=True):
            set_account_active(actor=boss, account=alice, active=True, reason="cleared")
        account = theirs.get(reverse("account"))
        assert account.status_code == 302 and "login" in account["Location"]
    finally:
        cache.delete(CACHE_PREFIX + key)


def test_deactivating_closes_the_players_sockets(boss, alice, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(alice.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        set_account_active(actor=boss, account=alice, active=False, reason="fraud review")
    assert async_to_sync(layer.receive)(channel) == {"type": "session.end"}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_open_at_deactivation_closes_and_cannot_come_back(make_player):
    boss = await database_sync_to_async(User.objects.create_superuser)("boss", "b@example.com")
    alice = await database_sync_to_async(make_player)("alice")
    theirs = await database_sync_to_async(browser)(alice)
    headers = [
        (b"host", b"localhost:8000"),
        (b"origin", b"http://localhost:8000"),
        (b"cookie", f"sessionid={theirs.cookies['sessionid'].value}".encode()),
    ]
    path = "/ws/baccarat/baccarat-social/"
    socket = WebsocketCommunicator(application, path, headers=headers)
    assert (await socket.connect(timeout=3))[0]

    await database_sync_to_async(set_account_active)(
        actor=boss, account=alice, active=False, reason="fraud review"
    )
    closed = await socket.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": SESSION_END_CLOSE_CODE}
    await database_sync_to_async(set_account_active)(
        actor=boss, account=alice, active=True, reason="cleared"
    )
    again = WebsocketCommunicator(application, path, headers=headers)
    assert not (await again.connect(timeout=3))[0]
