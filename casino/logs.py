"""Logs as JSON lines, one event a line, with nothing secret in them.

Every line carries the request's id, the signed-in user's id and, for a
round, the round's id (django-structlog binds the first two for each HTTP
request, the round pipeline the third: games/services/rounds.py), so an
operator follows one request or one round across the lines of every
process. Django's own loggers (errors, security, queries) go through the
same renderer.

Whatever a line holds passes ``redact`` last: a log is read by more people
than the database is (a log shipper, a dashboard, a mail to support), so a
server seed, a sealed one, a session key, a CSRF token, a password or PIN
hash, a password or PIN typed into the wrong field never reaches one,
errors and their tracebacks included:

- any value under a key that names a secret (password, pin, seed, session,
  cookie, token, csrf, secret, key, authorization) is replaced whole;
- any run of 32 or more letters and digits (a seed is 64 hex digits, a
  session key 32 characters, a CSRF token 64), any Fernet token and any
  Django password hash in any text is replaced;
- a logged query (``django.db.backends`` at DEBUG) keeps its statement with
  every quoted value replaced and its parameters dropped: they hold sealed
  seeds, hashes and session keys.

This module imports nothing of Django, so the settings can import it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import structlog
from structlog.typing import Processor

REDACTED = "[redacted]"

# A 32-byte seed in hex, and a Fernet token (games/sealing.py) of any length;
# casino/reporting.py cleans error reports with the same pattern.
_SEED = r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])|gAAAAA[A-Za-z0-9_=-]{40,}"
SEED_PATTERN = re.compile(_SEED)
# What a log line never holds, wherever it sits in the text: seeds and
# tokens (above), any long run of letters and digits (session keys, CSRF
# tokens, API tokens), and Django's stored password (and PIN) hashes.
SECRET_TEXT = re.compile(
    _SEED
    + r"|(?<![A-Za-z0-9])[A-Za-z0-9]{32,}(?![A-Za-z0-9])"
    + r"|\b(?i:argon2|pbkdf2_sha256|pbkdf2_sha1|scrypt|bcrypt_sha256|bcrypt|md5|sha1)\$[^\s'\",;)]+",
)
# Keys whose values are secrets whatever they look like (a four-digit PIN).
SECRET_KEY_NAME = re.compile(
    r"(?i)pass|pin|seed|session|cookie|token|csrf|secret|key|authori[sz]ation|otp"
)
# Keys the pipeline itself adds, never secret.
_PLAIN_KEYS = {"event", "level", "logger", "timestamp", "request_id", "user_id", "round_id"}
# A quoted value in a logged SQL statement (both engines quote with ').
_SQL_LITERAL = re.compile(r"'(?:[^']|'')*'")


def scrub(text: str) -> str:
    """``text`` with every secret-looking run replaced."""
    return SECRET_TEXT.sub(REDACTED, text)


def _clean(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if depth > 4:  # a log line's values are shallow; anything deeper is shown as text
        return scrub(repr(value))
    if isinstance(value, Mapping):
        return {
            str(k): REDACTED if _secret_key(str(k)) else _clean(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(v, depth + 1) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return scrub(str(value))


def _secret_key(name: str) -> bool:
    return name not in _PLAIN_KEYS and bool(SECRET_KEY_NAME.search(name))


def redact(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """The last step before rendering: no secret in any key or text."""
    return {
        key: REDACTED if _secret_key(key) else _clean(value) for key, value in event_dict.items()
    }


def queries_without_values(
    _logger: Any, _method: str, event_dict: dict[str, Any]
) -> dict[str, Any]:
    """A query logged by Django: its statement with the values left out."""
    record = event_dict.get("_record")
    if record is not None and record.name == "django.db.backends" and hasattr(record, "sql"):
        event_dict["event"] = _SQL_LITERAL.sub("'?'", str(record.sql))
        event_dict["duration_s"] = getattr(record, "duration", None)
        event_dict.pop("positional_args", None)
    return event_dict


# What every line gets before it is rendered, whether it came from structlog
# or from a standard library logger (Django's, axes', daphne's).
_SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_logger_name,
    structlog.stdlib.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def configure_structlog() -> None:
    """structlog's loggers hand their events to the standard library's
    handlers, rendered by ``logging_config``'s formatter."""
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def logging_config(level: str, *, mail_admins: bool = True) -> dict[str, Any]:
    """The LOGGING setting: JSON lines on standard error at ``level``
    (``mail_admins``: and Django's mail to ADMINS, which needs the settings)."""
    config: dict[str, Any] = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": structlog.stdlib.ProcessorFormatter,
                "foreign_pre_chain": [*_SHARED, queries_without_values],
                "processors": [
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    # Tracebacks as text (no local variables), then cleaned.
                    structlog.processors.format_exc_info,
                    redact,
                    structlog.processors.JSONRenderer(sort_keys=False),
                ],
            }
        },
        "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json"},
            # Django's mail to ADMINS on a server error, debug off (its
            # report cleaned by casino/reporting.py); nothing without ADMINS.
            "mail_admins": {
                "class": "django.utils.log.AdminEmailHandler",
                "level": "ERROR",
                "filters": ["require_debug_false"],
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own handlers (the console's plain text, the mail to
            # ADMINS) give way to the JSON line: one format, one place.
            "django": {"handlers": ["console", "mail_admins"], "level": level, "propagate": False},
            "django.server": {"handlers": ["console"], "level": level, "propagate": False},
            # Its start-up banner on every command; its failures and lock-outs stay.
            "axes.apps": {"level": "WARNING"},
        },
    }
    if not mail_admins:
        del config["handlers"]["mail_admins"]
        config["loggers"]["django"]["handlers"] = ["console"]
    return config


def bind_client_address(request: Any, **_kwargs: Any) -> None:
    """The client's address as the site counts it (``REMOTE_ADDR``, which
    the cluster sets from its proxy's header: casino/wsgi.py), not a header
    any client may write."""
    structlog.contextvars.bind_contextvars(ip=request.META.get("REMOTE_ADDR"))


def connect() -> None:
    """Bind the client's address to every request's lines."""
    from django_structlog import signals  # noqa: PLC0415 - needs the apps loaded

    signals.bind_extra_request_metadata.connect(bind_client_address, dispatch_uid="casino-ip")


def get_logger(name: str) -> Any:
    return structlog.stdlib.get_logger(name)
