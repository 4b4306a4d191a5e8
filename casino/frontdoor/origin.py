"""Which pages may open a socket: the site's own origins, scheme, host and
port all compared (Channels' ``AllowedHostsOriginValidator`` compares host
names only).

``SiteOriginValidator`` allows an ``Origin`` listed in
``CSRF_TRUSTED_ORIGINS`` or equal to the origin the socket is served on
(its allowed ``Host`` with the serving scheme), the check Django's CSRF
middleware makes of a form post; anything else is closed before the
handshake completes (403). docs/front-door.md, "Origin check".
"""

from __future__ import annotations

from urllib.parse import urlparse

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

SECURE_SCHEMES = {"wss", "https"}


def allowed_hosts() -> list[str]:
    hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not hosts:  # as Django allows for pages
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def served_origin(scope: dict) -> str | None:
    """The origin this socket is served on, when its Host is allowed."""
    host = ""
    for name, value in scope.get("headers", []):
        if name == b"host":
            host = value.decode("latin-1").strip().lower()
            break
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, allowed_hosts()):
        return None
    scheme = "https" if scope.get("scheme") in SECURE_SCHEMES else "http"
    return f"{scheme}://{host}"


class SiteOriginValidator(OriginValidator):
    def __init__(self, application) -> None:
        super().__init__(application, allowed_origins=[])

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            raise ValueError("SiteOriginValidator is for websocket connections only")
        origin = None
        for name, value in scope.get("headers", []):
            if name == b"origin":
                origin = urlparse(value.decode("latin-1"))
        patterns = list(settings.CSRF_TRUSTED_ORIGINS)
        own = served_origin(scope)
        if own is not None:
            patterns.append(own)
        if origin is not None and any(
            "*" not in pattern and self.match_exactly(origin, pattern) for pattern in patterns
        ):
            return await self.application(scope, receive, send)  # type: ignore[call-arg, misc]  # an ASGI3 app
        return await WebsocketDenier()(scope, receive, send)

    def match_exactly(self, origin, pattern: str) -> bool:
        """Same scheme, same host name (no sub-domains), same port; and
        nothing else, as a browser sends an Origin (no user, path, query or
        fragment: ``http://evil.example@host`` is not ``http://host``)."""
        parsed = urlparse(pattern.lower())
        if not origin.scheme or origin.hostname is None or not parsed.scheme:
            return False
        if "@" in origin.netloc or origin.path or origin.params or origin.query or origin.fragment:
            return False
        try:
            return (
                origin.scheme == parsed.scheme
                and origin.hostname == parsed.hostname
                and self.get_origin_port(origin) == self.get_origin_port(parsed)
            )
        except ValueError:  # a port that is not a number
            return False
