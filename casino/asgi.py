"""ASGI entry point: HTTP through Django's own handler, websockets through
Channels (``make run``: one hypercorn serves both, casino/hypercorn_conf.py;
the cluster sends only ``/ws/`` here, to uvicorn, and HTTP to gunicorn,
casino/wsgi.py).

Every request body is bounded as it streams (casino/guard.py: 413 past
``CASINO_MAX_BODY_BYTES``, before more is read), log-in and sign-up posts
enter the site a few at a time (the others wait, or get a 429 at once), all
requests enter Django a few at a time (signed-in players first), and one
client address holds at most ``CASINO_SOCKETS_PER_ADDRESS`` sockets open. A socket is let
in only from the site's own pages (casino/origin.py: scheme, host and port),
with the session cookie (``AuthMiddlewareStack``).
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from casino.guard import (  # noqa: E402
    BodyLimit,
    CredentialDesk,
    PageSeats,
    SocketsPerAddress,
    lifespan,
)
from casino.origin import SiteOriginValidator  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

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
