"""Keys, hosts, TLS and the headers every page carries."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from casino.settings.base import BASE_DIR, DEBUG
from casino.settings.env import envbool, envint, envlist

# DJANGO_SECRET_KEY, else the key `make setup` keeps in DJANGO_SECRET_KEY_FILE
# (made once by `manage.py make_secret_key`), else, with debug on only, a
# development key. DJANGO_SECRET_KEY_FALLBACKS: the previous keys while a new
# one takes over (docs/operations.md).
_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production-0123456789"  # noqa: S105
SECRET_KEY_FILE = Path(os.environ.get("DJANGO_SECRET_KEY_FILE") or BASE_DIR / "db" / "secret_key")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
SECRET_KEY_FALLBACKS = envlist("DJANGO_SECRET_KEY_FALLBACKS", [])

ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
_origins = os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS")
CSRF_TRUSTED_ORIGINS = envlist("DJANGO_CSRF_TRUSTED_ORIGINS", []) if _origins else []

# Server seeds are sealed at rest with these Fernet keys (games/sealing.py):
# the first seals, each one opens; unset, keys derived from the secret keys.
CASINO_SEED_KEYS = envlist("CASINO_SEED_KEYS", [])

# With debug off; `make run` turns them off for plain http on loopback.
if not DEBUG:
    SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = envbool("DJANGO_SECURE_COOKIES", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

if not SECRET_KEY and SECRET_KEY_FILE.is_file():
    SECRET_KEY = SECRET_KEY_FILE.read_text(encoding="ascii").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            f"(or a key kept in {SECRET_KEY_FILE}: manage.py make_secret_key)"
        )
    SECRET_KEY = _DEV_SECRET
elif len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be at least 50 characters long")
if any(len(key) < 50 for key in SECRET_KEY_FALLBACKS):
    raise ImproperlyConfigured("DJANGO_SECRET_KEY_FALLBACKS must list keys of 50+ characters")
for _key in CASINO_SEED_KEYS:
    try:
        Fernet(_key)
    except ValueError:
        raise ImproperlyConfigured(
            "CASINO_SEED_KEYS must list Fernet keys (32 url-safe base64 bytes), comma-separated"
        ) from None

# Error reports never show a server seed or a sealed one (casino/reporting.py).
DEFAULT_EXCEPTION_REPORTER_FILTER = "casino.reporting.SeedSafeExceptionReporterFilter"

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content Security Policy (django-csp). Every script and stylesheet is a file
# from this origin (htmx and its ws extension included; htmx runs with
# allowEval and its injected indicator style off, templates/base.html), so no
# 'unsafe-inline' or 'unsafe-eval' for either; NONCE is sent only when a
# template uses it. Style *attributes* are allowed: the tables place cards,
# chips and road cells with CSS custom properties (style="--delay: .35s"); an
# injected one can restyle a page but run nothing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],  # CSP3 'self' covers the same-origin websocket
        "media-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
