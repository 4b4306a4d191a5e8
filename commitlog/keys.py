"""The log's keys: its Ed25519 signing key (a file outside the database,
made once by ``manage.py make_log_key``), the witnesses it accepts, and the
key that turns a player into a pseudonym."""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from games import tlog

# With debug on and no key file: a key anyone can derive, for development only.
_DEV_SEED = hashlib.sha256(b"dev-only-insecure-log-key").digest()


def make_key(path: Path) -> bool:
    """Write a new signing key to ``path`` unless one is there; True if made."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".new")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(secrets.token_bytes(32).hex() + "\n")
    partial.replace(path)
    return True


@functools.cache
def _signer(path: Path, origin: str, debug: bool) -> tlog.Signer:
    if path.is_file():
        seed = bytes.fromhex(path.read_text(encoding="ascii").strip())
    elif debug:
        seed = _DEV_SEED
    else:
        raise ImproperlyConfigured(
            f"The commitment log has no signing key: manage.py make_log_key writes one to {path}"
        )
    return tlog.Signer.from_seed(origin, seed)


def signer() -> tlog.Signer:
    return _signer(settings.CASINO_LOG_KEY_FILE, settings.CASINO_LOG_ORIGIN, settings.DEBUG)


def log_key() -> tlog.VerifierKey:
    return signer().verifier


def witness_keys() -> list[tlog.VerifierKey]:
    """The witnesses registered in CASINO_LOG_WITNESSES_FILE (cosignature/v1 keys)."""
    path = settings.CASINO_LOG_WITNESSES_FILE
    if not path.is_file():
        return []
    keys = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key = tlog.parse_verifier_key(line)
            if key.alg == tlog.ALG_COSIGNATURE_V1:
                keys.append(key)
    return keys


@functools.cache
def _pseudonym_key(secret: str) -> bytes:
    return hashlib.sha256(b"casino-log-pseudonym\n" + secret.encode()).digest()


def pseudonym(user_pk: int) -> str:
    """The player as the log names them: 32 hex digits nobody can map back
    to an account without the site's secret key."""
    key = _pseudonym_key(settings.SECRET_KEY)
    message = f"casino-log-player:{user_pk}".encode()
    return hmac.new(key, message, hashlib.sha256).digest()[:16].hex()
