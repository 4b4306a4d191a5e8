"""The data migration that gives the default tables chips up to their
maximum: a default table still on the old preset's chips gets the new set,
a table whose operator chose its own chips keeps them, and going back
restores the old sets."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.models import Table

BEFORE = [("games", "0010_table_names")]
AFTER = [("games", "0011_chips_up_to_the_maximum")]

OLD = {
    "baccarat-social": [1, 5, 10, 50, 100],
    "baccarat-classic": [0.1, 0.5, 1, 5, 25, 100],
    "casino-war": [1, 5, 25, 100, 500],
}
NEW = {
    "baccarat-social": [1, 5, 25, 100, 500, 1000, 5000],
    "baccarat-classic": [0.1, 0.5, 1, 5, 25, 100, 500, 1000, 5000, 10000],
    "casino-war": [1, 5, 25, 100, 500, 1000, 5000],
}


def migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


@pytest.fixture
def at_0010(transactional_db):
    migrate(BEFORE)
    yield
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def chips() -> dict[str, list]:
    return dict(Table.objects.filter(slug__in=OLD).values_list("slug", "chips"))


def test_it_gives_the_default_tables_their_new_chips_and_leaves_an_operators_alone(at_0010):
    # Going back put the default tables on the old chips again.
    assert chips() == OLD
    # An operator chose Classic's chips; a stored 100.0 is still the old Social.
    Table.objects.filter(slug="baccarat-classic").update(chips=[1, 2, 3])
    Table.objects.filter(slug="baccarat-social").update(chips=[1, 5, 10, 50, 100.0])

    migrate(AFTER)

    assert chips() == {**NEW, "baccarat-classic": [1, 2, 3]}


def test_it_brings_back_the_old_chips_only_where_the_new_ones_stand(at_0010):
    migrate(AFTER)
    Table.objects.filter(slug="casino-war").update(chips=[5, 25])

    migrate(BEFORE)

    assert chips() == {**OLD, "casino-war": [5, 25]}
