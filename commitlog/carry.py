"""A restore brings the books back to a backup, but never the log back in
time: the log is append-only and its checkpoints may be in any player's
browser or witness. ``live_log`` reads the live log before the restore and
``put_back`` writes it over the backup's, whose log it extends (every leaf
the backup holds, the live log holds at the same index). Leaves whose
rounds the restore dropped stay in the log as commitments never played.
When the live database is lost, the backup's log is all there is; the
published-checkpoint check (commitlog/published.py) then decides whether
it may be served.
"""

from __future__ import annotations

from typing import Any

from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction

from commitlog.models import Checkpoint, Cosignature, Leaf, LogState, Node

# Parents before children (a cosignature points at its checkpoint).
TABLES = [LogState, Leaf, Node, Checkpoint, Cosignature]

LiveLog = dict[type, list[dict[str, Any]]]


def live_log() -> LiveLog | None:
    """Every row of the live log, or None when there is no live database to read."""
    try:
        with transaction.atomic():
            return {model: list(model._default_manager.values()) for model in TABLES}
    except DatabaseError:
        return None


def put_back(live: LiveLog | None) -> bool:
    """Write the live log over the restored one, unless the restored one is
    longer (then the live one was not this site's); True if written."""
    if live is None:
        return False
    live_size = max((row["size"] for row in live[LogState]), default=0)
    restored = LogState.objects.filter(pk=1).values_list("size", flat=True).first() or 0
    if live_size < restored:
        return False
    with transaction.atomic():
        for model in reversed(TABLES):
            model._default_manager.all().delete()
        for model in TABLES:
            model._default_manager.bulk_create(
                [model(**row) for row in live[model]], batch_size=1000
            )
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), TABLES):
                cursor.execute(sql)
    return True
