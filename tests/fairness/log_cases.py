"""The shared file of genuine and tampered log proofs (log_cases.json) that
every verifier of the commitment log runs: the independent reference
(log_reference.py), the round page's Python snippet and static/js/verify.js
under Node (test_log_cases.py, tests/js/log.test.mjs).

A case is a checkpoint as a signed note under the log's verifier key, a leaf
with its inclusion proof, and (unless ``old_note`` is null) an older
checkpoint with the consistency proof from it; ``expect`` is "ok" or
"refuse". Trees, proofs and signatures are built here from RFC 9162 §2.1's
recursive definitions (MTH, PATH, PROOF) and fixed Ed25519 seeds, so the file
is the same on every run (Ed25519 signatures are deterministic). Write it
again after a change here::

    .venv/bin/python -m tests.fairness.log_cases > tests/fairness/log_cases.json

A test checks that the file is exactly what this module builds.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.fairness.log_reference import (
    COSIGNATURE_V1,
    ED25519,
    key_id,
    leaf_hash,
    tree_hash,
)

ORIGIN = "casino.local/log"
LOG_SEED = bytes(range(32))  # fixed: the file must not change between runs
OTHER_SEED = bytes(range(32, 64))
WITNESS_SEED = bytes(range(64, 96))
WITNESS_NAME = "witness.casino.local/w1"
WITNESS_TIME = 1_764_892_800  # a fixed cosignature time: 2025-12-05 00:00 UTC


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def leaf(n: int, *, game: str = "baccarat", table: str = "classic") -> bytes:
    """The n-th leaf of the test tree, in the documented six lines."""
    commitment = hashlib.sha256(f"server seed {n}".encode()).hexdigest()
    player = hashlib.sha256(f"player {n % 3}".encode()).hexdigest()[:32]
    return (
        f"casino-commitment/1\ncommitment {commitment}\nnonce {n}\n"
        f"game {game}\ntable {table}\nplayer {player}\n"
    ).encode()


LEAVES = [leaf(n) for n in range(13)]
# Another history that shares no leaf with the first: a forked log.
FORKED = [leaf(n, game="war", table="war") for n in range(100, 113)]


def split(n: int) -> int:
    """k: the largest power of two smaller than n (RFC 9162 §2.1.1)."""
    return 1 << ((n - 1).bit_length() - 1)


def path(m: int, hashes: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]), RFC 9162 §2.1.3.1."""
    n = len(hashes)
    if n == 1:
        return []
    k = split(n)
    if m < k:
        return path(m, hashes[:k]) + [tree_hash(hashes[k:])]
    return path(m - k, hashes[k:]) + [tree_hash(hashes[:k])]


def subproof(m: int, hashes: Sequence[bytes], whole: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b), RFC 9162 §2.1.4.1."""
    n = len(hashes)
    if m == n:
        return [] if whole else [tree_hash(hashes)]
    k = split(n)
    if m <= k:
        return subproof(m, hashes[:k], whole) + [tree_hash(hashes[k:])]
    return subproof(m - k, hashes[k:], False) + [tree_hash(hashes[:k])]


def proof(m: int, hashes: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]); empty from the empty tree."""
    return subproof(m, hashes, True) if m else []


class Signer:
    def __init__(self, name: str, seed: bytes, kind: int = ED25519) -> None:
        self.name, self.kind = name, kind
        self.private = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self.private.public_key().public_bytes_raw()
        self.id = key_id(name, kind, self.public)

    def vkey(self) -> str:
        return f"{self.name}+{self.id.hex()}+{b64(bytes([self.kind]) + self.public)}"

    def line(self, text: str) -> str:
        if self.kind == COSIGNATURE_V1:
            stamp = WITNESS_TIME.to_bytes(8, "big")
            message = f"cosignature/v1\ntime {WITNESS_TIME}\n{text}".encode()
            return f"— {self.name} {b64(self.id + stamp + self.private.sign(message))}\n"
        return f"— {self.name} {b64(self.id + self.private.sign(text.encode()))}\n"


LOG = Signer(ORIGIN, LOG_SEED)
WITNESS = Signer(WITNESS_NAME, WITNESS_SEED, COSIGNATURE_V1)


def body(size: int, root: bytes, origin: str = ORIGIN) -> str:
    return f"{origin}\n{size}\n{b64(root)}\n"


def note(size: int, leaves: Sequence[bytes] = LEAVES, *signers: Signer) -> str:
    text = body(size, tree_hash([leaf_hash(x) for x in leaves[:size]]))
    return text + "\n" + "".join(s.line(text) for s in signers or (LOG,))


def case(
    name: str, expect: str, at: int, size: int, old: int | None = None, **over: Any
) -> dict[str, Any]:
    """Leaf ``at`` of a tree of ``size`` with its genuine proofs (from a kept
    tree of ``old`` leaves), then the fields ``over`` tampers with."""
    hashes = [leaf_hash(x) for x in LEAVES]
    found = {
        "name": name,
        "key": LOG.vkey(),
        "note": note(size),
        "leaf_b64": b64(LEAVES[at]),
        "index": at,
        "size": size,
        "inclusion": [b64(h) for h in path(at, hashes[:size])],
        "old_note": None if old is None else note(old),
        "consistency": [] if old is None else [b64(h) for h in proof(old, hashes[:size])],
        "expect": expect,
    }
    return {**found, **over}


def flip(text: str) -> str:
    """The base64 text of the same bytes with the last one changed."""
    raw = bytearray(base64.b64decode(text))
    raw[-1] ^= 0x01
    return b64(bytes(raw))


def build() -> list[dict[str, Any]]:
    hashes = [leaf_hash(x) for x in LEAVES]
    good = case("leaf 4 of 13, consistent with a kept tree of 8", "ok", 4, 13, 8)
    signed = note(13)
    text, signature_line = signed.split("\n\n")
    name, sig = signature_line.rstrip("\n").rsplit(" ", 1)
    lying_root = hashlib.sha256(b"not the tree").digest()
    other = Signer(ORIGIN, OTHER_SEED)
    impostor = Signer(ORIGIN, OTHER_SEED)
    impostor.id = LOG.id  # another key that claims the log's key id
    forked_13 = note(13, FORKED)
    forked_8 = note(8, FORKED)
    return [
        good,
        case("leaf 0 of 13, no kept tree", "ok", 0, 13),
        case("the last leaf of 13, consistent with a kept tree of 6", "ok", 12, 13, 6),
        case("leaf 7 of 8, consistent with a kept tree of 1", "ok", 7, 8, 1),
        case("a tree of one leaf", "ok", 0, 1),
        case("the kept checkpoint is the same one", "ok", 9, 13, 13),
        case(
            "a witness cosignature beside the log's signature",
            "ok",
            4,
            13,
            8,
            note=note(13, LEAVES, LOG, WITNESS),
        ),
        case(
            "an unknown key's signature beside the log's",
            "ok",
            4,
            13,
            note=note(13, LEAVES, LOG, Signer("someone.else/log", OTHER_SEED)),
        ),
        # --- tampered: the checkpoint ---
        case(
            "wrong root: the log signs a root that is not its tree's",
            "refuse",
            4,
            13,
            note=body(13, lying_root) + "\n" + LOG.line(body(13, lying_root)),
        ),
        case(
            "wrong signature: the root changed after signing",
            "refuse",
            4,
            13,
            note=body(13, lying_root) + "\n" + signature_line,
        ),
        case(
            "wrong signature: its last byte changed",
            "refuse",
            4,
            13,
            note=f"{text}\n\n{name} {flip(sig)}\n",
        ),
        case(
            "signed by another key of the same name",
            "refuse",
            4,
            13,
            note=note(13, LEAVES, other),
        ),
        case(
            "signed by another key that claims the log's key id",
            "refuse",
            4,
            13,
            note=note(13, LEAVES, impostor),
        ),
        case("no signature at all", "refuse", 4, 13, note=body(13, tree_hash(hashes)) + "\n"),
        case(
            "wrong origin: the log's key signs another log's checkpoint",
            "refuse",
            4,
            13,
            note=(lambda t: t + "\n" + LOG.line(t))(body(13, tree_hash(hashes), "other.log/x")),
        ),
        case(
            "the proof is for another tree size than the checkpoint's",
            "refuse",
            4,
            12,
            note=note(13),
        ),
        # --- tampered: the leaf and its inclusion proof ---
        case("a proof for another leaf", "refuse", 4, 13, leaf_b64=b64(LEAVES[5])),
        case("the right leaf at a wrong index", "refuse", 4, 13, index=5),
        case(
            "an inclusion proof missing its last hash",
            "refuse",
            4,
            13,
            inclusion=good["inclusion"][:-1],
        ),
        case(
            "an inclusion proof with an extra hash",
            "refuse",
            4,
            13,
            inclusion=[*good["inclusion"], b64(hashes[0])],
        ),
        case(
            "an inclusion proof hash cut to 31 bytes",
            "refuse",
            4,
            13,
            inclusion=[b64(base64.b64decode(good["inclusion"][0])[:31]), *good["inclusion"][1:]],
        ),
        case(
            "an inclusion proof hash that is not base64",
            "refuse",
            4,
            13,
            inclusion=["not base64!", *good["inclusion"][1:]],
        ),
        case("a leaf that is not base64", "refuse", 4, 13, leaf_b64="casino-commitment/1 ..."),
        case(
            "a signature that is not base64",
            "refuse",
            4,
            13,
            note=f"{text}\n\n{name} {sig[:-4]}%%%%\n",
        ),
        # --- tampered: consistency with the kept checkpoint ---
        case(
            "a fork: the kept tree of 13 has another root",
            "refuse",
            4,
            13,
            13,
            old_note=forked_13,
        ),
        case(
            "a fork: the kept tree of 8 is not the start of this one",
            "refuse",
            4,
            13,
            8,
            old_note=forked_8,
        ),
        case(
            "a smaller tree shown as the newer one",
            "refuse",
            4,
            8,
            old_note=note(13),
            consistency=[b64(h) for h in proof(8, hashes[:13])],
        ),
        case(
            "a consistency proof missing its last hash",
            "refuse",
            4,
            13,
            6,
            consistency=proof_b64(6, hashes)[:-1],
        ),
        case(
            "a consistency proof with an extra hash",
            "refuse",
            4,
            13,
            8,
            consistency=[*good["consistency"], b64(hashes[0])],
        ),
        case(
            "a consistency proof with a changed hash",
            "refuse",
            4,
            13,
            6,
            consistency=[flip(h) for h in proof_b64(6, hashes)],
        ),
        case(
            "the kept checkpoint signed by another key",
            "refuse",
            4,
            13,
            8,
            old_note=note(8, LEAVES, other),
        ),
    ]


def proof_b64(m: int, hashes: Sequence[bytes]) -> list[str]:
    return [b64(h) for h in proof(m, hashes)]


if __name__ == "__main__":
    print(json.dumps(build(), indent=1, ensure_ascii=False))
