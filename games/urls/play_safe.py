from __future__ import annotations

from django.urls import path

from games.views import play_safe

urlpatterns = [
    path("", play_safe.page, name="play_safe"),
    path("loss-limit/", play_safe.loss_limit, name="play_safe_loss_limit"),
    path("reality-check/", play_safe.reality_interval, name="play_safe_reality"),
    path("reality-check/answer/", play_safe.reality_answer, name="play_safe_reality_answer"),
    path("reality-check/status/", play_safe.reality_status, name="play_safe_reality_status"),
    path("time-out/", play_safe.timeout, name="play_safe_timeout"),
    path("self-exclusion/", play_safe.exclusion, name="play_safe_exclusion"),
    path("time-zone/", play_safe.zone, name="play_safe_zone"),
    path("statement/", play_safe.statement, name="play_safe_statement"),
    path("statement.csv", play_safe.statement_csv, name="play_safe_statement_csv"),
]
