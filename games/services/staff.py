"""Who may change which account, and every change of one with its audit entry.

Staff powers are least privilege. The operator console's user pages
(``games/admin/users.py``) and the player page (``games/views/operator.py``)
both change accounts only through this module, which checks again whatever
their forms showed:

* a superuser may change any account: besides what follows, its username,
  staff and superuser status, roles (groups) and single permissions;
* staff holding ``auth.change_user`` change players only (accounts that are
  neither staff nor superuser): the active flag, e-mail and names, and a new
  password; staff holding ``auth.add_user`` create players;
* nobody deactivates their own account, and the last active superuser stays
  an active superuser.

Each change is one transaction with an ``AuditEntry`` naming the actor and
the fields before and after: flags, roles by name, permissions as
``app_label.codename``, a password reset as an event (never a hash). A change
of the active flag ends every session and socket of the account and a new
password ends its sockets (``games/services/sockets.py`` watches the save; Django's
own check of the password hash ends the sessions).

The roles staff are given are defined here too (``ROLES``); ``setup_casino``
creates them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import Group, Permission, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.errors import GameError
from games.models import AuditEntry

ACCOUNT = "account"
CREATE = "account.create"
CHANGE = "account.change"
RESET = "account.password_reset"
# The active flag keeps the player page's own entries (games/selectors/operator_players.py).
PLAYER = "player"
DEACTIVATE = "player.deactivate"
REACTIVATE = "player.reactivate"
ROLE = "group"
ROLE_CREATE = "group.create"
ROLE_CHANGE = "group.change"

# What staff holding auth.change_user may change on a player's account.
PLAYER_FIELDS = ("is_active", "email", "first_name", "last_name")
# What only a superuser changes, on any account.
SUPERUSER_FIELDS = ("username", "is_staff", "is_superuser", "groups", "user_permissions")
ACCOUNT_FIELDS = PLAYER_FIELDS + SUPERUSER_FIELDS
# Where the audit log keeps each field (the relations under shorter names).
AUDIT_KEYS = {name: name for name in ACCOUNT_FIELDS} | {"user_permissions": "permissions"}
CREATED_FIELDS = ("username", "email", "first_name", "last_name", "is_active", "is_staff")

# The roles of the operator console, each with exactly the permissions its
# work needs. Operator: runs the tables (adds, opens, closes, edits
# paytables and limits; versions are made by the table service), credits and
# debits balances, reads players, rounds, the ledger and the audit log, and
# may change players (deactivate, e-mail, password; never staff: see above).
# Support: reads players and their play, changes nothing.
OPERATOR = "Operator"
SUPPORT = "Support"
_SUPPORT_READS = frozenset(
    {
        "auth.view_user",
        "games.view_profile",
        "games.view_wallet",
        "games.view_round",
        "games.view_ledgerentry",
        # Play safe: who has limits, time-outs and exclusions; never a change.
        "games.view_losslimit",
        "games.view_playbreak",
        "games.view_limitrefusal",
    }
)
ROLES: dict[str, frozenset[str]] = {
    OPERATOR: _SUPPORT_READS
    | {
        "auth.change_user",
        "games.add_table",
        "games.change_table",
        "games.view_table",
        "games.view_tableversion",
        "games.change_wallet",
        "games.view_auditentry",
    },
    SUPPORT: _SUPPORT_READS,
}


# --- what an account is, for the audit log -------------------------------------------


def permission_names(permissions: Iterable[Permission]) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in permissions)


def _audit_value(field_name: str, value: Any) -> Any:
    """A field's value as the audit log stores it: roles by name, permissions by codename."""
    if field_name == "groups":
        return sorted(group.name for group in value)
    if field_name == "user_permissions":
        return permission_names(value)
    return value


def account_snapshot(account: User, fields: Iterable[str] = ACCOUNT_FIELDS) -> dict[str, Any]:
    """The stored ``fields`` of ``account`` under their audit keys (never the password)."""
    snapshot = {}
    for name in fields:
        if name == "groups":
            value: Any = account.groups.all()
        elif name == "user_permissions":
            value = account.user_permissions.select_related("content_type")
        else:
            value = getattr(account, name)
        snapshot[AUDIT_KEYS[name]] = _audit_value(name, value)
    return snapshot


def _field_label(name: str) -> str:
    # Django's own verbose names ("staff status", "groups"), already translated.
    field = User._meta.get_field(name)
    return str(getattr(field, "verbose_name", name))


def _audit(
    *, actor: User | None, action: str, object_type: str, obj: User | Group, before, after
) -> AuditEntry:
    return AuditEntry.objects.create(
        actor=actor,
        action=action,
        object_type=object_type,
        object_id=str(obj.pk),
        object_repr=(obj.get_username() if isinstance(obj, User) else obj.name)[:200],
        before=before,
        after=after,
    )


# --- who may change what -------------------------------------------------------------


def is_staff_account(account: User) -> bool:
    return account.is_staff or account.is_superuser


def check_may_change(*, actor: User, account: User) -> None:
    """Refuse ``actor`` any change to ``account`` they may not make at all."""
    if not (actor.is_active and actor.is_staff and actor.has_perm("auth.change_user")):
        raise GameError(
            _("Changing accounts needs the permission to change users. Nothing was changed."),
            code="permission",
        )
    if is_staff_account(account) and not actor.is_superuser:
        raise GameError(
            _("Only a superuser can change a staff or superuser account. Nothing was changed."),
            code="superuser",
        )


def may_change(*, actor: User, account: User) -> bool:
    try:
        check_may_change(actor=actor, account=account)
    except GameError:
        return False
    return True


def editable_fields(*, actor: User, account: User) -> tuple[str, ...]:
    """The fields of ``account`` that ``actor`` may change (none: look only)."""
    if not may_change(actor=actor, account=account):
        return ()
    return ACCOUNT_FIELDS if actor.is_superuser else PLAYER_FIELDS


@dataclass(frozen=True)
class AccountDiff:
    """The fields a change really changes, under their audit keys."""

    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)


def _check_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise GameError(_("Give a reason: the audit log records it."), code="reason")
    return reason[:255]


def _last_active_superuser(account: User) -> bool:
    others = User.objects.filter(is_superuser=True, is_active=True).exclude(pk=account.pk)
    return account.is_superuser and account.is_active and not others.exists()


def check_account_change(
    *, actor: User, account: User, changes: Mapping[str, Any], reason: str = ""
) -> AccountDiff:
    """Refuse a change ``actor`` may not make to ``account`` (as stored now);
    return what it changes. ``changes`` maps field names of
    ``ACCOUNT_FIELDS`` to new values (roles and permissions as objects)."""
    unknown = set(changes) - set(ACCOUNT_FIELDS)
    if unknown:
        raise ValueError(f"not an account field: {', '.join(sorted(unknown))}")
    check_may_change(actor=actor, account=account)
    stored = account_snapshot(account, changes)
    wanted = {AUDIT_KEYS[name]: _audit_value(name, value) for name, value in changes.items()}
    changed = [name for name in changes if stored[AUDIT_KEYS[name]] != wanted[AUDIT_KEYS[name]]]
    allowed = editable_fields(actor=actor, account=account)
    for name in changed:
        if name not in allowed:
            raise GameError(
                _("Only a superuser can change %(field)s. Nothing was changed.")
                % {"field": _field_label(name)},
                code="superuser",
            )
    if "is_active" in changed:
        _check_reason(reason)
        if not changes["is_active"] and account.pk == actor.pk:
            raise GameError(_("You cannot deactivate your own account."), code="self")
    demoted = ("is_active" in changed and not changes["is_active"]) or (
        "is_superuser" in changed and not changes["is_superuser"]
    )
    if demoted and _last_active_superuser(account):
        raise GameError(
            _(
                "%(account)s is the last active superuser: make another account a "
                "superuser first. Nothing was changed."
            )
            % {"account": account.get_username()},
            code="last_superuser",
        )
    keys = [AUDIT_KEYS[name] for name in changed]
    return AccountDiff(
        before={key: stored[key] for key in keys}, after={key: wanted[key] for key in keys}
    )


# --- the changes ---------------------------------------------------------------------


def _lock(account: User, changes: Iterable[str] = ()) -> User:
    """Lock ``account``'s row; for a change that could leave no active
    superuser, every active superuser's row with it, in id order (so two
    such changes wait for each other instead of deadlocking)."""
    if {"is_active", "is_superuser"} & set(changes):
        list(
            User.objects.select_for_update()
            .filter(Q(is_superuser=True, is_active=True) | Q(pk=account.pk))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    return User.objects.select_for_update().get(pk=account.pk)


@transaction.atomic
def change_account(
    *, actor: User, account: User, changes: Mapping[str, Any], reason: str = ""
) -> User:
    """Change ``account`` as ``actor``, or refuse and change nothing (see
    ``check_account_change``). A change of the active flag is audited as a
    deactivation or reactivation with its reason; the other fields as one
    account change. Returns the account as saved."""
    locked = _lock(account, changes)
    diff = check_account_change(actor=actor, account=locked, changes=changes, reason=reason)
    if not diff.after:
        return locked
    scalars = [
        name
        for name in changes
        if AUDIT_KEYS[name] in diff.after and name not in ("groups", "user_permissions")
    ]
    for name in scalars:
        setattr(locked, name, changes[name])
    if scalars:
        locked.save(
            update_fields=scalars
        )  # games/services/sockets.py ends sessions if is_active changed
    if "groups" in diff.after:
        locked.groups.set(changes["groups"])
    if "permissions" in diff.after:
        locked.user_permissions.set(changes["user_permissions"])

    before, after = dict(diff.before), dict(diff.after)
    reason = (reason or "").strip()[:255]
    if "is_active" in after:
        active = after.pop("is_active")
        _audit(
            actor=actor,
            action=REACTIVATE if active else DEACTIVATE,
            object_type=PLAYER,
            obj=locked,
            before={"is_active": before.pop("is_active")},
            after={"is_active": active, "reason": reason},
        )
    if after:
        _audit(
            actor=actor,
            action=CHANGE,
            object_type=ACCOUNT,
            obj=locked,
            before=before,
            after={**after, "reason": reason} if reason else after,
        )
    return locked


@transaction.atomic
def set_account_active(*, actor: User, account: User, active: bool, reason: str) -> User:
    """Deactivate (``active=False``) or reactivate an account with a reason.

    Either way every session of the account ends, in every browser, and its
    sockets close: a reactivated account starts from a fresh login."""
    account = _lock(account, ["is_active"])
    if account.is_active == active:
        raise GameError(
            (
                _("%(player)s is already active. Nothing was changed.")
                if active
                else _("%(player)s is already deactivated. Nothing was changed.")
            )
            % {"player": account.get_username()},
            code="unchanged",
        )
    return change_account(
        actor=actor, account=account, changes={"is_active": active}, reason=reason
    )


@transaction.atomic
def reset_password(*, actor: User, account: User, password: str | None) -> User:
    """Give ``account`` a new password (None: turn password login off).

    The account's sockets close and its other sessions end at their next
    request (their stored hash of the old password no longer matches)."""
    locked = _lock(account)
    check_may_change(actor=actor, account=locked)
    if password is None:
        locked.set_unusable_password()
    else:
        try:
            validate_password(password, locked)
        except ValidationError as exc:
            raise GameError(" ".join(exc.messages), code="password") from exc
        locked.set_password(password)
    locked.save(update_fields=["password"])
    _audit(
        actor=actor,
        action=RESET,
        object_type=ACCOUNT,
        obj=locked,
        before=None,
        after={"password": "set" if password is not None else "disabled"},
    )
    return locked


@transaction.atomic
def create_account(*, actor: User, account: User) -> User:
    """Save a new account built by a form (its password already set or
    turned off). Staff holding ``auth.add_user`` create players; only a
    superuser creates a staff or superuser account. Its wallet opens as it
    is saved (``wallet.open_new_users_account``)."""
    if account.pk is not None:
        raise ValueError("create_account saves new accounts only")
    if not (actor.is_active and actor.is_staff and actor.has_perm("auth.add_user")):
        raise GameError(
            _("Adding accounts needs the permission to add users. Nothing was changed."),
            code="permission",
        )
    if is_staff_account(account) and not actor.is_superuser:
        raise GameError(
            _("Only a superuser can create a staff or superuser account. Nothing was changed."),
            code="superuser",
        )
    account.save()
    snapshot = account_snapshot(account, CREATED_FIELDS)
    if account.is_superuser:
        snapshot["is_superuser"] = True
    _audit(
        actor=actor,
        action=CREATE,
        object_type=ACCOUNT,
        obj=account,
        before=None,
        after={**snapshot, "password": "set" if account.has_usable_password() else "disabled"},
    )
    return account


# --- roles -----------------------------------------------------------------------------


def role_snapshot(group: Group) -> dict[str, Any]:
    return {
        "name": group.name,
        "permissions": permission_names(group.permissions.select_related("content_type")),
    }


def _permissions(names: Iterable[str]) -> list[Permission]:
    wanted = set(names)
    query = Q(pk__in=[])
    for name in wanted:
        app_label, codename = name.split(".", 1)
        query |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(query).select_related("content_type"))
    missing = wanted - set(permission_names(found))
    if missing:
        raise GameError(
            _("These permissions do not exist (run migrate first): %(names)s")
            % {"names": ", ".join(sorted(missing))},
            code="permission",
        )
    return found


@transaction.atomic
def save_role(*, actor: User, group: Group, permissions: Iterable[Permission]) -> Group:
    """Save a role (a group) with exactly ``permissions``: superusers only,
    since a role's permissions are every member's."""
    if not (actor.is_active and actor.is_superuser):
        raise GameError(
            _("Only a superuser can change roles. Nothing was changed."), code="superuser"
        )
    created = group.pk is None
    before = None if created else role_snapshot(Group.objects.select_for_update().get(pk=group.pk))
    group.save()
    group.permissions.set(list(permissions))
    after = role_snapshot(group)
    if before != after:
        _audit(
            actor=actor,
            action=ROLE_CREATE if created else ROLE_CHANGE,
            object_type=ROLE,
            obj=group,
            before=before,
            after=after,
        )
    return group


@transaction.atomic
def set_up_roles() -> list[Group]:
    """Create the roles of ``ROLES`` with exactly their permissions, or put
    them back if someone changed them; returns those created or put back.
    Safe to run again. The audit log shows the system as the actor."""
    touched = []
    for name, names in ROLES.items():
        permissions = _permissions(names)
        group, created = Group.objects.select_for_update().get_or_create(name=name)
        before = None if created else role_snapshot(group)
        if before is not None and before["permissions"] == sorted(names):
            continue
        group.permissions.set(permissions)
        _audit(
            actor=None,
            action=ROLE_CREATE if created else ROLE_CHANGE,
            object_type=ROLE,
            obj=group,
            before=before,
            after=role_snapshot(group),
        )
        touched.append(group)
    return touched
