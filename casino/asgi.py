"""ASGI entry point: HTTP through Django's own handler, websockets through
Channels (``make run``: one hypercorn serves both, casino/hypercorn_conf.py;
the cluster sends only ``/ws/`` here, to uvicorn, and HTTP to gunicorn,
casino/wsgi.py).

The front door's ASGI guards (casino/frontdoor/) wrap both: every request
body is bounded as it streams, log-in and sign-up posts enter the site a
few at a time, all requests enter Django a few at a time (signed-in players
first), one client address holds a few sockets open, and a socket is let in
only from the site's own pages, with the session cookie
(``AuthMiddlewareStack``).
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from casino.frontdoor.body_limit import BodyLimit  # noqa: E402
from casino.frontdoor.credential_desk import CredentialDesk  # noqa: E402
from casino.frontdoor.origin import SiteOriginValidator  # noqa: E402
from casino.frontdoor.page_seats import PageSeats  # noqa: E402
from casino.frontdoor.sockets_per_address import SocketsPerAddress  # noqa: E402
from casino.startup import prepare_if_asked  # noqa: E402
from games.presenters.live import start_in_process as start_live_dealer  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# A socket worker holds every open socket's objects for as long as it lives:
# the cluster readies and freezes its start-up for the collector
# (casino/startup.py; ops/cluster.sh sets CASINO_GC_FREEZE=1 for uvicorn).
prepare_if_asked()


async def lifespan(scope, receive, send) -> None:
    """Start-up starts the live tables' dealer on a thread of this process
    (when CASINO_LIVE_DEALER is set: ``make run``); shut-down has nothing to
    do. Both are acknowledged, so a server that sends them (hypercorn) does
    not log the application as failing them."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            start_live_dealer()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


application = ProtocolTypeRouter(
    {
        "http": BodyLimit(CredentialDesk(PageSeats(django_asgi_app))),
        # The cap first: a flood of sockets is refused before any session read.
        "websocket": SocketsPerAddress(
            SiteOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
        "lifespan": lifespan,
    }
)
