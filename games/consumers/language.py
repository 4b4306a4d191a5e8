"""The language a table socket speaks: the one its page was rendered in.

The page names it in the socket's address (``ws-connect="...?lang=en"``,
from the language it was drawn in): a client that sends the page's request
headers but not the socket's (a script's socket library sends neither the
language cookie nor Accept-Language) still gets its refusals in the page's
language. A socket opened without it falls back to what LocaleMiddleware
reads for a page: the language cookie, then Accept-Language, then the site
default (Japanese).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from django.conf import settings
from django.utils.translation import trans_real

PAGE_LANGUAGE = "lang"  # the socket address's query field naming the page's language


def scope_language(scope: dict[str, Any]) -> str:
    """The language the page was rendered in: the one it names in the
    socket's address, the language cookie, Accept-Language, the default."""
    candidates = []
    query = parse_qs(bytes(scope.get("query_string") or b"").decode("latin-1"))
    candidates += [code for code in query.get(PAGE_LANGUAGE, [])[:1] if len(code) <= 16]
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
