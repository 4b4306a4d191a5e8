"""games/services/staff.py: who may change which account, the audit entry of
every change, the roles setup creates, and how the audit log reads them."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client

from games.admin.audit_words import change_lines, summary
from games.errors import GameError
from games.models import AuditEntry
from games.services import staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss() -> User:
    return User.objects.create_superuser("boss", "boss@example.com", None)


@pytest.fixture
def clerk() -> User:
    user = User.objects.create_user("clerk", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=["change_user", "view_user"]))
    return user


def signed_in(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


# --- who may change what -------------------------------------------------------------


def test_the_last_active_superuser_cannot_be_deactivated_or_demoted(boss):
    # Only a superuser changes a superuser: the last one could only demote themself.
    with pytest.raises(GameError, match="last active superuser"):
        staff.change_account(actor=boss, account=boss, changes={"is_superuser": False})
    with pytest.raises(GameError):
        staff.set_account_active(actor=boss, account=boss, active=False, reason="leaving")
    boss.refresh_from_db()
    assert boss.is_active and boss.is_superuser
    assert not AuditEntry.objects.exists()

    # With a second superuser, the first may step down (not deactivate themself).
    User.objects.create_superuser("deputy", "deputy@example.com", None)
    staff.change_account(actor=boss, account=boss, changes={"is_superuser": False})
    assert not User.objects.get(pk=boss.pk).is_superuser


def test_nobody_deactivates_their_own_account(boss):
    User.objects.create_superuser("deputy", "deputy@example.com", None)
    with pytest.raises(GameError, match="You cannot deactivate your own account."):
        staff.set_account_active(actor=boss, account=boss, active=False, reason="oops")
    assert User.objects.get(pk=boss.pk).is_active


def test_a_superuser_deactivates_another_superuser_and_it_is_audited(boss):
    deputy = User.objects.create_superuser("deputy", "deputy@example.com", None)
    staff.set_account_active(actor=boss, account=deputy, active=False, reason="left the company")
    assert not User.objects.get(pk=deputy.pk).is_active
    entry = AuditEntry.objects.get()
    assert (entry.actor, entry.action, entry.object_id, entry.before, entry.after) == (
        boss,
        "player.deactivate",
        str(deputy.pk),
        {"is_active": True},
        {"is_active": False, "reason": "left the company"},
    )


def test_staff_without_superuser_are_refused_privileges_and_nothing_changes(clerk, make_player):
    alice = make_player("alice")
    operator_role = Group.objects.create(name="Mine")
    attempts = [
        (clerk, {"is_superuser": True}),
        (alice, {"is_staff": True}),
        (alice, {"groups": [operator_role]}),
        (alice, {"user_permissions": Permission.objects.filter(codename="change_wallet")}),
        (alice, {"username": "alice2"}),
    ]
    for account, changes in attempts:
        with pytest.raises(GameError):
            staff.change_account(actor=clerk, account=account, changes=changes, reason="x")
    alice.refresh_from_db()
    clerk.refresh_from_db()
    assert not (alice.is_staff or alice.is_superuser or clerk.is_superuser)
    assert not alice.groups.exists() and not alice.user_permissions.exists()
    assert alice.username == "alice"
    assert not AuditEntry.objects.exists()


def test_staff_without_the_permission_change_no_account(make_player):
    viewer = User.objects.create_user("viewer", is_staff=True)
    alice = make_player("alice")
    with pytest.raises(GameError, match="permission to change users"):
        staff.set_account_active(actor=viewer, account=alice, active=False, reason="x")
    with pytest.raises(GameError, match="permission to change users"):
        staff.reset_password(actor=viewer, account=alice, password="Another-Secret-42")
    assert User.objects.get(pk=alice.pk).is_active


def test_a_weak_new_password_is_refused_with_the_reason(clerk, make_player):
    alice = make_player("alice")
    stored = alice.password
    with pytest.raises(GameError, match="too short"):
        staff.reset_password(actor=clerk, account=alice, password="abc")
    assert User.objects.get(pk=alice.pk).password == stored
    assert not AuditEntry.objects.exists()


def test_deactivating_one_player_leaves_other_players_signed_in(boss, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    alice_keys = {signed_in(alice), signed_in(alice)}
    bob_key = signed_in(bob)
    staff.set_account_active(actor=boss, account=alice, active=False, reason="fraud review")
    assert not Session.objects.filter(session_key__in=alice_keys).exists()
    assert Session.objects.filter(session_key=bob_key).exists()


# --- the audit log in words ----------------------------------------------------------


def test_the_log_reads_a_password_reset_and_an_account_creation_without_a_hash(
    clerk, boss, make_player
):
    alice = make_player("alice")
    staff.reset_password(actor=clerk, account=alice, password="Another-Secret-42")
    staff.reset_password(actor=boss, account=alice, password=None)
    newcomer = User(username="newcomer", email="new@example.com")
    newcomer.set_unusable_password()
    staff.create_account(actor=boss, account=newcomer)
    stored = User.objects.get(pk=alice.pk).password
    reset, disabled = AuditEntry.objects.filter(action="account.password_reset").order_by("id")
    assert change_lines(reset) == ["new password set"]
    assert summary(reset) == "clerk reset the password of alice"
    assert change_lines(disabled) == ["Password-based authentication was disabled."]
    created = AuditEntry.objects.get(action="account.create")
    assert change_lines(created) == [
        "username newcomer",
        "email address new@example.com",
        "active Yes",
        "Password-based authentication was disabled.",
    ]
    for entry in AuditEntry.objects.all():
        assert stored not in str(entry.before) + str(entry.after)
        assert "md5$" not in str(entry.before) + str(entry.after)


def test_staff_create_players_only(clerk):
    clerk.user_permissions.add(Permission.objects.get(codename="add_user"))
    clerk = User.objects.get(pk=clerk.pk)  # a fresh permission cache
    with pytest.raises(GameError, match="Only a superuser can create"):
        staff.create_account(actor=clerk, account=User(username="mole", is_staff=True))
    assert not User.objects.filter(username="mole").exists()
    staff.create_account(actor=clerk, account=User(username="player"))
    assert AuditEntry.objects.get().actor == clerk


# --- roles ---------------------------------------------------------------------------


def role_permissions(name: str) -> set[str]:
    group = Group.objects.get(name=name)
    return set(staff.permission_names(group.permissions.select_related("content_type")))


def test_setup_creates_the_roles_once_and_puts_back_what_was_changed():
    out = io.StringIO()
    call_command("setup_casino", stdout=out)
    assert "set up role Operator" in out.getvalue() and "set up role Support" in out.getvalue()
    assert role_permissions(staff.SUPPORT) == staff.ROLES[staff.SUPPORT]
    assert role_permissions(staff.OPERATOR) == staff.ROLES[staff.OPERATOR]

    again = io.StringIO()
    call_command("setup_casino", stdout=again)
    assert "role" not in again.getvalue()  # nothing to do
    assert AuditEntry.objects.filter(action="group.create").count() == 2

    # Someone gave Support a power: the next setup takes it back, in the log.
    support = Group.objects.get(name=staff.SUPPORT)
    support.permissions.add(Permission.objects.get(codename="change_wallet"))
    call_command("setup_casino", stdout=io.StringIO())
    assert role_permissions(staff.SUPPORT) == staff.ROLES[staff.SUPPORT]
    entry = AuditEntry.objects.get(action="group.change")
    assert entry.actor is None
    assert change_lines(entry) == ["permissions removed: games.change_wallet"]


def test_support_only_reads_and_operators_change_only_tables_balances_and_players():
    staff.set_up_roles()
    support = role_permissions(staff.SUPPORT)
    assert support and all(".view_" in name for name in support)
    operator = role_permissions(staff.OPERATOR)
    assert support <= operator
    assert {name for name in operator if ".view_" not in name} == {
        "games.add_table",
        "games.change_table",
        "games.change_wallet",
        "auth.change_user",
    }
    member = User.objects.create_user("floor", is_staff=True)
    member.groups.add(Group.objects.get(name=staff.OPERATOR))
    member = User.objects.get(pk=member.pk)
    assert staff.editable_fields(actor=member, account=member) == ()
    alice = User.objects.create_user("alice")
    assert set(staff.editable_fields(actor=member, account=alice)) == {
        "is_active",
        "email",
        "first_name",
        "last_name",
    }
