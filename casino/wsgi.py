"""WSGI entry point: the site's HTTP side under gunicorn (``make cluster``).

Behind nginx every request comes from nginx's address. gunicorn does not
rewrite ``REMOTE_ADDR`` from ``X-Forwarded-For``; ``ForwardedClient`` does,
only for requests whose peer is a proxy gunicorn was told to trust
(``forwarded_allow_ips``, set by the cluster on the command line; the
gunicorn config in casino/gunicorn.py trusts none by default and hands the
list over here when a worker starts). nginx sets the header to the address
it saw, so the last entry is the one it vouches for. The credential
throttle and axes then count the player's address, not nginx's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from ipaddress import ip_address, ip_network

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")


class ForwardedClient:
    def __init__(self, app) -> None:
        self.app = app
        self.networks: list = []
        self.any_peer = False

    def trust(self, proxies: Iterable[str]) -> None:
        """Believe ``X-Forwarded-For`` from these addresses or networks ("*": any)."""
        proxies = [p.strip() for p in proxies if p.strip()]
        self.any_peer = "*" in proxies
        self.networks = [ip_network(p, strict=False) for p in proxies if p != "*"]

    def trusted(self, peer: str) -> bool:
        if self.any_peer:
            return True
        try:
            address = ip_address(peer)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def __call__(self, environ, start_response):
        forwarded = environ.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded and self.trusted(environ.get("REMOTE_ADDR", "")):
            client = forwarded.rsplit(",", 1)[-1].strip()
            if client:
                environ["REMOTE_ADDR"] = client
        return self.app(environ, start_response)


application = ForwardedClient(get_wsgi_application())
