from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer


class BaccaratConsumer(AsyncWebsocketConsumer):
    """Placeholder until the table lands: refuses every socket."""

    async def connect(self) -> None:
        await self.close()
