"""The site's URLs: Django's own auth views, the admin (``admin.site`` is
casino.otp's ``StaffOTPAdminSite``), staff's second factor and the games."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from casino import monitoring
from games.views import staff_otp
from games.views.play_safe import PlaySafeLoginForm


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico on pages that name no icon (a PDF, a
    raw CSV): send them to the site's icon, under its hashed name."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon),
    # The load balancer's and Prometheus' (casino/monitoring.py).
    path("healthz", monitoring.healthz, name="healthz"),
    path("readyz", monitoring.readyz, name="readyz"),
    path("metrics", monitoring.metrics, name="metrics"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(authentication_form=PlaySafeLoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Staff only: the authenticator app's code after the password (casino/otp.py).
    path("accounts/staff/code/", staff_otp.verify, name="staff_otp_verify"),
    path("accounts/staff/enroll/", staff_otp.enroll, name="staff_otp_enroll"),
    path("log/", include("commitlog.urls")),  # the public commitment log
    path("", include("games.urls")),
]
