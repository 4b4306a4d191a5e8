"""Staff sign in with a second factor: a time-based code (TOTP) from an
authenticator app, on top of the password.

The password step stays the one every user has (the site's login page or the
admin's, both counted by django-axes). ``django_otp``'s ``OTPMiddleware``
then marks a session verified once its user has typed a good code
(``games/views/staff_otp.py``). Where ``CASINO_STAFF_OTP`` is on (by default
whenever debug is off):

- ``StaffOTPAdminSite``, the project's admin site, admits only a verified
  staff session: every admin page, and every operator view wrapped in
  ``admin_site.admin_view``, sends an unverified one to its login page, which
  sends a signed-in staff member on to the code page (or to enrolment, with
  no device yet);
- the staff views of player data outside the admin
  (``games/views/staff_access.py``) answer an unverified session with a 404;
- every other page (``SecondFactorFirst``), whichever login page took the
  password (the player's too), sends an unverified staff session to the
  code page, and a table socket refuses it (``socket_awaits_second_factor``):
  a staff password alone never plays, bets or reads anything.

Players never meet any of it: no page here is theirs, and their sessions are
never asked for a code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django_otp import DEVICE_ID_SESSION_KEY

from casino.admin_lookups import ListedLookupsOnly

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
    from django.contrib.sessions.backends.base import SessionBase


def staff_otp_on() -> bool:
    return bool(settings.CASINO_STAFF_OTP)


def is_verified(request: HttpRequest) -> bool:
    """Whether this session's user typed a good code from a confirmed
    device. A request that did not pass through ``OTPMiddleware`` (so has no
    ``is_verified``) counts as not verified."""
    check = getattr(request.user, "is_verified", None)
    return bool(check is not None and check())


def second_factor_passed(request: HttpRequest) -> bool:
    """The session may act as staff: no second factor is asked for here, or
    it has been given."""
    return not staff_otp_on() or is_verified(request)


def awaits_second_factor(request: HttpRequest) -> bool:
    """A signed-in staff member (superusers too) past the password step whose
    code is still asked for."""
    return _is_staff(request.user) and not second_factor_passed(request)


def _is_staff(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(
        user.is_authenticated
        and user.is_active
        and (getattr(user, "is_staff", False) or getattr(user, "is_superuser", False))
    )


def socket_awaits_second_factor(
    user: AbstractBaseUser | AnonymousUser, session: SessionBase
) -> bool:
    """``awaits_second_factor`` for a table socket, which no ``OTPMiddleware``
    saw: the session's device read as that middleware reads it (confirmed,
    and the user's own). It reads the database: call it in a thread."""
    # This module is loaded (the admin's app config) before any model is.
    from django_otp.models import Device  # noqa: PLC0415

    if not (staff_otp_on() and _is_staff(user)):
        return False
    persistent_id = session.get(DEVICE_ID_SESSION_KEY)
    device = Device.from_persistent_id(persistent_id) if persistent_id else None
    return not (device is not None and device.user_id == user.pk and device.confirmed)


def safe_next(request: HttpRequest, candidate: str | None, default: str) -> str:
    """``candidate`` if it is a path on this site, else ``default``: the
    code page must not become an open redirect, nor take anything else (a
    view's name, digits) for somewhere to go."""
    if (
        candidate
        and candidate.startswith("/")
        and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return candidate
    return default


def redirect_to_second_factor(request: HttpRequest, next_url: str) -> HttpResponseRedirect:
    query = urlencode({REDIRECT_FIELD_NAME: next_url})
    return HttpResponseRedirect(f"{reverse('staff_otp_verify')}?{query}")


# What a staff session may open before its code: the code, enrolment and
# signing out. The admin's pages guard themselves (``StaffOTPAdminSite``).
BEFORE_THE_CODE = frozenset({"staff_otp_verify", "staff_otp_enroll", "logout"})


class SecondFactorFirst:
    """Sends a staff session still owing its code to the code page from
    every page but ``BEFORE_THE_CODE``: the player's login takes a staff
    password like any other, and the session it makes is good for nothing
    else until the code is given. An htmx request (a BET) is told through
    ``HX-Redirect`` and plays nothing. Sits after ``OTPMiddleware``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable, args: Any, kwargs: Any
    ) -> HttpResponseBase | None:
        if not staff_otp_on() or not awaits_second_factor(request):
            return None
        match = request.resolver_match
        if match is not None and (
            match.view_name in BEFORE_THE_CODE or "admin" in match.namespaces
        ):
            return None
        htmx = bool(request.headers.get("HX-Request"))
        back = request.get_full_path() if request.method == "GET" and not htmx else reverse("lobby")
        response = redirect_to_second_factor(request, back)
        if not htmx:
            return response
        told = HttpResponse(status=204)
        told["HX-Redirect"] = response["Location"]
        return told


class StaffOTPAdminSite(admin.AdminSite):
    """Django's admin site, whose pages need a verified session where
    ``CASINO_STAFF_OTP`` is on (django-otp's ``OTPAdminSite`` asks for the
    code always, and on the password form, where a staff member without a
    device could never get in to enrol)."""

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and second_factor_passed(request)

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        # Every list, the project's and the libraries' (django-otp's device
        # keys, axes' attempts), filters by its own filters only.
        base = admin_class or admin.ModelAdmin
        guarded = type(base.__name__, (ListedLookupsOnly, base), {"__module__": base.__module__})
        super().register(model_or_iterable, guarded, **options)

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        # Past the password already: the code is what is missing, not the
        # password (the stock page would offer to log in as someone else).
        if request.method == "GET" and awaits_second_factor(request):
            index = reverse("admin:index", current_app=self.name)
            return redirect_to_second_factor(
                request, safe_next(request, request.GET.get(REDIRECT_FIELD_NAME), index)
            )
        return super().login(request, extra_context)


class CasinoAdminConfig(AdminConfig):
    """``django.contrib.admin`` with ``StaffOTPAdminSite`` as ``admin.site``:
    every ``ModelAdmin`` registered anywhere (games/admin/, django-otp's
    device admin) lands on it unchanged."""

    default_site = "casino.otp.StaffOTPAdminSite"
