"""The language a table socket speaks: the one its page was rendered in."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import trans_real


def scope_language(scope: dict[str, Any]) -> str:
    """The language the page was rendered in: the language cookie, then
    Accept-Language, then the site default (as LocaleMiddleware decides)."""
    candidates = []
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie:
        candidates.append(cookie)
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _q in trans_real.parse_accept_lang_header(accept) if code != "*"]
    for code in candidates:
        try:
            return trans_real.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
