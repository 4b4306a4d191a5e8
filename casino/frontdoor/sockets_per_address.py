"""One client address holds at most ``CASINO_SOCKETS_PER_ADDRESS``
websockets open at once in this process (0: no cap); the next is refused
before the handshake, 429 where the server can answer a refused handshake,
403 otherwise. The cluster's nginx counts across its workers too.
docs/front-door.md, "Sockets per address".
"""

from __future__ import annotations

from collections import Counter

from django.conf import settings

from casino.frontdoor.answers import Scope, client_address, send_refusal
from casino.frontdoor.limits import Cap

TOO_MANY_SOCKETS = "Too many open connections from your network. Close a tab and try again."


class SocketsPerAddress:
    """Refuse a client address's websocket beyond ``cap.at_once`` open at
    once, none waiting (0: no cap; ``None``: the setting, read at each
    socket)."""

    def __init__(self, app, *, cap: Cap | None = None) -> None:
        self.app = app
        self.cap = cap
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive, send) -> None:
        cap = self.cap or Cap(settings.CASINO_SOCKETS_PER_ADDRESS)
        address = client_address(scope)
        if scope["type"] != "websocket" or not cap.at_once or not address:
            return await self.app(scope, receive, send)
        if self.open[address] >= cap.at_once:
            return await self.refuse(scope, receive, send)
        # Counted from the handshake until the application is done with the
        # socket (the consumer has seen its disconnect).
        self.open[address] += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    async def refuse(self, scope: Scope, receive, send) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        if "websocket.http.response" in scope.get("extensions", {}):
            await send_refusal(send, scope, 429, TOO_MANY_SOCKETS, prefix="websocket.http.response")
        else:
            await send({"type": "websocket.close"})  # the server answers 403
