from __future__ import annotations

from django.urls import path

from games.views import war

urlpatterns = [
    path("<slug:slug>/", war.table, name="war_table"),
    path("<slug:slug>/deal/", war.deal, name="war_deal"),
    path("<slug:slug>/decide/", war.decide, name="war_decide"),
    path("<slug:slug>/timed-out/", war.timed_out, name="war_timed_out"),
    path("<slug:slug>/menu/settings/", war.menu_settings, name="war_menu_settings"),
    path("<slug:slug>/menu/history/", war.menu_history, name="war_menu_history"),
    path("<slug:slug>/menu/bet-options/", war.menu_bet_options, name="war_menu_bet_options"),
    path("<slug:slug>/menu/max-bet/", war.menu_max_bet, name="war_menu_max_bet"),
    path("<slug:slug>/rules/", war.rules, name="war_rules"),
]
