from __future__ import annotations

from django.urls import path

from games.views import placeholder

urlpatterns = [
    path("", placeholder.not_open, name="history"),
]
