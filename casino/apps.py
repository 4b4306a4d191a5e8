"""The project package as an app, so that its signal handlers are connected
in every process that runs Django (servers, management commands, tests)."""

from __future__ import annotations

from django.apps import AppConfig

from casino import metrics


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino site"

    def ready(self) -> None:
        # Imported once the apps are ready: it imports the auth models.
        from django.contrib.auth.signals import user_login_failed  # noqa: PLC0415

        from casino import logs  # noqa: PLC0415

        logs.connect()
        metrics.forget_dead_processes()
        user_login_failed.connect(count_login_failure, dispatch_uid="casino-login-failures")


def count_login_failure(sender: object, **kwargs: object) -> None:
    """Every failed login, whoever it names (casino_login_failures_total)."""
    metrics.LOGIN_FAILURES.inc()
