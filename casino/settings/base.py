"""Django itself: the apps, the middleware in the order a request meets it,
templates, languages and static files."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from django.utils.translation import gettext_lazy as _

from casino.settings.env import envbool, envstr

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = envbool("DJANGO_DEBUG", True)
# Under pytest unless told otherwise: the tests' own settings apply (no
# credential throttle or demo limit but their own tests', plain static storage).
TESTING = envbool("CASINO_TESTING", "pytest" in sys.modules)

INSTALLED_APPS = [
    "daphne",
    "casino.otp.CasinoAdminConfig",  # django.contrib.admin asking staff for a second factor
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "template_partials",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "casino.apps.CasinoConfig",
    "games",
    "commitlog",
    "django_prometheus",  # request metrics for /metrics (casino/monitoring.py)
    "django_structlog",  # JSON log lines (casino/logs.py)
]

MIDDLEWARE = [
    # Outermost: django-prometheus times and counts every request and answer.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # A credential post while the hash pool is full: its 429 before any other work.
    "casino.frontdoor.throttle.HashesBusyMiddleware",
    "django_structlog.middlewares.RequestMiddleware",  # names each request in the logs
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "casino.sessions.SessionTouchMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, so every credential post counts.
    "casino.frontdoor.throttle.CredentialThrottleMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): staff's second factor
    "casino.otp.SecondFactorFirst",  # a staff session owing its code opens nothing else
    "django.contrib.messages.middleware.MessageMiddleware",
    "games.middleware.DemoSessionMiddleware",  # an expired demo: a new-demo page
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.casino",
            ],
        },
    },
]

# Japanese, the language of the rule pages, is the fallback; the browser's
# Accept-Language decides first.
LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# With debug off, hashed names with far-future caching, the imports inside
# the site's ES modules too (casino/storage.py), collected by `make setup`.
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Under pytest an empty folder of the tests' own: whitenoise reads every file
# of STATIC_ROOT each time a middleware chain is built (each test client), and
# make run's collected staticfiles/ (about 1,800 files) doubled the CPU of a
# view test. The servers the tests start (not under pytest) keep theirs.
STATIC_ROOT = Path(
    envstr("DJANGO_STATIC_ROOT")
    or (
        Path(tempfile.gettempdir()) / "casino-tests-static" if TESTING else BASE_DIR / "staticfiles"
    )
)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
# Every page, stylesheet and module names the hashed files alone: the
# unhashed copies are not kept (nor compressed: half of collectstatic's time).
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "casino.storage.ModuleManifestStaticFilesStorage"
    },
}
