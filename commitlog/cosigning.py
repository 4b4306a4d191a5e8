"""A witness's cosignature is kept only when it verifies under a registered
witness key, over the body of a checkpoint this log signed."""

from __future__ import annotations

from commitlog.keys import witness_keys
from commitlog.models import Checkpoint, Cosignature
from games import tlog


def store_cosignatures(note_text: str) -> int:
    """Keep each registered witness's valid cosignature in ``note_text`` (a
    checkpoint note with witness lines); how many were new."""
    note = tlog.parse_note(note_text)
    cp = tlog.parse_checkpoint_body(note.body)
    checkpoint = Checkpoint.objects.filter(size=cp.size).first()
    if checkpoint is None or checkpoint.note.partition("\n\n")[0] + "\n" != note.body:
        raise tlog.LogError("That is not a checkpoint this log signed.")
    keys = {(k.name, k.key_id): k for k in witness_keys()}
    stored = 0
    for sig in note.signatures:
        key = keys.get((sig.name, sig.key_id))
        if key is None:
            continue
        signed_at = tlog.verify_cosignature(note.body, sig, key)
        _row, made = Cosignature.objects.get_or_create(
            checkpoint=checkpoint,
            witness=key.name,
            defaults={"line": sig.line(), "signed_at": signed_at},
        )
        stored += made
    if not stored and not any((s.name, s.key_id) in keys for s in note.signatures):
        raise tlog.LogError("The note holds no cosignature by a registered witness.")
    return stored
