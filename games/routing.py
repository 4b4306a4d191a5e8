from __future__ import annotations

from django.urls import path

from games.consumers import baccarat, war

websocket_urlpatterns = [
    path("ws/baccarat/<slug:slug>/", baccarat.BaccaratConsumer.as_asgi()),
    path("ws/war/<slug:slug>/", war.WarConsumer.as_asgi()),
]
