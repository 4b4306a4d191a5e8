from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Casino")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported once the apps are ready: they import the models.
        from django.contrib.auth import get_user_model  # noqa: PLC0415
        from django.contrib.auth.signals import user_logged_in  # noqa: PLC0415
        from django.db.models.signals import post_save  # noqa: PLC0415

        from games.services import sockets  # noqa: PLC0415
        from games.services.play_safe import on_login  # noqa: PLC0415
        from games.services.wallet import open_new_users_account  # noqa: PLC0415

        user_logged_in.connect(on_login, dispatch_uid="games.play_safe.login")
        post_save.connect(
            open_new_users_account, sender=get_user_model(), dispatch_uid="games.wallet.open"
        )
        sockets.connect()
