"""A staff member's second factor: enrol an authenticator app, and give its
code after the password (casino/otp.py says where it is asked for).

- ``enroll``: a staff member with no device yet scans a QR code (or types
  the key) into any TOTP app and confirms with one code; the device counts
  from then on. With a confirmed device the page only sends on to
  ``verify``: someone holding just the password cannot add a device of
  their own.
- ``verify``: the code, after the password, once per session.

A wrong code counts as a failed login with django-axes (the username from
this address), so codes cannot be guessed faster than passwords: enough of
them lock the account out here and on both login pages, and the session is
signed out. django-otp also slows a device down after each wrong code.
Both pages are for staff only; a player gets a 404.
"""

from __future__ import annotations

from base64 import b32encode

import qrcode
import qrcode.image.svg
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django import forms
from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_login_failed
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.otp import is_verified, safe_next

DEVICE_NAME = "authenticator"


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=20,
        help_text=gettext_lazy("The 6 digits your authenticator app shows for The Casino."),
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "autofocus": True,
                "data-testid": "otp-code",
            }
        ),
    )

    def clean_code(self) -> str:
        # Apps show the code as "123 456"; spaces are not part of it.
        code = "".join(self.cleaned_data["code"].split())
        # Six digits, as enrolment sets up; eight for a device an operator
        # added in the admin with that length.
        if not (code.isascii() and code.isdigit() and len(code) in (6, 8)):
            raise forms.ValidationError(_("Type the 6 digits your authenticator app shows."))
        return code


def _staff(request: HttpRequest) -> User:
    user = request.user
    if not (isinstance(user, User) and user.is_active and (user.is_staff or user.is_superuser)):
        raise Http404
    return user


def _next(request: HttpRequest) -> str:
    asked = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME)
    return safe_next(request, asked, reverse("admin:index"))


def _with_next(name: str, next_url: str) -> str:
    return f"{reverse(name)}?{urlencode({REDIRECT_FIELD_NAME: next_url})}"


def _credentials(user: User) -> dict[str, str]:
    return {"username": user.get_username()}


def _locked_out(request: HttpRequest, user: User) -> HttpResponse | None:
    """Axes' lockout page, the session signed out, once this username (or
    this address) has failed too often; None while it may still try."""
    credentials = _credentials(user)
    if not (
        getattr(request, "axes_locked_out", False)
        or AxesProxyHandler.is_locked(request, credentials)
    ):
        return None
    logout(request)
    return get_lockout_response(request, None, credentials)


def _wrong_code(request: HttpRequest, user: User, form: CodeForm, *, throttled: bool) -> None:
    # Axes counts it as it counts a wrong password (and marks the request
    # locked out when this one reaches the limit).
    user_login_failed.send(sender=__name__, credentials=_credentials(user), request=request)
    form.add_error(
        "code",
        _("Too many wrong codes in a row: wait a few seconds, then type the newest code.")
        if throttled
        else _("That code is not right: check the app's clock, then type the code it shows now."),
    )


def _check_code(device: TOTPDevice, code: str) -> tuple[bool, bool]:
    """Whether ``code`` is good for ``device``, and whether the device was
    still slowed down by earlier wrong codes (django-otp then checks none)."""
    with transaction.atomic():
        # Locked for the check: one code, one use (django-otp keeps the last
        # time step that verified).
        device = TOTPDevice.objects.select_for_update().get(pk=device.pk)
        allowed, _details = device.verify_is_allowed()
        good = device.verify_token(code)
        if good and not device.confirmed:
            device.confirmed = True  # enrolment ends with its first good code
            device.save(update_fields=["confirmed"])
    return good, not allowed


def _signed_in(request: HttpRequest, device: TOTPDevice) -> HttpResponse:
    # The session gains staff rights: a new session key, as at login, so a
    # key planted before this moment is worth nothing.
    request.session.cycle_key()
    otp_login(request, device)
    return redirect(_next(request))


def _qr_svg(url: str) -> str:
    """The otpauth:// URL as a QR code, an inline SVG element (the page's
    Content Security Policy allows no data: image)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathFillImage)
    return image.to_string(encoding="unicode")


def _key_text(device: TOTPDevice) -> str:
    """The key as the apps ask for it when typed: base32, in groups of four."""
    key = b32encode(device.bin_key).decode()
    return " ".join(key[i : i + 4] for i in range(0, len(key), 4))


def _take_code(
    request: HttpRequest, user: User, device: TOTPDevice, form: CodeForm, *, confirmed: str = ""
) -> HttpResponse | None:
    """A posted code, on the code page and the enrolment page alike: the
    lock-out page when the account is locked (before or because of this
    code), the signed-in redirect when the code is right (saying
    ``confirmed`` first, if given), else None with the form's error set."""
    locked = _locked_out(request, user)
    if locked is not None or not form.is_valid():
        return locked
    good, throttled = _check_code(device, form.cleaned_data["code"])
    if good:
        if confirmed:
            messages.success(request, confirmed)
        return _signed_in(request, device)
    _wrong_code(request, user, form, throttled=throttled)
    return _locked_out(request, user)


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def verify(request: HttpRequest) -> HttpResponse:
    user = _staff(request)
    next_url = _next(request)
    if is_verified(request):
        return redirect(next_url)
    device = TOTPDevice.objects.devices_for_user(user, confirmed=True).order_by("pk").first()
    if device is None:
        return redirect(_with_next("staff_otp_enroll", next_url))
    form = CodeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        answer = _take_code(request, user, device, form)
        if answer is not None:
            return answer
    return render(request, "registration/staff_otp_verify.html", {"form": form, "next": next_url})


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def enroll(request: HttpRequest) -> HttpResponse:
    user = _staff(request)
    next_url = _next(request)
    if TOTPDevice.objects.devices_for_user(user, confirmed=True).exists():
        return redirect(_with_next("staff_otp_verify", next_url))
    # The same key until it is confirmed: reloading the page does not undo a scan.
    device = TOTPDevice.objects.devices_for_user(user, confirmed=False).order_by(
        "pk"
    ).first() or TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    form = CodeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        answer = _take_code(
            request,
            user,
            device,
            form,
            confirmed=_("Your authenticator app is set up: operator sign-ins ask for its code."),
        )
        if answer is not None:
            return answer
    context = {
        "form": form,
        "next": next_url,
        "qr_svg": mark_safe(_qr_svg(device.config_url)),  # noqa: S308  # made here from the key alone
        "key": _key_text(device),
    }
    return render(request, "registration/staff_otp_enroll.html", context)
