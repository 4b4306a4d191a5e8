"""Checks the stored log against itself and against what was published:
every leaf's bytes hash to its kept leaf hash, the indexes have no gap,
every kept node is the hash of its children, every checkpoint's root and
signature hold, and the tree extends the checkpoint published last."""

from __future__ import annotations

from collections.abc import Iterator

from commitlog import published
from commitlog.keys import log_key
from commitlog.models import Checkpoint, Leaf, LogState, Node
from games import tlog

CHUNK = 2000


def problems() -> Iterator[str]:
    """Each thing wrong, in words; nothing when the log is whole."""
    size = LogState.objects.filter(pk=1).values_list("size", flat=True).first() or 0
    roots = {cp.size: cp for cp in Checkpoint.objects.order_by("size")}
    kept = {
        (level, index): bytes(h)
        for level, index, h in Node.objects.values_list("level", "index", "hash").iterator(CHUNK)
    }
    leaves = Leaf.objects.filter(leaf_index__isnull=False).order_by("leaf_index")
    grown, peaks = 0, list[bytes]()
    for index, data in leaves.values_list("leaf_index", "data").iterator(CHUNK):
        if index != grown:
            yield f"Leaf {grown} is missing: the indexes have a gap."
            return
        if tlog.leaf_hash(bytes(data)) != kept.get((0, index)):
            yield f"Leaf {index} was rewritten: its bytes no longer hash to the kept leaf hash."
        nodes, peaks = tlog.append_leaves(grown, peaks, [kept.get((0, index), b"")])
        for level, i, h in nodes[1:]:
            if kept.get((level, i)) != h:
                yield f"Node {level}/{i} is not the hash of its two children."
        grown += 1
        if grown in roots and tlog.root_from_peaks(peaks) != bytes(roots[grown].root):
            yield f"The kept tree does not hash to the root of the checkpoint of {grown}."
    if grown != size:
        yield f"The log should hold {size} placed leaves; it holds {grown}."
    key = log_key()
    for checkpoint in roots.values():
        try:
            opened = tlog.open_checkpoint(checkpoint.note, key)
        except tlog.LogError as exc:
            yield f"The checkpoint of {checkpoint.size}: {exc}"
            continue
        if (opened.size, opened.root) != (checkpoint.size, bytes(checkpoint.root)):
            yield f"The checkpoint of {checkpoint.size} does not say what its row says."
    try:
        published.refuse_if_forked(size)
    except published.LogForked as exc:
        yield str(exc)
