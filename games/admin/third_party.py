"""Words the operator console borrows from other apps, in the console's
languages: django-axes ships no Japanese catalogue and names its app by its
label, and django-otp's TOTP device has a plain (untranslatable) name. The
axes msgids are listed here so that makemessages keeps them in the site's
catalogue, which Django reads before the apps' own."""

from __future__ import annotations

from django.apps import apps
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop
from django_otp.plugins.otp_totp.models import TOTPDevice

AXES_WORDS = (
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
    gettext_noop("access attempt expiration"),
    gettext_noop("access attempt expirations"),
)


def name_the_apps() -> None:
    apps.get_app_config("axes").verbose_name = _("Login lock-outs")
    apps.get_app_config("otp_totp").verbose_name = _("Staff second factor")
    # Django's Options keeps these as plain attributes; a lazy string follows the page's language.
    TOTPDevice._meta.verbose_name = _("authenticator app")
    TOTPDevice._meta.verbose_name_plural = _("authenticator apps")
