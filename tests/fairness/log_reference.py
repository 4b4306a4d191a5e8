"""An independent verifier of the commitment log, written from the public
texts alone and not from the site's code: RFC 9162 §2.1 (the Merkle tree,
inclusion and consistency proofs), C2SP signed-note (the note and its
signature lines, key ids, verifier keys), C2SP tlog-checkpoint (the note's
body) and C2SP tlog-cosignature (the witnesses' timestamped Ed25519 lines),
with Ed25519 from the ``cryptography`` package.

It judges every case of tests/fairness/log_cases.json (test_log_cases.py)
and it checks a running site from its public endpoints::

    python -m tests.fairness.log_reference http://127.0.0.1:8000 [--keep FILE]

which prints PASS or FAIL per check and exits 1 on any FAIL. ``--keep``
names a file holding the newest checkpoint this verifier accepted: the next
run checks that the site's tree still extends it (a fork or a rewrite
fails), then keeps the newer one.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ED25519 = 0x01  # signed-note signature type of a log's Ed25519 key
COSIGNATURE_V1 = 0x04  # tlog-cosignature's timestamped Ed25519 type
EMPTY_ROOT = hashlib.sha256(b"").digest()
LEAF_LINES = ("casino-commitment/1", "commitment", "nonce", "game", "table", "player")


class Refused(ValueError):
    """A note, key, leaf or proof this verifier does not accept, and why."""


# --- RFC 9162 §2.1.1: the Merkle tree hash ------------------------------------


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def tree_hash(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH(D[n]): k is the largest power of two smaller than n."""
    n = len(leaf_hashes)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaf_hashes[0]
    k = 1 << ((n - 1).bit_length() - 1)
    return node_hash(tree_hash(leaf_hashes[:k]), tree_hash(leaf_hashes[k:]))


# --- RFC 9162 §2.1.3.2: verifying an inclusion proof ---------------------------


def verify_inclusion(
    hash_: bytes, index: int, size: int, path: Sequence[bytes], root: bytes
) -> None:
    if not 0 <= index < size:
        raise Refused(f"leaf {index} is not in a tree of {size} leaves")
    fn, sn, r = index, size - 1, hash_
    for p in path:
        if sn == 0:
            raise Refused("the inclusion proof has more hashes than the tree has levels")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn and not fn & 1:  # fn == sn, a left child: climb to where it is not
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise Refused("the inclusion proof is too short for the tree")
    if r != root:
        raise Refused(f"the inclusion proof of leaf {index} does not lead to the signed root")


# --- RFC 9162 §2.1.4.2: verifying a consistency proof --------------------------


def verify_consistency(
    first: int, second: int, first_hash: bytes, second_hash: bytes, path: Sequence[bytes]
) -> None:
    if first > second:
        raise Refused(f"a tree of {second} leaves cannot extend one of {first}")
    if first == second:  # PROOF(m, D[m]) is empty: the two trees are one
        if path:
            raise Refused("two trees of one size need an empty consistency proof")
        if first_hash != second_hash:
            raise Refused(f"two different trees of {first} leaves: the log forked")
        return
    if first == 0:  # every tree extends the empty one
        if path:
            raise Refused("a proof from the empty tree must be empty")
        if first_hash != EMPTY_ROOT:
            raise Refused("an empty tree with a root other than SHA-256 of nothing")
        return
    if not path:
        raise Refused("the consistency proof is empty")
    path = list(path)
    if first & (first - 1) == 0:  # first is an exact power of two
        path.insert(0, first_hash)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise Refused("the consistency proof has more hashes than the trees need")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise Refused("the consistency proof is too short for the trees")
    if fr != first_hash:
        raise Refused(f"the older tree of {first} leaves is not the start of the newer one")
    if sr != second_hash:
        raise Refused(f"the consistency proof does not lead to the newer root of {second} leaves")


# --- C2SP signed-note: keys and notes -------------------------------------------


def b64(text: str, what: str) -> bytes:
    """Standard base64 (RFC 4648 §4), strictly: no spaces, no other alphabet."""
    if not re.fullmatch(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", text):
        raise Refused(f"{what} is not base64")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise Refused(f"{what} is not base64") from exc


def hash32(text: str, what: str) -> bytes:
    value = b64(text, what)
    if len(value) != 32:
        raise Refused(f"{what} is {len(value)} bytes, not a 32-byte SHA-256 hash")
    return value


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


@dataclass(frozen=True)
class Key:
    name: str
    kind: int  # ED25519 (a log) or COSIGNATURE_V1 (a witness)
    id: bytes
    public: bytes


def parse_key(text: str) -> Key:
    """A verifier key: ``<name>+<8 hex key id>+<base64(type || public key)>``."""
    parts = text.strip().split("+", 2)
    if len(parts) != 3:
        raise Refused("a verifier key is name+id+key")
    name, hex_id, material = parts
    if not name or re.search(r"\s", name):
        raise Refused("a verifier key's name is empty or holds a space")
    if not re.fullmatch(r"[0-9a-f]{8}", hex_id):
        raise Refused("a verifier key's id is not 8 hexadecimal digits")
    raw = b64(material, "the verifier key")
    if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
        raise Refused("the verifier key is not an Ed25519 key")
    kind, public = raw[0], raw[1:]
    if key_id(name, kind, public) != bytes.fromhex(hex_id):
        raise Refused("the verifier key's id is not the hash of its name and key")
    return Key(name, kind, bytes.fromhex(hex_id), public)


def ed25519_ok(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def split_note(note: str) -> tuple[str, list[tuple[str, bytes]]]:
    """The note's text (with its final newline) and its signature lines as
    (key name, base64-decoded key id || signature)."""
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        raise Refused("the note holds a control character")
    if not note.endswith("\n"):
        raise Refused("the note does not end in a newline")
    cut = note.rfind("\n\n")
    if cut < 0:
        raise Refused("the note has no blank line before its signatures")
    text, lines = note[: cut + 1], note[cut + 2 :].split("\n")[:-1]
    if not lines:
        raise Refused("the note has no signature")
    signatures = []
    for line in lines:
        found = re.fullmatch(r"\u2014 (\S+) (\S+)", line)
        if not found:
            raise Refused("a signature line is not '— name base64'")
        raw = b64(found[2], "a signature")
        if len(raw) < 5:
            raise Refused("a signature is shorter than its key id")
        signatures.append((found[1], raw))
    return text, signatures


def open_note(note: str, log_key: Key, witnesses: Sequence[Key] = ()) -> tuple[str, list[str]]:
    """The text of a note the log's key signed, and the names of the known
    witnesses whose cosignature verifies. Signatures of unknown keys are
    ignored; a known key's signature that fails refuses the whole note."""
    text, signatures = split_note(note)
    signed, cosigned = False, []
    for name, raw in signatures:
        kid, signature = raw[:4], raw[4:]
        if name == log_key.name and kid == log_key.id:
            if len(signature) != 64 or not ed25519_ok(log_key.public, signature, text.encode()):
                raise Refused("the log's signature on the checkpoint does not verify")
            signed = True
        for witness in witnesses:
            if name == witness.name and kid == witness.id:
                if len(signature) != 72:
                    raise Refused(f"the cosignature of {name} is not a timestamp and a signature")
                when = int.from_bytes(signature[:8], "big")
                message = f"cosignature/v1\ntime {when}\n{text}".encode()
                if not ed25519_ok(witness.public, signature[8:], message):
                    raise Refused(f"the cosignature of witness {name} does not verify")
                cosigned.append(name)
    if not signed:
        raise Refused("no signature of the log's key on the checkpoint")
    return text, cosigned


# --- C2SP tlog-checkpoint ---------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    cosigned_by: tuple[str, ...] = ()


def open_checkpoint(note: str, log_key: Key, witnesses: Sequence[Key] = ()) -> Checkpoint:
    text, cosigned = open_note(note, log_key, witnesses)
    lines = text.split("\n")[:-1]
    if len(lines) < 3 or not all(lines):
        raise Refused("a checkpoint is an origin, a size and a root, each on a line")
    origin, size, root = lines[:3]
    if origin != log_key.name:
        raise Refused(f"the checkpoint is of the log {origin!r}, not {log_key.name!r}")
    if not re.fullmatch(r"0|[1-9][0-9]*", size):
        raise Refused("the checkpoint's tree size is not a decimal number")
    return Checkpoint(origin, int(size), hash32(root, "the checkpoint's root"), tuple(cosigned))


# --- the leaf (docs/fairness.md) ------------------------------------------------------


def parse_leaf(leaf: bytes) -> dict[str, str]:
    """The six lines of a leaf (version 1), by field name."""
    try:
        lines = leaf.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise Refused("the leaf is not UTF-8") from exc
    if len(lines) != 7 or lines[-1] != "" or lines[0] != LEAF_LINES[0]:
        raise Refused("the leaf is not six lines of casino-commitment/1")
    fields = {}
    for line, name in zip(lines[1:6], LEAF_LINES[1:], strict=True):
        label, _, value = line.partition(" ")
        if label != name or not value:
            raise Refused(f"the leaf's line {name!r} is missing")
        fields[name] = value
    patterns = {"commitment": "[0-9a-f]{64}", "nonce": "0|[1-9][0-9]*", "player": "[0-9a-f]{32}"}
    for name, pattern in patterns.items():
        if not re.fullmatch(pattern, fields[name]):
            raise Refused(f"the leaf's {name} is not written as the log writes it")
    if fields["game"] not in ("baccarat", "war", "-"):
        raise Refused("the leaf names no game of the casino")
    return fields


# --- a case of log_cases.json ----------------------------------------------------------


def check_case(case: dict[str, Any]) -> Checkpoint:
    """Accept the case (its checkpoint) or raise Refused with the reason."""
    key = parse_key(case["key"])
    checkpoint = open_checkpoint(case["note"], key)
    if case["size"] != checkpoint.size:
        raise Refused("the inclusion proof is for another tree size than the checkpoint's")
    leaf = b64(case["leaf_b64"], "the leaf")
    parse_leaf(leaf)
    path = [hash32(h, "an inclusion proof hash") for h in case["inclusion"]]
    verify_inclusion(leaf_hash(leaf), case["index"], checkpoint.size, path, checkpoint.root)
    if case["old_note"] is not None:
        old = open_checkpoint(case["old_note"], key)
        proof = [hash32(h, "a consistency proof hash") for h in case["consistency"]]
        verify_consistency(old.size, checkpoint.size, old.root, checkpoint.root, proof)
    return checkpoint


# --- a running site --------------------------------------------------------------------


def fetch(base: str, path: str) -> tuple[bytes, str]:
    """The body of ``path`` and its Cache-Control header."""
    url = base.rstrip("/") + path
    if not url.startswith(("http://", "https://")):
        raise Refused(f"{url} is not a web address")
    try:
        with urllib.request.urlopen(url, timeout=20) as response:  # noqa: S310 (checked above)
            return response.read(), response.headers.get("Cache-Control", "")
    except urllib.error.HTTPError as exc:
        raise Refused(f"{path} answered {exc.code}") from exc


def get(base: str, path: str) -> str:
    return fetch(base, path)[0].decode("utf-8")


def tile_path(level: int | str, n: int, width: int) -> str:
    """C2SP tlog-tiles: ``/tile/<L>/<N>[.p/<W>]``, N in 3-digit elements,
    all but the last starting with x (1234067 is x001/x234/067)."""
    digits = f"{n:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    parts = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    name = "/".join([*("x" + p for p in parts[:-1]), parts[-1]])
    return f"/log/tile/{level}/{name}" + ("" if width == 256 else f".p/{width}")


def entries_of(bundle: bytes) -> list[bytes]:
    """An entry bundle: big-endian uint16 length-prefixed entries."""
    entries, at = [], 0
    while at < len(bundle):
        if at + 2 > len(bundle):
            raise Refused("an entry bundle ends inside a length")
        length = int.from_bytes(bundle[at : at + 2], "big")
        entries.append(bundle[at + 2 : at + 2 + length])
        if len(entries[-1]) != length:
            raise Refused("an entry bundle ends inside an entry")
        at += 2 + length
    return entries


def get_json(base: str, path: str, field: str) -> Any:
    try:
        return json.loads(get(base, path))[field]
    except (ValueError, KeyError, TypeError) as exc:
        raise Refused(f"{path} did not answer JSON with {field!r}") from exc


def check_site(
    base: str, kept: str | None = None, sample: int = 64
) -> tuple[list[tuple[str, bool, str]], str | None]:
    """Every check against the site at ``base``: (name, passed, detail) each,
    and the checkpoint note to keep for the next run (None if it failed).
    ``kept`` is a checkpoint an earlier run accepted."""
    results: list[tuple[str, bool, str]] = []

    def run(name: str, check: Callable[[], str]) -> bool:
        try:
            results.append((name, True, check()))
        except (Refused, urllib.error.URLError, OSError) as exc:
            results.append((name, False, str(exc)))
            return False
        return True

    state: dict[str, Any] = {}

    def keys() -> str:
        lines = [line for line in get(base, "/log/key").splitlines() if line.strip()]
        if not lines:
            raise Refused("/log/key is empty")
        state["key"] = parse_key(lines[0])
        state["witnesses"] = [parse_key(line) for line in lines[1:]]
        if state["key"].kind != ED25519 or any(
            w.kind != COSIGNATURE_V1 for w in state["witnesses"]
        ):
            raise Refused("the log's key or a witness key has the wrong signature type")
        return f"{state['key'].name}, {len(state['witnesses'])} witness key(s)"

    def checkpoint() -> str:
        state["note"] = get(base, "/log/checkpoint")
        cp = open_checkpoint(state["note"], state["key"], state["witnesses"])
        state["checkpoint"] = cp
        witnesses = ", ".join(cp.cosigned_by) or "no witness"
        return f"size {cp.size}, cosigned by {witnesses}"

    def leaves() -> str:
        cp: Checkpoint = state["checkpoint"]
        upto = min(cp.size, sample)
        hashes = []
        for i in range(upto):
            leaf = b64(get_json(base, f"/log/leaf?index={i}", "leaf"), f"leaf {i}")
            parse_leaf(leaf)
            hashes.append(leaf_hash(leaf))
            path = [
                hash32(h, "an inclusion proof hash")
                for h in get_json(base, f"/log/proof/inclusion?index={i}&size={cp.size}", "proof")
            ]
            verify_inclusion(hashes[-1], i, cp.size, path, cp.root)
        state["prefix"] = hashes
        if upto == cp.size and tree_hash(hashes) != cp.root:
            raise Refused("the leaves do not hash to the checkpoint's root")
        return f"{upto} of {cp.size} leaves well formed and included"

    def consistency_from_leaves() -> str:
        cp: Checkpoint = state["checkpoint"]
        hashes = state["prefix"]
        for m in sorted({1, len(hashes) // 2, len(hashes)} - {0}):
            path = [
                hash32(h, "a consistency proof hash")
                for h in get_json(base, f"/log/proof/consistency?from={m}&to={cp.size}", "proof")
            ]
            verify_consistency(m, cp.size, tree_hash(hashes[:m]), cp.root, path)
        return "the first leaves' trees are prefixes of the signed tree"

    def consistency_with_kept() -> str:
        cp: Checkpoint = state["checkpoint"]
        old = open_checkpoint(kept or "", state["key"], state["witnesses"])
        path = [
            hash32(h, "a consistency proof hash")
            for h in get_json(base, f"/log/proof/consistency?from={old.size}&to={cp.size}", "proof")
        ]
        verify_consistency(old.size, cp.size, old.root, cp.root, path)
        return f"the kept tree of {old.size} leaves is a prefix of the tree of {cp.size}"

    def tiles() -> str:
        cp: Checkpoint = state["checkpoint"]
        width = min(cp.size, 256)
        raw, caching = fetch(base, tile_path(0, 0, width))
        hashes = [raw[i : i + 32] for i in range(0, len(raw), 32)]
        if len(raw) != 32 * width:
            raise Refused(f"the first hash tile holds {len(raw)} bytes, not {32 * width}")
        if width == 256 and "immutable" not in caching:
            raise Refused("a full tile is not served as immutable")
        bundle = entries_of(fetch(base, tile_path("entries", 0, width))[0])
        if [leaf_hash(e) for e in bundle] != hashes:
            raise Refused("the first entry bundle does not hash to the first tile")
        if hashes[: len(state["prefix"])] != state["prefix"]:
            raise Refused("the first tile's hashes are not those of the leaves served one by one")
        if cp.size <= 256 and tree_hash(hashes) != cp.root:
            raise Refused("the first tile does not hash to the checkpoint's root")
        if cp.size > 256:
            upper = fetch(base, tile_path(1, 0, min(cp.size // 256, 256)))[0]
            if upper[:32] != tree_hash(hashes):
                raise Refused("the level-1 tile does not hold the first tile's root")
        return f"the first tile and entry bundle ({width} leaves) agree with the leaves"

    def refusals() -> str:
        cp: Checkpoint = state["checkpoint"]
        for path in (f"/log/leaf?index={cp.size}", "/log/proof/inclusion?index=x&size=1"):
            try:
                get(base, path)
            except Refused:
                continue
            raise Refused(f"{path} was answered, not refused")
        return "past the newest checkpoint and junk are refused"

    ok = run("verifier keys", keys) and run("signed checkpoint", checkpoint)
    if ok:
        ok = run("leaves and inclusion proofs", leaves)
        ok = run("consistency proofs", consistency_from_leaves) and ok
        if kept:
            ok = run("consistency with the kept checkpoint", consistency_with_kept) and ok
        if state.get("prefix") is not None and state["checkpoint"].size:
            ok = run("tiles", tiles) and ok
        ok = run("bad requests refused", refusals) and ok
    return results, (state["note"] if ok else None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", help="the site, e.g. http://127.0.0.1:8000")
    parser.add_argument("--keep", type=Path, help="file of the newest accepted checkpoint")
    parser.add_argument("--cases", type=Path, help="judge a file of cases instead")
    args = parser.parse_args(argv)
    failed = False
    if args.cases:
        for case in json.loads(args.cases.read_text(encoding="utf-8")):
            try:
                check_case(case)
                verdict, why = "ok", ""
            except Refused as exc:
                verdict, why = "refuse", str(exc)
            good = verdict == case["expect"]
            failed |= not good
            print(f"{'PASS' if good else 'FAIL'} {case['name']}: {verdict} {why}".rstrip())
        return 1 if failed else 0
    if not args.base:
        parser.error("give the site's address or --cases")
    kept = args.keep.read_text(encoding="utf-8") if args.keep and args.keep.exists() else None
    results, newest = check_site(args.base, kept)
    for name, passed, detail in results:
        failed |= not passed
        print(f"{'PASS' if passed else 'FAIL'} {name}: {detail}")
    if args.keep and newest:
        args.keep.write_text(newest, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
