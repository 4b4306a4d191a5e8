"""Server seeds sealed at rest.

A player's next server seed decides their next cards: whoever reads it before
the round can predict the round. The database therefore never holds a seed in
clear. ``SealedSeedField`` stores Fernet tokens (AES-128-CBC with an
HMAC-SHA256, from the ``cryptography`` package) and reads them back as the hex
seed, so a database dump, a backup or a replica's reader learns nothing about
any round to come; only the web processes, which hold the key, can open them.

The keys come from the environment, never from the database:
``CASINO_SEED_KEYS`` lists Fernet keys, comma-separated; the first seals,
every one of them opens (``MultiFernet``), which is how a key is rotated
(docs/security.md). Unset, one key is derived from ``SECRET_KEY`` (and one
from each of ``SECRET_KEY_FALLBACKS``, so rotating the secret key the way
Django documents it keeps old seeds readable until ``rotate_seed_keys`` has
sealed them again).

Sealing is randomised (a fresh IV each time), so a sealed column cannot be
searched: the field refuses every lookup but ``isnull``.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models

# Changing this changes every derived key: sealed seeds could no longer be opened.
_DERIVATION_INFO = b"casino: server seeds at rest, v1"
TOKEN_PREFIX = "gAAAAA"  # noqa: S105 - every Fernet token starts so (version byte 0x80)
TOKEN_MAX_LENGTH = 200  # a 64-character hex seed seals to a 184-character token


class SealError(ValueError):
    """A sealed value that no configured key opens (a wrong or missing key)."""


@functools.lru_cache(maxsize=8)
def derive_key(secret: str) -> bytes:
    """A Fernet key derived from a secret (HKDF-SHA256, info fixed above);
    remembered, since every seed sealed or opened asks for it (the
    derivation was half a seal's cost)."""
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_DERIVATION_INFO).derive(
        secret.encode("utf-8")
    )
    return base64.urlsafe_b64encode(raw)


def configured_keys() -> tuple[bytes, ...]:
    """The keys in force, the sealing one first."""
    listed: Sequence[str] = getattr(settings, "CASINO_SEED_KEYS", ())
    if listed:
        return tuple(k.encode("ascii") for k in listed)
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())]
    return tuple(derive_key(s) for s in secrets)


@functools.lru_cache(maxsize=4)
def _fernet(keys: tuple[bytes, ...]) -> MultiFernet:
    try:
        return MultiFernet([Fernet(k) for k in keys])
    except (ValueError, TypeError) as exc:  # not 32 url-safe base64 bytes
        raise ImproperlyConfigured(
            "CASINO_SEED_KEYS must list Fernet keys (Fernet.generate_key()), comma-separated"
        ) from exc


def _keyring() -> MultiFernet:
    return _fernet(configured_keys())


def seal(seed_hex: str) -> str:
    """The token stored for a hex server seed."""
    if not isinstance(seed_hex, str):
        raise TypeError("a server seed is sealed as its hex string")
    return _keyring().encrypt(seed_hex.encode("ascii")).decode("ascii")


def unseal(token: str) -> str:
    """The hex server seed a stored token holds."""
    try:
        return _keyring().decrypt(token.encode("ascii")).decode("ascii")
    except (InvalidToken, UnicodeError) as exc:
        raise SealError(
            "a sealed server seed could not be opened: CASINO_SEED_KEYS (or SECRET_KEY) "
            "is not the key it was sealed with"
        ) from exc


def reseal(token: str) -> str:
    """The token sealed again with the first key (for a key rotation)."""
    try:
        return _keyring().rotate(token.encode("ascii")).decode("ascii")
    except InvalidToken as exc:
        raise SealError("a sealed server seed could not be opened with any configured key") from exc


class SealedSeedField(models.CharField):
    """A hex server seed, stored sealed (see the module's docstring).

    Python code reads and writes the hex seed as before; the column holds
    only the token. Raw SQL that writes the column must pass ``seal(seed)``.
    """

    description = "A server seed, encrypted at rest"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", TOKEN_MAX_LENGTH)
        super().__init__(*args, **kwargs)

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        if not value:
            return value
        return unseal(value)

    def to_python(self, value: Any) -> Any:
        # A serialised row (dumpdata, below) carries the token: open it.
        if isinstance(value, str) and value.startswith(TOKEN_PREFIX):
            return unseal(value)
        return super().to_python(value)

    def value_to_string(self, obj: Any) -> str:
        # dumpdata and the other serialisers write the token, never the seed.
        value = self.value_from_object(obj)
        return seal(value) if value else ""

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if not value:
            return value
        return seal(value)

    def get_lookup(self, lookup_name: str) -> Any:
        # A token differs at every sealing: equality would silently never match.
        if lookup_name != "isnull":
            return None
        return super().get_lookup(lookup_name)
