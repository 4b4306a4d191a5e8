"""The newest checkpoint this site published, kept outside the database.

A checkpoint, once served, may be in any player's browser or witness: the
log must extend it forever. A database restored from an older backup, or
one rewritten by hand, could hold a tree that does not; the site then
refuses to integrate or serve it and says why (docs/commitment-log.md),
rather than show a forked log.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings

from commitlog.models import Checkpoint, LogState
from commitlog.tree import root_at
from games import tlog


class LogForked(RuntimeError):
    """The database's tree does not extend a checkpoint already published."""


def keep(note: str) -> None:
    path = settings.CASINO_LOG_PUBLISHED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of its own per writer: two integrators (threads or processes)
    # may keep a checkpoint at once.
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".new")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(note)
    partial = Path(name)
    old = last()
    new = tlog.parse_checkpoint_body(tlog.parse_note(note).body)
    if old is None or new.size >= old.size:
        partial.replace(path)
    else:  # another process kept a newer one meanwhile
        partial.unlink()


def last() -> tlog.Checkpoint | None:
    path = settings.CASINO_LOG_PUBLISHED_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return tlog.parse_checkpoint_body(tlog.parse_note(text).body)


def refuse_if_forked(size: int) -> None:
    """Raise ``LogForked`` unless the stored tree of ``size`` leaves extends
    the last published checkpoint."""
    old = last()
    if old is None or old.size == 0:
        return
    if size < old.size:
        raise LogForked(
            f"The database holds {size} log entries, but a checkpoint of {old.size} was "
            "published: it was restored from before that checkpoint or rewritten. Serving it "
            "would show players a forked log; restore a backup taken after it."
        )
    if Checkpoint.objects.filter(size=old.size, root=old.root).exists():
        return
    try:
        root = root_at(old.size)
    except tlog.LogError:
        root = b""
    if root != old.root:
        raise LogForked(
            f"The database's first {old.size} log entries do not hash to the published "
            "checkpoint's root: they were rewritten. Serving them would show players a "
            "forked log."
        )


def why_not_served() -> str | None:
    """Why the stored log may not be served (a restore's check), or None."""
    size = LogState.objects.filter(pk=1).values_list("size", flat=True).first() or 0
    try:
        refuse_if_forked(size)
    except LogForked as exc:
        return str(exc)
    return None
