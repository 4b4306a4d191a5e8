from __future__ import annotations

from django.urls import path

from games.views import baccarat, live, squeeze

# "settings/" comes first: it would otherwise read as a table slug.
urlpatterns = [
    path("settings/", baccarat.settings_view, name="baccarat_settings"),
    path("<slug:slug>/", baccarat.table, name="baccarat_table"),
    path("<slug:slug>/bet/", baccarat.bet, name="baccarat_bet"),
    path("<slug:slug>/roads/", baccarat.roads, name="baccarat_roads"),
    path("<slug:slug>/rules/", baccarat.rules, name="baccarat_rules"),
    path("<slug:slug>/history/", baccarat.table_history, name="baccarat_table_history"),
    path("<slug:slug>/client-seed/", baccarat.client_seed, name="baccarat_client_seed"),
    path("<slug:slug>/squeeze/", squeeze.squeeze, name="baccarat_squeeze"),
    path("<slug:slug>/shoes/<int:number>/", live.shoe, name="live_shoe"),
]
