"""The project package as an app, so that its signal handlers are connected
in every process that runs Django (servers, management commands, tests)."""

from __future__ import annotations

from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino site"

    def ready(self) -> None:
        # Imported once the apps are ready: it imports the auth models.
        from casino import logs, sockets  # noqa: PLC0415

        sockets.connect()
        logs.connect()
