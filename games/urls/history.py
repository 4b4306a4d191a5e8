from __future__ import annotations

from django.urls import path

from games.views import history, operator

urlpatterns = [
    path("", history.history, name="history"),
    path("summary/", history.history_summary, name="history_summary"),
    path("export.csv", history.history_export, name="history_export"),
    path("round/<int:pk>/", history.round_detail, name="history_round"),
    path("round/<int:pk>/verify/", history.round_verify, name="history_round_verify"),
    # Operators: find a player, their account, and any player's history and export.
    path("player/", operator.player_search, name="history_player_lookup"),
    path("player/<int:user_id>/", history.history, name="history_player"),
    path("player/<int:user_id>/account/", operator.player_page, name="operator_player"),
    path("player/<int:user_id>/active/", operator.player_active, name="operator_player_active"),
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
