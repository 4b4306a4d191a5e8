"""Demo mode and the public "Provably fair" page (no login needed)."""

from __future__ import annotations

from django.urls import path

from games.views import demo, fair

urlpatterns = [
    path("demo/start/", demo.start, name="demo_start"),
    path("demo/refill/", demo.refill, name="demo_refill"),
    path("demo/expired/", demo.expired, name="demo_expired"),
    path("fair/", fair.fair, name="fair"),
]
