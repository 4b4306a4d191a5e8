"""Any websocket path that is not a table's: refused at the handshake (the
client sees a 403), never a server error."""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer


class NoSuchSocket(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.close()
