from __future__ import annotations

from django.urls import path

from games.views import history

urlpatterns = [
    path("", history.history, name="history"),
    path("summary/", history.history_summary, name="history_summary"),
    path("export.csv", history.history_export, name="history_export"),
    path("round/<int:pk>/", history.round_detail, name="history_round"),
    path("round/<int:pk>/verify/", history.round_verify, name="history_round_verify"),
    # Operators: any player's history, totals and export.
    path("player/", history.player_lookup, name="history_player_lookup"),
    path("player/<int:user_id>/", history.history, name="history_player"),
    path(
        "player/<int:user_id>/summary/",
        history.history_summary,
        name="history_player_summary",
    ),
    path(
        "player/<int:user_id>/export.csv",
        history.history_export,
        name="history_player_export",
    ),
]
