"""Words the operator console borrows from other apps, in the console's
languages: django-axes ships no Japanese catalogue and names its app by its
label, and django-otp's TOTP device has a plain (untranslatable) name. The
axes msgids are listed here so that makemessages keeps them in the site's
catalogue, which Django reads before the apps' own."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.db.models import Field
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
    gettext_noop("Access Attempt"),
    gettext_noop("Access lock out"),
    gettext_noop("Attempt Time"),
    gettext_noop("Expires At"),
    gettext_noop("Failed Logins"),
    gettext_noop("GET Data"),
    gettext_noop("HTTP Accept"),
    gettext_noop("IP Address"),
    gettext_noop("Logout Time"),
    gettext_noop("POST Data"),
    gettext_noop("Path"),
    gettext_noop("Session key hash (sha256)"),
    gettext_noop("The time when access attempt expires and is no longer valid."),
    gettext_noop("User Agent"),
    gettext_noop("Username"),
    gettext_noop("Locked Out"),
    gettext_noop("Not set"),
    gettext_noop("Attempt Remaining"),
)


def name_the_apps() -> None:
    apps.get_app_config("axes").verbose_name = _("Login lock-outs")
    apps.get_app_config("otp_totp").verbose_name = _("Staff second factor")
    # Django's Options keeps these as plain attributes; a lazy string follows the page's language.
    TOTPDevice._meta.verbose_name = _("authenticator app")
    TOTPDevice._meta.verbose_name_plural = _("authenticator apps")
    for name, label in (
        ("user", _("staff member")),
        ("name", _("name")),
        ("confirmed", _("confirmed")),
        ("created_at", _("added")),
        ("last_used_at", _("last used")),
    ):
        field = TOTPDevice._meta.get_field(name)
        if isinstance(field, Field):  # always: these are concrete fields
            field.verbose_name = label
    devices = admin.site._registry.get(TOTPDevice)
    if devices is not None:
        # Set on the one registered instance, for every request it serves.
        devices.search_help_text = _("Search by the staff member's username.")  # type: ignore[misc]
