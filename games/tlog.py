"""The commitment log's Merkle tree, proofs and signed checkpoints, pure.

Everything here follows public specifications a player can check against,
and imports no Django, so the site, the witness (``manage.py witness``) and
anyone's own script share one reading of them:

- the tree, its hashes and its proofs: RFC 9162 section 2.1 (leaf hash
  ``SHA-256(0x00 || leaf)``, node hash ``SHA-256(0x01 || left || right)``,
  inclusion proofs 2.1.3, consistency proofs 2.1.4);
- checkpoints: C2SP tlog-checkpoint (origin, size, base64 root) as a C2SP
  signed-note, signed with Ed25519;
- witness cosignatures: C2SP tlog-cosignature, ``cosignature/v1``.

The site keeps the hash of every *complete* subtree (a node at ``level``
and ``index`` covers leaves ``index * 2**level`` up to the next such node):
``inclusion_proof`` and ``consistency_proof`` read only those through the
``node`` function they are given, so a proof never rebuilds the tree.

Every refusal raises ``LogError`` with a message in plain words.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
ALG_ED25519 = 0x01
ALG_COSIGNATURE_V1 = 0x04
SIGNATURE_DASH = "\u2014 "  # "— ": every signature line of a signed note starts so
MAX_SIGNATURES = 100  # C2SP signed-note: a verifier may refuse notes with more
TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT

# A stored node: (level, index) -> the hash of that complete subtree.
NodeReader = Callable[[int, int], bytes]


class LogError(ValueError):
    """A proof, checkpoint, key or note that does not hold; the message says why."""


# ------------------------------------------------------------------ hashes


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n >= 2): RFC 9162's k."""
    return 1 << ((n - 1).bit_length() - 1)


def root_from_leaf_hashes(hashes: Sequence[bytes]) -> bytes:
    """The Merkle tree hash of these leaf hashes, straight from the definition."""
    if not hashes:
        return EMPTY_ROOT
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return node_hash(root_from_leaf_hashes(hashes[:k]), root_from_leaf_hashes(hashes[k:]))


def subtree_hash(node: NodeReader, start: int, end: int) -> bytes:
    """MTH(D[start:end]) for a range RFC 9162's proofs use: complete
    subtrees are read, the ragged right edge is hashed from them."""
    size = end - start
    if size & (size - 1) == 0 and start % size == 0:
        level = size.bit_length() - 1
        return node(level, start >> level)
    k = _split(size)
    return node_hash(subtree_hash(node, start, start + k), subtree_hash(node, start + k, end))


def peaks(size: int) -> list[tuple[int, int]]:
    """The complete subtrees (level, index) a tree of ``size`` leaves is made of, left to right."""
    out = []
    start = 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            out.append((level, start >> level))
            start += 1 << level
    return out


def root_from_peaks(hashes: Sequence[bytes]) -> bytes:
    """The root from the hashes of ``peaks(size)``, in the same order."""
    if not hashes:
        return EMPTY_ROOT
    root = hashes[-1]
    for left in reversed(hashes[:-1]):
        root = node_hash(left, root)
    return root


def append_leaves(
    size: int, peak_hashes: Sequence[bytes], leaf_hashes: Iterable[bytes]
) -> tuple[list[tuple[int, int, bytes]], list[bytes]]:
    """Grow a tree of ``size`` leaves, known by its ``peak_hashes``.

    Returns the new complete nodes (level, index, hash) to keep, leaves
    first, and the new tree's peak hashes."""
    stack = [(level, h) for (level, _index), h in zip(peaks(size), peak_hashes, strict=True)]
    nodes: list[tuple[int, int, bytes]] = []
    for h in leaf_hashes:
        index, level = size, 0
        nodes.append((0, index, h))
        while stack and stack[-1][0] == level:
            _level, left = stack.pop()
            h = node_hash(left, h)
            level += 1
            index >>= 1
            nodes.append((level, index, h))
        stack.append((level, h))
        size += 1
    return nodes, [h for _level, h in stack]


# ------------------------------------------------------------------ proofs


def _check_range(index: int, size: int, what: str) -> None:
    if not 0 <= index < size:
        raise LogError(f"{what} {index} is not in a tree of {size} entries.")


def inclusion_proof(index: int, size: int, node: NodeReader) -> list[bytes]:
    """RFC 9162 2.1.3.1: the audit path of leaf ``index`` in the tree of ``size``."""
    _check_range(index, size, "Entry")
    path: list[bytes] = []
    lo, hi, m = 0, size, index
    while hi - lo > 1:
        k = _split(hi - lo)
        if m < k:
            path.append(subtree_hash(node, lo + k, hi))
            hi = lo + k
        else:
            path.append(subtree_hash(node, lo, lo + k))
            lo, m = lo + k, m - k
    return path[::-1]


def consistency_proof(old_size: int, new_size: int, node: NodeReader) -> list[bytes]:
    """RFC 9162 2.1.4.1: the proof that the tree of ``new_size`` extends the one of ``old_size``."""
    if not 0 <= old_size <= new_size:
        raise LogError(f"A tree of {new_size} entries cannot extend one of {old_size}.")
    if old_size in (0, new_size):
        return []
    path: list[bytes] = []
    lo, hi, m, whole = 0, new_size, old_size, True
    while m != hi - lo:
        k = _split(hi - lo)
        if m <= k:
            path.append(subtree_hash(node, lo + k, hi))
            hi = lo + k
        else:
            path.append(subtree_hash(node, lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        path.append(subtree_hash(node, lo, hi))
    return path[::-1]


def _check_hashes(proof: Sequence[bytes]) -> None:
    for h in proof:
        if len(h) != HASH_SIZE:
            raise LogError("A proof hash is not 32 bytes long.")


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """RFC 9162 2.1.3.2: refuse unless ``proof`` puts ``leaf_hash`` at ``index`` under ``root``."""
    _check_range(index, size, "Entry")
    _check_hashes([leaf_hash, root, *proof])
    fn, sn, r = index, size - 1, leaf_hash
    for p in proof:
        if sn == 0:
            raise LogError("The inclusion proof is longer than the tree allows.")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise LogError("The inclusion proof is shorter than the tree needs.")
    if r != root:
        raise LogError(f"Entry {index} is not in this tree: its proof leads to another root.")


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """RFC 9162 2.1.4.2: refuse unless the tree of ``new_size`` extends the one of ``old_size``."""
    _check_hashes(proof)
    if old_size < 0 or new_size < old_size:
        raise LogError(
            f"A tree of {new_size} entries cannot extend one of {old_size}: the log went back."
        )
    if old_size == 0:
        # RFC 9162 proves consistency for 0 < old_size only: an empty tree proves nothing.
        raise LogError("There is no consistency to prove from an empty tree.")
    if old_size == new_size:
        if proof:
            raise LogError("Two trees of one size need no consistency proof.")
        if old_root != new_root:
            raise LogError(f"Two different trees of {old_size} entries: the log forked.")
        return
    _check_hashes([old_root, new_root])
    if not proof:
        raise LogError("The consistency proof is empty.")
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise LogError("The consistency proof is longer than the trees allow.")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise LogError("The consistency proof is shorter than the trees need.")
    if fr != old_root:
        raise LogError(
            f"The tree of {new_size} entries does not extend the one of {old_size}: "
            "the log forked or rewrote an entry."
        )
    if sr != new_root:
        raise LogError(f"The consistency proof does not lead to the root of {new_size} entries.")


# ------------------------------------------------------------------ keys


def b64decode(text: str, what: str = "value") -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise LogError(f"The {what} is not valid base64.") from None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" for c in name) or not name.isprintable():
        raise LogError("A key name is printable, without spaces or '+'.")


def key_id(name: str, alg: int, public: bytes) -> bytes:
    """C2SP signed-note: the first 4 bytes of SHA-256(name || "\\n" || alg || key)."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([alg]) + public).digest()[:4]


@dataclass(frozen=True)
class VerifierKey:
    """A signed-note verifier key: Ed25519 (0x01) for the log, cosignature/v1 (0x04) for a witness."""

    name: str
    key_id: bytes
    public: bytes  # the 32-byte Ed25519 public key
    alg: int = ALG_ED25519

    def text(self) -> str:
        return f"{self.name}+{self.key_id.hex()}+{b64(bytes([self.alg]) + self.public)}"

    def verify(self, signature: bytes, message: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


def verifier_key(name: str, public: bytes, alg: int = ALG_ED25519) -> VerifierKey:
    _check_name(name)
    return VerifierKey(name, key_id(name, alg, public), public, alg)


def parse_verifier_key(text: str) -> VerifierKey:
    """``<name>+<8 hex key id>+<base64(type || public key)>``: refused unless the id matches."""
    parts = text.strip().split("+", 2)  # base64 may hold "+"; a name may not
    if len(parts) != 3:
        raise LogError("A verifier key is <name>+<key id>+<key>.")
    name, id_hex, blob_b64 = parts
    _check_name(name)
    if len(id_hex) != 8:
        raise LogError("A verifier key's id is 8 hex digits.")
    try:
        kid = bytes.fromhex(id_hex)
    except ValueError:
        raise LogError("A verifier key's id is 8 hex digits.") from None
    blob = b64decode(blob_b64, "verifier key")
    if len(blob) != 33 or blob[0] not in (ALG_ED25519, ALG_COSIGNATURE_V1):
        raise LogError("The verifier key is not an Ed25519 key.")
    key = VerifierKey(name, kid, blob[1:], blob[0])
    if key_id(name, key.alg, key.public) != kid:
        raise LogError("The verifier key's id does not match its name and key.")
    return key


@dataclass(frozen=True)
class Signer:
    """An Ed25519 signing key with its note name (the log's, or a witness's)."""

    name: str
    private: Ed25519PrivateKey
    alg: int = ALG_ED25519

    @classmethod
    def from_seed(cls, name: str, seed: bytes, alg: int = ALG_ED25519) -> Signer:
        _check_name(name)
        return cls(name, Ed25519PrivateKey.from_private_bytes(seed), alg)

    @property
    def verifier(self) -> VerifierKey:
        public = self.private.public_key().public_bytes_raw()
        return verifier_key(self.name, public, self.alg)


# ------------------------------------------------------------------ notes and checkpoints


@dataclass(frozen=True)
class Signature:
    name: str
    key_id: bytes
    payload: bytes  # what follows the key id

    def line(self) -> str:
        return f"{SIGNATURE_DASH}{self.name} {b64(self.key_id + self.payload)}\n"


@dataclass(frozen=True)
class Note:
    body: str  # ends with "\n"
    signatures: tuple[Signature, ...]

    def text(self) -> str:
        return self.body + "\n" + "".join(s.line() for s in self.signatures)


def parse_note(text: str) -> Note:
    """Split a signed note into its body and its signature lines (none checked yet)."""
    if any(c != "\n" and (ord(c) < 0x20 or ord(c) == 0x7F) for c in text):
        raise LogError("A signed note holds no control characters but newlines.")
    body, sep, sigs = text.rpartition("\n\n")
    if not sep or not sigs.endswith("\n"):
        raise LogError("A signed note is a body, a blank line and signature lines.")
    signatures = []
    for line in sigs[:-1].split("\n"):
        if not line.startswith(SIGNATURE_DASH):
            raise LogError("A signature line starts with an em dash and a space.")
        name, space, payload_b64 = line[len(SIGNATURE_DASH) :].partition(" ")
        if not space or not name or " " in payload_b64:
            raise LogError("A signature line is the key name, a space and base64.")
        payload = b64decode(payload_b64, "signature")
        if len(payload) < 5:
            raise LogError("A signature is too short.")
        signatures.append(Signature(name, payload[:4], payload[4:]))
    if not signatures:
        raise LogError("The note has no signature.")
    if len(signatures) > MAX_SIGNATURES:
        raise LogError("The note has too many signatures.")
    return Note(body + "\n", tuple(signatures))


def sign_note(body: str, signer: Signer) -> str:
    """A signed note of ``body`` with one Ed25519 signature line."""
    if not body.endswith("\n"):
        raise LogError("A note's body ends with a newline.")
    key = signer.verifier
    sig = signer.private.sign(body.encode())
    return Note(body, (Signature(key.name, key.key_id, sig),)).text()


def open_note(text: str, key: VerifierKey) -> Note:
    """The note, once ``key``'s Ed25519 signature on it is checked."""
    if key.alg != ALG_ED25519:
        raise LogError("A note is opened with an Ed25519 key, not a cosignature key.")
    note = parse_note(text)
    mine = [s for s in note.signatures if s.name == key.name and s.key_id == key.key_id]
    if not mine:
        raise LogError(f"The note is not signed by {key.name}.")
    for sig in mine:
        if len(sig.payload) == 64 and key.verify(sig.payload, note.body.encode()):
            return note
    raise LogError(f"The note's signature by {key.name} does not verify.")


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{b64(self.root)}\n"


def parse_checkpoint_body(body: str) -> Checkpoint:
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise LogError("A checkpoint is an origin, a tree size and a root hash, one a line.")
    origin, size_text, root_b64 = lines[:3]
    if not origin:
        raise LogError("The checkpoint has no origin.")
    if not size_text.isascii() or not size_text.isdigit() or size_text != str(int(size_text)):
        raise LogError("The checkpoint's tree size is not a plain decimal number.")
    root = b64decode(root_b64, "checkpoint's root hash")
    if len(root) != HASH_SIZE:
        raise LogError("The checkpoint's root hash is not 32 bytes long.")
    return Checkpoint(origin, int(size_text), root)


def open_checkpoint(note: str, key: VerifierKey) -> Checkpoint:
    """The checkpoint in ``note``, once its signature by ``key`` is checked;
    its origin must be the key's name."""
    checkpoint = parse_checkpoint_body(open_note(note, key).body)
    if checkpoint.origin != key.name:
        raise LogError(f"The checkpoint is for {checkpoint.origin!r}, not {key.name!r}.")
    return checkpoint


def sign_checkpoint(checkpoint: Checkpoint, signer: Signer) -> str:
    return sign_note(checkpoint.body(), signer)


# ------------------------------------------------------------------ cosignatures


def cosigned_message(body: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + body.encode()


def cosign(body: str, signer: Signer, timestamp: int) -> Signature:
    """A witness's cosignature/v1 line over a checkpoint body."""
    if signer.alg != ALG_COSIGNATURE_V1:
        raise LogError("A cosignature is made with a cosignature key.")
    key = signer.verifier
    sig = signer.private.sign(cosigned_message(body, timestamp))
    return Signature(key.name, key.key_id, struct.pack(">Q", timestamp) + sig)


def verify_cosignature(body: str, signature: Signature, key: VerifierKey) -> int:
    """The cosignature's timestamp, once it is checked against ``key``."""
    if key.alg != ALG_COSIGNATURE_V1:
        raise LogError("The witness key is not a cosignature/v1 key.")
    if signature.name != key.name or signature.key_id != key.key_id:
        raise LogError(f"The cosignature is not by {key.name}.")
    if len(signature.payload) != 8 + 64:
        raise LogError("A cosignature is a timestamp and a 64-byte signature.")
    (timestamp,) = struct.unpack(">Q", signature.payload[:8])
    if timestamp >= 1 << 63 or not key.verify(
        signature.payload[8:], cosigned_message(body, timestamp)
    ):
        raise LogError(f"The cosignature by {key.name} does not verify.")
    return timestamp


# ------------------------------------------------------------------ tiles


def tile_path(level: int | str, index: int, width: int = TILE_WIDTH) -> str:
    """C2SP tlog-tiles: ``<L>/<N>[.p/<W>]`` with N in 3-digit ``x``-prefixed parts."""
    digits = f"{index:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    parts = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    path = "/".join([str(level), *("x" + p for p in parts[:-1]), parts[-1]])
    return path if width == TILE_WIDTH else f"{path}.p/{width}"


def parse_tile_index(parts: Sequence[str]) -> int:
    """The N of a tile path's ``x001/x234/067`` parts."""
    if not parts or len(parts) > 7:
        raise LogError("A tile index is one to seven 3-digit parts.")
    *heads, last = parts
    if any(len(p) != 4 or p[0] != "x" for p in heads) or len(last) != 3:
        raise LogError("A tile index is 3-digit parts, all but the last starting with x.")
    digits = "".join(p[1:] for p in heads) + last
    if not digits.isascii() or not digits.isdigit():
        raise LogError("A tile index is made of digits.")
    return int(digits)


def entry_bundle(leaves: Iterable[bytes]) -> bytes:
    """C2SP tlog-tiles: entries, each after its big-endian 16-bit length."""
    out = bytearray()
    for leaf in leaves:
        out += struct.pack(">H", len(leaf)) + leaf
    return bytes(out)
