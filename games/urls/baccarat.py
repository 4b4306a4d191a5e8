from __future__ import annotations

from django.urls import path

from games.views import placeholder

urlpatterns = [
    path("<slug:slug>/", placeholder.not_open, name="baccarat_table"),
]
