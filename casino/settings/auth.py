"""Sign-in, staff's second factor and sessions."""

from __future__ import annotations

from casino.settings.base import DEBUG, TESTING
from casino.settings.database import REDIS_URL
from casino.settings.env import envbool, envint

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "login"

# Staff (superusers too) give a code from an authenticator app after their
# password before the admin or another player's data opens (casino/otp.py).
CASINO_STAFF_OTP = envbool("CASINO_STAFF_OTP", not DEBUG)
OTP_TOTP_ISSUER = "The Casino"  # the account's name in the authenticator app
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # a device's key is shown once, to its owner

# A session ends after this long without activity; it is written when changed
# or when its idle clock is over a minute old (casino/sessions.py).
SESSION_COOKIE_AGE = envint("CASINO_SESSION_SECONDS", 3600, minimum=60)
SESSION_ENGINE = "casino.sessions"
SESSION_SAVE_EVERY_REQUEST = False
# Sessions read from the cache and written through to the database, where the
# cache is Redis (shared by every process); the tests change stored sessions
# directly, so they keep the database alone.
CASINO_SESSION_CACHE = envbool("CASINO_SESSION_CACHE", bool(REDIS_URL) and not TESTING)
