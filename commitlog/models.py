"""The commitment log's tables: append-only, written by the round's
transaction (a pending leaf) and by the one integrator (everything else).

- ``Leaf``: a commitment's leaf bytes (docs/commitment-log.md); its
  ``leaf_index`` is empty until the integrator places it in the tree.
- ``Node``: the hash of every complete subtree, (level, index); proofs and
  tiles are read from these, never rebuilt.
- ``Checkpoint``: every signed checkpoint, its note as published.
- ``Cosignature``: a witness's cosignature line on a checkpoint.
- ``LogState``: one row, the tree's size; the integrator's lock.
"""

from __future__ import annotations

from django.db import models


class Leaf(models.Model):
    data = models.BinaryField()
    commitment = models.CharField(max_length=64, db_index=True)  # hex, as the table shows it
    leaf_index = models.BigIntegerField(null=True, unique=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(leaf_index__gte=0), name="leaf_index_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"leaf {self.leaf_index} ({self.commitment[:12]})"


class Node(models.Model):
    level = models.PositiveSmallIntegerField()
    index = models.BigIntegerField()
    hash = models.BinaryField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["level", "index"], name="node_once"),
        ]

    def __str__(self) -> str:
        return f"node {self.level}/{self.index}"


class Checkpoint(models.Model):
    size = models.BigIntegerField(unique=True)
    root = models.BinaryField(max_length=32)
    note = models.TextField()
    made_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"checkpoint {self.size}"


class Cosignature(models.Model):
    checkpoint = models.ForeignKey(
        Checkpoint, on_delete=models.CASCADE, related_name="cosignatures"
    )
    witness = models.CharField(max_length=200)  # the witness key's name
    line = models.TextField()  # the signature line, as the witness signed it
    signed_at = models.BigIntegerField()  # the cosignature's own timestamp

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["checkpoint", "witness"], name="cosign_once"),
        ]

    def __str__(self) -> str:
        return f"{self.witness} on {self.checkpoint_id}"


class LogState(models.Model):
    size = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"log of {self.size}"
