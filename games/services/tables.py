"""Tables, their presets and their versioned paytables and limits."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from games.models import AuditEntry, Table, TableVersion

# Fields whose change makes a new version: what a round is played under.
VERSIONED_FIELDS = ("decks", "pays", "limits", "max_bet", "squeeze_threshold", "decision_timeout")
AUDITED_FIELDS = ("name", "slug", "enabled", "position", "chips", *VERSIONED_FIELDS)

BACCARAT_AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")
WAR_AREAS = ("ante", "tie_bet")

SOCIAL_PAYS = {
    "player": "2",
    "banker": "1.95",
    "tie": "8",
    "player_pair": "10",
    "banker_pair": "10",
}
CLASSIC_PAYS = {
    "player": "2",
    "banker": "1.95",
    "tie": "9",
    "player_pair": "12",
    "banker_pair": "12",
}
WAR_PAYS = {"ante": "2", "raise": "2", "tie_bet": "11", "war_tie_bonus": "0"}


def _limits(**areas: tuple[int, int]) -> dict[str, dict[str, int]]:
    """Limits given in chips, stored in units."""
    return {area: {"min": lo * 100, "max": hi * 100} for area, (lo, hi) in areas.items()}


PRESETS: list[dict[str, Any]] = [
    {
        "game": "baccarat",
        "name": "Baccarat Social",
        "slug": "baccarat-social",
        "position": 1,
        "decks": 1,
        "chips": [1, 5, 10, 50, 100],
        "pays": SOCIAL_PAYS,
        "limits": _limits(
            player=(1, 5_000),
            banker=(1, 5_000),
            tie=(1, 500),
            player_pair=(1, 500),
            banker_pair=(1, 500),
        ),
        "max_bet": 10_000 * 100,
        "squeeze_threshold": 1_000 * 100,
        "decision_timeout": 30,
    },
    {
        "game": "baccarat",
        "name": "Baccarat Classic",
        "slug": "baccarat-classic",
        "position": 2,
        "decks": 8,
        "chips": [1, 5, 10, 50, 100],
        "pays": CLASSIC_PAYS,
        "limits": _limits(
            player=(10, 20_000),
            banker=(10, 20_000),
            tie=(10, 2_000),
            player_pair=(10, 2_000),
            banker_pair=(10, 2_000),
        ),
        "max_bet": 25_000 * 100,
        "squeeze_threshold": 5_000 * 100,
        "decision_timeout": 30,
    },
    {
        "game": "war",
        "name": "Casino War",
        "slug": "casino-war",
        "position": 3,
        "decks": 6,
        "chips": [1, 5, 25, 100, 500],
        "pays": WAR_PAYS,
        "limits": _limits(ante=(5, 5_000), tie_bet=(1, 500)),
        "max_bet": 5_500 * 100,
        "squeeze_threshold": 0,
        "decision_timeout": 30,
    },
]


def decimal_pays(pays: dict[str, str]) -> dict[str, Decimal]:
    return {area: Decimal(str(value)) for area, value in pays.items()}


def _snapshot(table: Table) -> dict[str, Any]:
    return {field: getattr(table, field) for field in AUDITED_FIELDS}


def snapshot_version(*, table: Table, actor: AbstractBaseUser | None = None) -> TableVersion:
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
        created_by=actor,
    )
    Table.objects.filter(pk=table.pk).update(current_version=version)
    table.current_version = version
    return version


@transaction.atomic
def save_table(
    *, table: Table, actor: AbstractBaseUser | None, before: dict[str, Any] | None = None
) -> Table:
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
            object_repr=str(table)[:200],
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
        table = Table.objects.create(**preset)
        snapshot_version(table=table)
        made.append(table)
    return made
