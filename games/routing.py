"""The websocket routes, one consumer per game, mounted by casino/asgi.py.

Channels routes ASGI apps through Django's own ``path()``, which django-stubs
types for views only (returning a plain ``URLPattern``), hence the ignores;
the list carries the type Channels' ``URLRouter`` takes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path, re_path

from games.consumers import baccarat, live, missing, war

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern

websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    path("ws/baccarat/<slug:slug>/", baccarat.BaccaratConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
    path("ws/war/<slug:slug>/", war.WarConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
    path("ws/live/<slug:slug>/", live.LiveConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
    re_path(r"", missing.NoSuchSocket.as_asgi()),  # type: ignore[arg-type, list-item]
]
