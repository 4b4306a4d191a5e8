"""What the log's public endpoints answer, read from the kept tree (never
rebuilt) and checked against the newest checkpoint: an index or size past
it is refused with ``tlog.LogError``."""

from __future__ import annotations

from dataclasses import dataclass

from commitlog import published
from commitlog.keys import log_key, witness_keys
from commitlog.models import Checkpoint, Cosignature, Leaf, Node
from commitlog.tree import from_kept_nodes
from games import tlog


def newest(*, witnessed: bool = False) -> Checkpoint | None:
    checkpoints = Checkpoint.objects.order_by("-size")
    if witnessed:
        checkpoints = checkpoints.filter(cosignatures__isnull=False).distinct()
    return checkpoints.first()


def newest_size() -> int:
    checkpoint = Checkpoint.objects.order_by("-size").values_list("size", flat=True).first()
    return checkpoint or 0


def checkpoint_note(*, witnessed: bool = False) -> str:
    """The newest checkpoint's signed note with the witnesses' lines;
    ``published.LogForked`` when the stored tree may not be served."""
    checkpoint = newest(witnessed=witnessed)
    if checkpoint is None:
        raise tlog.LogError(
            "The log has no checkpoint yet."
            if not witnessed
            else "No witness has cosigned a checkpoint yet."
        )
    published.refuse_if_forked(newest_size())
    lines = Cosignature.objects.filter(checkpoint=checkpoint).order_by("witness")
    return checkpoint.note + "".join(c.line for c in lines)


def key_lines() -> str:
    """The log's verifier key, then each witness's, one a line."""
    return "".join(f"{key.text()}\n" for key in [log_key(), *witness_keys()])


def published_keys() -> dict[str, object]:
    """The keys the fair page lists: the log's verifier key and each witness's."""
    return {
        "log_key": log_key().text(),
        "log_witness_keys": [key.text() for key in witness_keys()],
    }


def _in_tree(index: int, size: int) -> None:
    if not 0 <= index < size:
        raise tlog.LogError(f"Entry {index} is not in the log's tree of {size} entries.")


def leaf(index: int) -> bytes:
    _in_tree(index, newest_size())
    return bytes(Leaf.objects.values_list("data", flat=True).get(leaf_index=index))


def _size(size: int) -> None:
    latest = newest_size()
    if not 0 < size <= latest:
        raise tlog.LogError(f"The log's newest checkpoint holds {latest} entries, not {size}.")


def inclusion(index: int, size: int) -> list[bytes]:
    _size(size)
    _in_tree(index, size)
    return from_kept_nodes(lambda node: tlog.inclusion_proof(index, size, node))


def consistency(old_size: int, new_size: int) -> list[bytes]:
    _size(new_size)
    if not 0 < old_size <= new_size:
        raise tlog.LogError(f"A consistency proof runs from 1 to {new_size} entries.")
    return from_kept_nodes(lambda node: tlog.consistency_proof(old_size, new_size, node))


@dataclass(frozen=True)
class Tile:
    data: bytes
    full: bool


def _tile_range(level: int, index: int, width: int) -> tuple[int, int]:
    """The first node (or leaf) index of the tile and how many, once checked
    against the newest checkpoint."""
    if not 1 <= width <= tlog.TILE_WIDTH:
        raise tlog.LogError("A partial tile is 1 to 255 entries wide.")
    there = newest_size() >> (tlog.TILE_HEIGHT * level)
    start = index * tlog.TILE_WIDTH
    if start + width > there:
        raise tlog.LogError("That tile is past the log's newest checkpoint.")
    return start, width


def hash_tile(level: int, index: int, width: int) -> Tile:
    if not 0 <= level <= 63:
        raise tlog.LogError("A tile's level is 0 to 63.")
    start, width = _tile_range(level, index, width)
    rows = Node.objects.filter(
        level=tlog.TILE_HEIGHT * level, index__gte=start, index__lt=start + width
    ).order_by("index")
    hashes = [bytes(h) for h in rows.values_list("hash", flat=True)]
    return Tile(b"".join(hashes), width == tlog.TILE_WIDTH)


def entry_bundle(index: int, width: int) -> Tile:
    start, width = _tile_range(0, index, width)
    rows = Leaf.objects.filter(leaf_index__gte=start, leaf_index__lt=start + width)
    leaves = [bytes(d) for d in rows.order_by("leaf_index").values_list("data", flat=True)]
    return Tile(tlog.entry_bundle(leaves), width == tlog.TILE_WIDTH)


def round_entry(commitment: str) -> dict[str, object]:
    """The round page's ``log_index`` (None until integrated) and ``log_leaf_b64``
    of the leaf that logged a round's commitment (both None if it has none)."""
    found = Leaf.objects.filter(commitment=commitment).values_list("leaf_index", "data").first()
    if found is None:
        return {"log_index": None, "log_leaf_b64": None}
    index, data = found
    return {"log_index": index, "log_leaf_b64": tlog.b64(bytes(data))}
