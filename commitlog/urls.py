from __future__ import annotations

from django.urls import path

from commitlog import views

urlpatterns = [
    path("checkpoint", views.checkpoint, name="log_checkpoint"),
    path("key", views.key, name="log_key"),
    path("leaf", views.leaf, name="log_leaf"),
    path("proof/inclusion", views.inclusion, name="log_inclusion"),
    path("proof/consistency", views.consistency, name="log_consistency"),
    path("tile/<path:path>", views.tile, name="log_tile"),
    path("cosignature", views.cosignature, name="log_cosignature"),
]
