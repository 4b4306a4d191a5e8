"""An audit entry in the operator's words: what was done, to what, with
amounts in chips ("max bet 10,000 → 9,000 chips", "credit 123 chips:
goodwill").

The audit rows store raw snapshots (units, JSON); only this module reads
them for people. A field that was simply set (a new table, a new reason)
reads as its value, never as "null → value".
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.display import format_chips
from games.labels import AREA_LABELS
from games.models import AuditEntry
from games.services.tables import AUDITED_FIELDS

ACTION_LABELS = {
    "table.create": gettext_lazy("Table created"),
    "table.change": gettext_lazy("Table changed"),
    "wallet.adjust": gettext_lazy("Balance adjusted"),
    "player.deactivate": gettext_lazy("Player deactivated"),
    "player.reactivate": gettext_lazy("Player reactivated"),
    "account.create": gettext_lazy("Account created"),
    "account.change": gettext_lazy("Account changed"),
    "account.password_reset": gettext_lazy("Password reset"),
    "group.create": gettext_lazy("Role created"),
    "group.change": gettext_lazy("Role changed"),
    "play_safe.loss_limit": gettext_lazy("Loss limit set by the player"),
    "play_safe.timeout": gettext_lazy("Time-out taken by the player"),
    "play_safe.exclusion": gettext_lazy("Self-exclusion taken by the player"),
    "play_safe.reality_check": gettext_lazy("Reality check set by the player"),
    "play_safe.time_zone": gettext_lazy("Time zone set by the player"),
    "database.restore": gettext_lazy("Database restored"),
}
OBJECT_TYPE_LABELS = {
    "table": gettext_lazy("Table"),
    "wallet": gettext_lazy("Player's balance"),
    "player": gettext_lazy("Player account"),
    "account": gettext_lazy("Account"),
    "group": gettext_lazy("Role"),
    "play_safe": gettext_lazy("Player's own controls"),
    "database": gettext_lazy("Database"),
}


def action_label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action))


def _chips(units: Any) -> str:
    return f"{format_chips(int(units))} {_('chips')}" if units is not None else "—"


def _amount(units: Any) -> str:
    return format_chips(int(units)) if units is not None else "—"


def _area(key: str) -> str:
    return str(AREA_LABELS.get(key, key))


def _limit(limit: Mapping[str, Any] | None) -> str:
    if not limit:
        return "—"
    return f"{_amount(limit.get('min'))}–{_amount(limit.get('max'))}"


def _chip_values(values: Any) -> str:
    return ", ".join(str(v) for v in values or []) or "—"


def _open(value: Any) -> str:
    return _("open") if value else _("closed")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# field -> (label, how one value reads, unit written once after the values)
_TABLE_FIELDS: dict[str, tuple[Any, Callable[[Any], str], Any]] = {
    "name": (gettext_lazy("name"), lambda v: f"“{v}”", ""),
    "slug": (gettext_lazy("address"), str, ""),
    "enabled": (gettext_lazy("table"), _open, ""),
    "position": (gettext_lazy("lobby position"), str, ""),
    "decks": (gettext_lazy("decks"), str, ""),
    "chips": (gettext_lazy("chip values"), _chip_values, gettext_lazy("chips")),
    "max_bet": (gettext_lazy("max bet"), _amount, gettext_lazy("chips")),
    "squeeze_threshold": (gettext_lazy("squeeze threshold"), _amount, gettext_lazy("chips")),
    "decision_timeout": (gettext_lazy("tie decision time"), str, gettext_lazy("s")),
    "squeeze_seconds": (gettext_lazy("squeeze time"), str, gettext_lazy("s")),
}


def _ordered(keys: Any, order: Any = ()) -> list[str]:
    """``keys`` once each, those named in ``order`` first and in its order,
    the rest alphabetically: PostgreSQL's jsonb keeps no key order, and the
    lines read the same on every database."""
    rank = {key: i for i, key in enumerate(order)}
    return sorted(dict.fromkeys(keys), key=lambda key: (rank.get(key, len(rank)), key))


def _line(label: Any, before: str | None, after: str, unit: Any = "") -> str:
    tail = f" {unit}" if str(unit) else ""
    if before is None:
        return f"{label} {after}{tail}"
    return f"{label} {before} → {after}{tail}"


def _dict_lines(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    show: Callable[[Any], str],
    label: Callable[[str], str],
    unit: Any = "",
    set_only: bool = False,
) -> list[str]:
    """One line per key that changed in a mapping (paytable, limits)."""
    before = before or {}
    after = after or {}
    lines = []
    for key in _ordered([*before, *after], AREA_LABELS):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if new is None:
            lines.append(_("%(what)s removed") % {"what": label(key)})
        elif old is None or set_only:
            lines.append(_line(label(key), None, show(new), unit))
        else:
            lines.append(_line(label(key), show(old), show(new), unit))
    return lines


def table_lines(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """What a table edit changed; for a new table (``before`` None), what it was set to."""
    created = before is None
    old = before or {}
    lines: list[str] = []
    for field in _ordered([*old, *after], AUDITED_FIELDS):
        b, a = old.get(field), after.get(field)
        if not created and b == a:
            continue
        if field == "pays":
            lines += _dict_lines(
                None if created else b, a, lambda v: f"x{v}", _area, set_only=created
            )
        elif field == "limits":
            lines += _dict_lines(
                None if created else b,
                a,
                _limit,
                lambda k: _("%(area)s limits") % {"area": _area(k)},
                _("chips"),
                set_only=created,
            )
        elif field in _TABLE_FIELDS:
            label, show, unit = _TABLE_FIELDS[field]
            if a is None:
                continue
            lines.append(_line(label, None if created or b is None else show(b), show(a), unit))
        else:
            lines.append(_line(field, None if created or b is None else _json(b), _json(a)))
    return lines


def wallet_lines(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    amount = int(after.get("amount") or 0)
    reason = after.get("reason") or ""
    verb = _("credit") if amount >= 0 else _("debit")
    what = f"{verb} {_chips(abs(amount))}"
    lines = [f"{what}: {reason}" if reason else what]
    if before and "balance" in before and "balance" in after:
        lines.append(
            _line(_("balance"), _amount(before["balance"]), _amount(after["balance"]), _("chips"))
        )
    return lines


def player_lines(action: str, after: Mapping[str, Any]) -> list[str]:
    verb = _("deactivated") if action == "player.deactivate" else _("reactivated")
    reason = after.get("reason") or ""
    return [f"{verb}: {reason}" if reason else verb]


def _yes_no(value: Any) -> str:
    return _("Yes") if value else _("No")


# Account fields (games.services.staff) -> (label, how one value reads); most
# labels are Django's own, translated by Django.
_ACCOUNT_FIELDS: dict[str, tuple[Any, Callable[[Any], str]]] = {
    "username": (gettext_lazy("username"), str),
    "email": (gettext_lazy("email address"), str),
    "first_name": (gettext_lazy("first name"), str),
    "last_name": (gettext_lazy("last name"), str),
    "is_active": (gettext_lazy("active"), _yes_no),
    "is_staff": (gettext_lazy("staff status"), _yes_no),
    "is_superuser": (gettext_lazy("superuser status"), _yes_no),
}
# Lists, read as what was added and what was taken away.
_ACCOUNT_LISTS = {"groups": gettext_lazy("groups"), "permissions": gettext_lazy("permissions")}


def _list_lines(label: Any, before: Any, after: Any) -> list[str]:
    old, new = set(before or []), set(after or [])
    lines = []
    if new - old:
        lines.append(
            _("%(what)s added: %(names)s") % {"what": label, "names": ", ".join(sorted(new - old))}
        )
    if old - new:
        lines.append(
            _("%(what)s removed: %(names)s")
            % {"what": label, "names": ", ".join(sorted(old - new))}
        )
    return lines


def _password_line(state: Any) -> str:
    if state == "disabled":
        return _("Password-based authentication was disabled.")
    return _("new password set")


def account_lines(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """What an account change, creation or password reset did; never a hash
    (the service stores none)."""
    created = before is None
    old = before or {}
    lines: list[str] = []
    for key in _ordered([*old, *after], [*_ACCOUNT_FIELDS, *_ACCOUNT_LISTS]):
        b, a = old.get(key), after.get(key)
        if key == "password":
            lines.append(_password_line(a))
        elif key == "reason":
            if a:
                lines.append(f"{_('reason')}: {a}")
        elif key in _ACCOUNT_LISTS:
            lines += _list_lines(_ACCOUNT_LISTS[key], b, a)
        elif created:
            if a:  # a new account reads as what was set, not every "No"
                label, show = _ACCOUNT_FIELDS.get(key, (key, _json))
                lines.append(_line(label, None, show(a)))
        elif b != a:
            label, show = _ACCOUNT_FIELDS.get(key, (key, _json))
            lines.append(_line(label, show(b), show(a)))
    return lines


def role_lines(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """A role's name and the permissions it gained or lost."""
    old = before or {}
    lines = []
    if before is not None and old.get("name") != after.get("name"):
        lines.append(_line(_("name"), f"“{old.get('name')}”", f"“{after.get('name')}”"))
    lines += _list_lines(
        _ACCOUNT_LISTS["permissions"], old.get("permissions"), after.get("permissions")
    )
    return lines


def database_lines(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """A restore: when its backup was taken, and the rounds before and after
    (before: unknown when the database was lost)."""
    old = before or {}

    def shown(value: Any) -> str | None:
        return None if value is None else str(value)

    taken = str(after.get("taken_at"))
    with contextlib.suppress(ValueError):
        taken = f"{dt.datetime.fromisoformat(taken):%Y-%m-%d %H:%M:%S} UTC"
    return [
        _line(_("backup taken at"), None, taken),
        _line(_("rounds"), shown(old.get("rounds")), str(after.get("rounds"))),
        _line(_("last round"), shown(old.get("last_round_id")), str(after.get("last_round_id"))),
    ]


def change_lines(entry: AuditEntry) -> list[str]:
    """The entry's changes, one short line each, amounts in chips."""
    before, after = entry.before, entry.after or {}
    if entry.object_type == "table":
        return table_lines(before, after)
    if entry.action == "wallet.adjust":
        return wallet_lines(before, after)
    if entry.object_type == "player":
        return player_lines(entry.action, after)
    if entry.object_type == "account":
        return account_lines(before, after)
    if entry.object_type == "group":
        return role_lines(before, after)
    if entry.object_type == "database":
        return database_lines(before, after)
    # Anything else: each changed key, a value that was only set reads as itself.
    old = before or {}
    lines = []
    for key in _ordered([*old, *after]):
        b, a = old.get(key), after.get(key)
        if b != a and a is not None:
            lines.append(_line(key, None if b is None else _json(b), _json(a)))
    return lines


def summary(entry: AuditEntry) -> str:
    """Who did what to which object, in one sentence."""
    who = entry.actor.get_username() if entry.actor else _("the system")
    what = {
        "table.create": _("%(who)s created table %(object)s"),
        "table.change": _("%(who)s changed table %(object)s"),
        "wallet.adjust": _("%(who)s adjusted the balance of %(object)s"),
        "player.deactivate": _("%(who)s deactivated %(object)s"),
        "player.reactivate": _("%(who)s reactivated %(object)s"),
        "account.create": _("%(who)s created the account %(object)s"),
        "account.change": _("%(who)s changed the account %(object)s"),
        "account.password_reset": _("%(who)s reset the password of %(object)s"),
        "group.create": _("%(who)s created the role %(object)s"),
        "group.change": _("%(who)s changed the role %(object)s"),
        "database.restore": _("%(who)s restored the database from the backup %(object)s"),
    }.get(entry.action, _("%(who)s: %(action)s on %(object)s"))
    return what % {"who": who, "object": entry.object_repr, "action": entry.action}
