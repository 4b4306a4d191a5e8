"""A witness: cosigns the log's checkpoint only if it extends the last one
it cosigned (C2SP tlog-cosignature, cosignature/v1).

It trusts nothing but what it fetches over HTTP from the site's public
endpoints and checks with the pure core (games/tlog.py): no Django, no read
of the site's storage (an import-linter contract holds it). Its own state,
a small JSON file, holds its Ed25519 key, the log's verifier key as first
seen, and the size and root it last cosigned; it is written before the
cosignature leaves, so a witness never cosigns two trees of one size.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.request import Request, urlopen

from games import tlog

Fetch = Callable[[str], bytes]  # a site path -> the body it answers
Post = Callable[[str, bytes], bytes]


class Refused(Exception):
    """The site showed something the witness will not cosign; the message says why."""


@dataclass
class State:
    name: str
    seed: str  # hex: the witness's Ed25519 private key
    log_key: str | None = None  # the log's verifier key, as first seen
    size: int | None = None  # the tree it last cosigned
    root: str | None = None  # base64

    @property
    def signer(self) -> tlog.Signer:
        return tlog.Signer.from_seed(self.name, bytes.fromhex(self.seed), tlog.ALG_COSIGNATURE_V1)


def load(path: Path, *, name: str) -> State:
    """The witness's state, made with a new key the first time."""
    if path.is_file():
        return State(**json.loads(path.read_text(encoding="utf-8")))
    state = State(name=name, seed=secrets.token_bytes(32).hex())
    tlog.Signer.from_seed(name, bytes.fromhex(state.seed))  # refuses a bad name now
    save(path, state)
    return state


def save(path: Path, state: State) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".new")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(asdict(state), f)
    partial.replace(path)


def witness_once(state: State, path: Path, fetch: Fetch, post: Post, *, now: int) -> str:
    """Fetch, check and cosign the site's newest checkpoint; what was done,
    in words. ``Refused`` when it does not extend what was cosigned before."""
    key_text = fetch("/log/key").decode("utf-8").splitlines()[0]
    if state.log_key is None:
        state.log_key = key_text  # trust on first use; pin it with --log-key
    elif key_text != state.log_key:
        raise Refused(f"The log's key changed from {state.log_key} to {key_text}.")
    key = tlog.parse_verifier_key(state.log_key)
    note = fetch("/log/checkpoint").decode("utf-8")
    try:
        checkpoint = tlog.open_checkpoint(note, key)
    except tlog.LogError as exc:
        raise Refused(f"The checkpoint does not open under the log's key: {exc}") from exc
    if state.size is not None and state.root is not None:
        old_root = tlog.b64decode(state.root, "kept root")
        _check_extends(state.size, old_root, checkpoint, fetch)
    body = tlog.parse_note(note).body
    line = tlog.cosign(body, state.signer, now).line()
    state.size, state.root = checkpoint.size, tlog.b64(checkpoint.root)
    save(path, state)  # before the cosignature leaves
    post("/log/cosignature", (note + line).encode("utf-8"))
    return f"cosigned the tree of {checkpoint.size} entries"


def _check_extends(size: int, root: bytes, new: tlog.Checkpoint, fetch: Fetch) -> None:
    if new.size < size:
        raise Refused(
            f"The log shows a tree of {new.size} entries after one of {size} was cosigned: "
            "a log never shrinks."
        )
    if new.size == size:
        if new.root != root:
            raise Refused(f"The log shows another tree of {size} entries: it forked.")
        return
    if size == 0:
        return
    answer = json.loads(fetch(f"/log/proof/consistency?from={size}&to={new.size}"))
    try:
        proof = [tlog.b64decode(h, "proof hash") for h in answer["proof"]]
        tlog.verify_consistency(size, new.size, root, new.root, proof)
    except (tlog.LogError, KeyError, TypeError) as exc:
        raise Refused(
            f"The tree of {new.size} entries is not proven to extend the one of {size}: {exc}"
        ) from exc


def over_http(base_url: str, *, timeout: float = 10) -> tuple[Fetch, Post]:
    base = base_url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError("The site's URL starts with http:// or https://.")

    def fetch(path: str) -> bytes:
        with urlopen(base + path, timeout=timeout) as response:  # noqa: S310 - the operator's URL
            return response.read()

    def post(path: str, body: bytes) -> bytes:
        request = Request(  # noqa: S310 - checked to be http(s) above
            base + path, data=body, method="POST", headers={"Content-Type": "text/plain"}
        )
        with urlopen(request, timeout=timeout) as response:  # noqa: S310 - the operator's URL
            return response.read()

    return fetch, post


def now() -> int:
    return int(time.time())
