"""Tables and their versioned paytables and limits.

The presets themselves are in the pure ``games.presets``; this module saves
them (and every operator edit) as tables with a frozen version and an audit
row.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from games.models import AuditEntry, Table, TableVersion
from games.presets import PRESET_NAMES_JA, PRESETS

# Fields whose change makes a new version: what a round is played under.
VERSIONED_FIELDS = (
    "decks", "pays", "limits", "max_bet", "squeeze_threshold", "decision_timeout", "betting_seconds",
    "squeeze_seconds",
)  # fmt: skip
AUDITED_FIELDS = (
    "name",
    "name_ja",
    "slug",
    "enabled",
    "position",
    "live",
    "chips",
    *VERSIONED_FIELDS,
)


def _snapshot(table: Table) -> dict[str, Any]:
    return {field: getattr(table, field) for field in AUDITED_FIELDS}


def snapshot_version(*, table: Table, actor: User | None = None) -> TableVersion:
    """Freeze the table's paytable and limits as its next version."""
    number = (TableVersion.objects.filter(table=table).aggregate(n=Max("number"))["n"] or 0) + 1
    version = TableVersion.objects.create(
        table=table,
        number=number,
        decks=table.decks,
        pays=dict(table.pays),
        limits=dict(table.limits),
        max_bet=table.max_bet,
        squeeze_threshold=table.squeeze_threshold,
        decision_timeout=table.decision_timeout,
        betting_seconds=table.betting_seconds,
        squeeze_seconds=table.squeeze_seconds,
        created_by=actor,
    )
    Table.objects.filter(pk=table.pk).update(current_version=version)
    table.current_version = version
    return version


@transaction.atomic
def save_table(*, table: Table, actor: User | None, before: dict[str, Any] | None = None) -> Table:
    """Save an edited table: audit what changed and, when the paytable or
    limits changed, make a new version for the rounds that start from now on.
    ``before`` is the snapshot taken before the edit (None for a new table)."""
    table.save()
    after = _snapshot(table)
    changed_versioned = before is None or any(before.get(f) != after[f] for f in VERSIONED_FIELDS)
    if changed_versioned or table.current_version_id is None:
        snapshot_version(table=table, actor=actor)
    if before != after:
        AuditEntry.objects.create(
            actor=actor,
            action="table.create" if before is None else "table.change",
            object_type="table",
            object_id=str(table.pk),
            object_repr=table.name[:200],
            before=before,
            after=after,
        )
    return table


def table_snapshot(table: Table) -> dict[str, Any]:
    return _snapshot(table)


def create_presets() -> list[Table]:
    """Create the SPEC presets that do not exist yet (matched by slug)."""
    made = []
    for preset in PRESETS:
        if Table.objects.filter(slug=preset["slug"]).exists():
            continue
        table = Table.objects.create(**preset, name_ja=PRESET_NAMES_JA.get(preset["slug"], ""))
        snapshot_version(table=table)
        made.append(table)
    return made
