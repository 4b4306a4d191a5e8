"""Reads of the kept tree: node hashes fetched a level at a time, and the
pure core's proof builders run over them (games/tlog.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from commitlog.models import Node
from games import tlog

T = TypeVar("T")


def nodes_at(wanted: list[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
    """The kept hashes of these (level, index) nodes, one query a level."""
    found: dict[tuple[int, int], bytes] = {}
    levels: dict[int, list[int]] = {}
    for level, index in wanted:
        levels.setdefault(level, []).append(index)
    for level, indexes in levels.items():
        rows = Node.objects.filter(level=level, index__in=indexes).values_list("index", "hash")
        found.update({(level, i): bytes(h) for i, h in rows})
    return found


def peak_hashes(size: int) -> list[bytes]:
    wanted = tlog.peaks(size)
    found = nodes_at(wanted)
    return [found[p] for p in wanted]


def from_kept_nodes(build: Callable[[tlog.NodeReader], T]) -> T:
    """Run ``build`` over the kept nodes: once to learn which it reads, then
    on those, fetched together (a proof reads O(log² n) nodes)."""
    wanted: list[tuple[int, int]] = []

    def note(level: int, index: int) -> bytes:
        wanted.append((level, index))
        return bytes(tlog.HASH_SIZE)

    build(note)
    found = nodes_at(wanted)

    def kept(level: int, index: int) -> bytes:
        try:
            return found[level, index]
        except KeyError:
            raise tlog.LogError(f"The log has no node {level}/{index}.") from None

    return build(kept)


def root_at(size: int) -> bytes:
    return (
        from_kept_nodes(lambda node: tlog.subtree_hash(node, 0, size)) if size else tlog.EMPTY_ROOT
    )
