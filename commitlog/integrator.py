"""The integrator: gives pending leaves their indexes, keeps the tree's
complete-subtree hashes and signs a checkpoint of the new tree.

Exactly one integrates at a time in the whole cluster: each pass runs in
one transaction that first locks ``LogState``'s one row (``SELECT ... FOR
UPDATE`` on PostgreSQL; SQLite's IMMEDIATE transactions admit one writer).
A second integrator waits for the lock and then finds the leaves already
placed, so there is never a gap, a leaf placed twice nor a second tree.

It runs in two places, both safe at once: ``manage.py integrate_log`` (the
cluster's own program) and, when CASINO_LOG_INTEGRATE_SECONDS is above 0,
a thread in each serving process, started by the first new leaf and
passing every that many seconds (``make run``). A commitment is in a signed
checkpoint at most about that long after its round.
"""

from __future__ import annotations

import threading
import time

import structlog
from django.conf import settings
from django.db import close_old_connections, connection, transaction

from commitlog import published
from commitlog.keys import signer
from commitlog.models import Checkpoint, Leaf, LogState, Node
from commitlog.tree import peak_hashes
from games import tlog

BATCH = 5000

log = structlog.stdlib.get_logger(__name__)


def integrate(*, batch: int = BATCH) -> Checkpoint | None:
    """One pass: place up to ``batch`` pending leaves and sign the new
    tree; the new checkpoint, or None when nothing was pending."""
    with transaction.atomic():
        state, _made = LogState.objects.select_for_update().get_or_create(pk=1)
        published.refuse_if_forked(state.size)
        pending = list(
            Leaf.objects.filter(leaf_index__isnull=True)
            .order_by("id")
            .values_list("id", "data")[:batch]
        )
        if not pending and Checkpoint.objects.filter(size=state.size).exists():
            return None
        size = state.size
        nodes, peaks = tlog.append_leaves(
            size, peak_hashes(size), [tlog.leaf_hash(bytes(data)) for _id, data in pending]
        )
        _place(size, [leaf_id for leaf_id, _data in pending], nodes)
        state.size = size + len(pending)
        state.save(update_fields=["size"])
        root = tlog.root_from_peaks(peaks)
        cp = tlog.Checkpoint(settings.CASINO_LOG_ORIGIN, state.size, root)
        checkpoint = Checkpoint.objects.create(
            size=cp.size, root=root, note=tlog.sign_checkpoint(cp, signer())
        )
        transaction.on_commit(lambda: published.keep(checkpoint.note))
    log.info("log_integrated", size=checkpoint.size, leaves=len(pending))
    return checkpoint


def _place(size: int, ids: list[int], nodes: list[tuple[int, int, bytes]]) -> None:
    """Give the leaves ``ids`` (ascending) the indexes from ``size`` on and
    keep the new nodes: plain statements, as a pass may place thousands.

    One UPDATE per run of consecutive ids: no other leaf can have an id
    inside a run every id of which was read."""
    leaf = connection.ops.quote_name(Leaf._meta.db_table)
    node = connection.ops.quote_name(Node._meta.db_table)
    with connection.cursor() as cursor:
        start = 0
        for end in range(1, len(ids) + 1):
            if end == len(ids) or ids[end] != ids[end - 1] + 1:
                cursor.execute(
                    f"UPDATE {leaf} SET leaf_index = id + %s WHERE id BETWEEN %s AND %s",  # noqa: S608 - names are ours
                    [size + start - ids[start], ids[start], ids[end - 1]],
                )
                start = end
        cursor.executemany(
            f'INSERT INTO {node} (level, "index", hash) VALUES (%s, %s, %s)',  # noqa: S608 - names are ours
            nodes,
        )


def integrate_all() -> Checkpoint | None:
    """Passes until nothing is pending; the last checkpoint made."""
    last = None
    while (made := integrate()) is not None:
        last = made
    return last


# ------------------------------------------------------------------ in a serving process

_started = threading.Lock()
_thread: threading.Thread | None = None


def wake() -> None:
    """A leaf is being stored: make sure this process integrates."""
    global _thread
    if settings.CASINO_LOG_INTEGRATE_SECONDS <= 0 or _thread is not None:
        return
    with _started:
        if _thread is None:
            _thread = threading.Thread(target=_loop, name="log-integrator", daemon=True)
            _thread.start()


def _loop() -> None:
    while True:
        time.sleep(settings.CASINO_LOG_INTEGRATE_SECONDS)
        try:
            integrate_all()
        except Exception:  # a pass that failed is retried on the next; the reason is logged
            log.exception("log_integration_failed")
        finally:
            close_old_connections()
