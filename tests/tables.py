"""What a Baccarat table's page shows that its BET sends back: the number
of the table's version (paytable and limits) the page was drawn with, as
the hidden ``table_version`` field holds it."""

from __future__ import annotations

from games.models import Table


def shown_version(slug: str) -> str:
    """The version number a page of table ``slug`` drawn now shows."""
    return str(Table.objects.values_list("current_version__number", flat=True).get(slug=slug))
