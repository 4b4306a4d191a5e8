from __future__ import annotations

from django.apps import AppConfig


class CommitlogConfig(AppConfig):
    name = "commitlog"
    verbose_name = "commitment log"
    default_auto_field = "django.db.models.BigAutoField"
