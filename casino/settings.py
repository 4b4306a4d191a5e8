"""Settings for the casino, read from the environment.

Development defaults are safe to run on one machine (SQLite, in-memory channel
layer); every value read from the environment is checked and a malformed one
stops start-up with a message naming the variable.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from cryptography.fernet import Fernet
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from casino import logs

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}"
    )


def envint(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}")
    return value


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} must list at least one value, comma-separated")
    return items


DEBUG = envbool("DJANGO_DEBUG", True)
# Under pytest unless told otherwise: the tests' own settings (no throttle on
# credential posts, plain static storage) apply; see CASINO_CREDENTIAL_POSTS.
TESTING = envbool("CASINO_TESTING", "pytest" in sys.modules)

# DJANGO_SECRET_KEY, else the key `make setup` keeps in db/secret_key
# (DJANGO_SECRET_KEY_FILE; made once by `manage.py make_secret_key`), else,
# in debug mode only, a development key: production refuses to start without one.
_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production-0123456789"  # noqa: S105
SECRET_KEY_FILE = Path(os.environ.get("DJANGO_SECRET_KEY_FILE") or BASE_DIR / "db" / "secret_key")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY and SECRET_KEY_FILE.is_file():
    SECRET_KEY = SECRET_KEY_FILE.read_text(encoding="ascii").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            f"(or a key kept in {SECRET_KEY_FILE}: manage.py make_secret_key)"
        )
    SECRET_KEY = _DEV_SECRET
elif len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be at least 50 characters long")

ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = (
    envlist("DJANGO_CSRF_TRUSTED_ORIGINS", [])
    if os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS")
    else []
)

INSTALLED_APPS = [
    "daphne",
    # django.contrib.admin, with an admin site that asks staff for their
    # second factor (casino/otp.py).
    "casino.otp.CasinoAdminConfig",
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
    # Request metrics for /metrics (casino/monitoring.py); the health
    # checks' library needs no app of its own.
    "django_prometheus",
]

MIDDLEWARE = [
    # Outermost: django-prometheus times and counts every request and answer.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # First: a credential post while the password-hash pool is full gets its
    # 429 before any other work (casino/frontdoor/throttle.py; under ASGI, casino/frontdoor/'s
    # CredentialDesk refuses a flood's posts earlier still, without a thread).
    "casino.frontdoor.throttle.HashesBusyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "casino.sessions.SessionTouchMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, so every credential post counts (its
    # process_view still sees request.user: every middleware's request part
    # has run by then).
    "casino.frontdoor.throttle.CredentialThrottleMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): the session gave a staff member's second factor.
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # An expired demo's requests: a new-demo page instead of the login page.
    "games.middleware.DemoSessionMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "casino.urls"

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

WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

# --- Database ---------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    import dj_database_url

    try:
        DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    except Exception as exc:  # dj_database_url raises several kinds
        raise ImproperlyConfigured(f"DATABASE_URL is malformed: {exc}") from None
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI every request may run on another thread: no persistent
        # connections, so one worker never holds many idle ones.
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        # Parameters bound by the server, and a statement run CASINO_DB_PREPARE
        # times on one connection (5, psycopg's default) prepared there: the
        # round's dozen statements are then no longer parsed and planned each
        # time, which took PostgreSQL's CPU per BET from about 2.2 to 1.5 ms
        # in one process, and per round about 40% in bench/load.py's runs. 0
        # binds on the server but prepares nothing (for a pooler that cannot
        # keep prepared statements across transactions).
        _prepare = envint("CASINO_DB_PREPARE", 5, minimum=0)
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=_prepare or None
        )
        # Opening a connection per request cost about a third of the whole
        # stack's CPU per round in the load test (bench/load.py): a new
        # PostgreSQL backend every time. CASINO_DB_POOL=N keeps up to N
        # connections per process in psycopg's pool instead (needs the
        # psycopg-pool package); 0, the default, keeps one per request.
        _pool = envint("CASINO_DB_POOL", 0, minimum=0)
        if _pool:
            try:
                import psycopg_pool  # noqa: F401
            except ImportError:
                raise ImproperlyConfigured(
                    "CASINO_DB_POOL needs the psycopg-pool package (pip install psycopg-pool)"
                ) from None
            DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
                "min_size": min(2, _pool),
                "max_size": _pool,
                "timeout": 10,  # seconds to wait for a free connection
                # (Django's pool already checks a connection as it leaves the pool.)
            }
        # CASINO_DB_HEALTH_CHECKS=1: a connection is checked (an empty query)
        # as it leaves the pool, or as a kept one is first used for a request
        # (Django's CONN_HEALTH_CHECKS). For the HTTP workers: after PostgreSQL
        # restarts, a pooled connection it ended would otherwise answer the
        # next request on it with a 500, up to CASINO_DB_POOL of them a worker.
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = bool(
            envint("CASINO_DB_HEALTH_CHECKS", 0, minimum=0)
        )
        # CASINO_DB_CONN_MAX_AGE=S: each thread keeps its connection S seconds
        # (Django's CONN_MAX_AGE), for a process whose database work runs on a
        # few long-lived threads: a websocket worker's socket threads
        # (CASINO_SOCKET_THREADS) and asgiref's one sync thread. After
        # PostgreSQL ends its connections (a restart), each thread fails one
        # round and replaces its connection (Django closes a connection that
        # raised once it no longer answers), where an unchecked pool handed
        # out each dead one in turn; a round also no longer takes a pooled
        # connection and gives it back (about 30 us of CPU a round). Never for
        # a process that serves pages under ASGI, where each request may run
        # on a thread of its own (each would keep a connection).
        _max_age = envint("CASINO_DB_CONN_MAX_AGE", 0, minimum=0)
        if _max_age:
            if _pool:
                raise ImproperlyConfigured(
                    "CASINO_DB_CONN_MAX_AGE keeps each thread's own connection: "
                    "set CASINO_DB_POOL=0 with it"
                )
            DATABASES["default"]["CONN_MAX_AGE"] = _max_age
else:
    SQLITE_PATH = os.environ.get("CASINO_SQLITE_PATH", str(BASE_DIR / "db" / "casino.sqlite3"))
    Path(SQLITE_PATH).parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": SQLITE_PATH,
            # WAL alone still gave "database is locked" under concurrent
            # writes; IMMEDIATE transactions take the write lock up front.
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
            "TEST": {
                "NAME": os.environ.get(
                    "CASINO_SQLITE_TEST_PATH", str(BASE_DIR / "db" / "test.sqlite3")
                )
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels ---------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if REDIS_URL:
    if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            f"REDIS_URL must start with redis://, rediss:// or unix://; got {REDIS_URL!r}"
        )
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default, the
                # same 5 s channels_redis blocks in BZPOPMIN waiting for a
                # message: an idle socket's consumer then dies with "Timeout
                # reading from ..." (redis/redis-py#4091). Read for longer
                # than the blocking pop; connect quickly or fail.
                # redis-py 8 also caps a pool at 100 connections (it had no cap
                # before): under load a worker's group_add/group_send burst
                # past it with MaxConnectionsError (a 500 after a committed
                # War DEAL, consumers crashing with code 1011).
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 15,
                        "socket_connect_timeout": 5,
                        "max_connections": 1000,
                    }
                ],
                # Every socket of one websocket worker shares one Redis key, and
                # group_send silently drops a message (an INFO log line) when
                # that key holds `capacity` messages. The default 100 lost
                # reveals in the load test once a busy worker fell ~100
                # messages behind; a late push is better than a lost one.
                "capacity": 2000,
            },
        }
    }
    # One cache for every process of the cluster: the credential throttle's
    # counters (casino/frontdoor/throttle.py) and axes' must be shared to mean anything.
    CACHES = {
        "default": {
            "BACKEND": "casino.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "casino",
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # One process (make run): its own memory is the whole site's cache.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Auth -------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Argon2id at OWASP's floor first (casino/frontdoor/hash_pool.py: chosen on measurement,
# docs/front-door.md); passwords stored with other Argon2 parameters, PBKDF2
# or scrypt still verify and are hashed again with it at the next log-in.
# Every hasher here runs its hashes in casino/frontdoor/hash_pool.py's pool.
PASSWORD_HASHERS = [
    "casino.frontdoor.hash_pool.Argon2Hasher",
    "casino.frontdoor.hash_pool.PBKDF2Hasher",
    "casino.frontdoor.hash_pool.PBKDF2SHA1Hasher",
    "casino.frontdoor.hash_pool.ScryptHasher",
]
# Password hashes running at once in one process (casino/frontdoor/hash_pool.py): half
# the cores by default, so the other half serves the players; at most
# CASINO_HASHES_WAITING more wait for a place (a sign-up burst queues for a
# few hashes' time), and any beyond those get a 429 at once, nothing hashed.
CASINO_HASHES_AT_ONCE = envint(
    "CASINO_HASHES_AT_ONCE", max(1, (os.cpu_count() or 2) // 2), minimum=1
)
CASINO_HASHES_WAITING = envint("CASINO_HASHES_WAITING", 4 * CASINO_HASHES_AT_ONCE, minimum=0)
# Requests inside Django at once in one ``make run`` process (casino/frontdoor/'s
# PageSeats): Django's ASGI handler gives every request a thread of its own,
# and all of them share one interpreter lock with the players' rounds, so a
# flood of page views (each a thread) slowed every round. One more than the
# hashes at once, so the log-ins hashing never hold every seat; at most
# CASINO_PAGES_WAITING more wait on the event loop, and any beyond those get
# the "site is busy" page at once. (The cluster's gunicorn caps its own:
# workers times threads.)
CASINO_PAGES_AT_ONCE = envint("CASINO_PAGES_AT_ONCE", CASINO_HASHES_AT_ONCE + 1, minimum=1)
CASINO_PAGES_WAITING = envint("CASINO_PAGES_WAITING", 64, minimum=0)
# Of the seats, visitors (no signed-in session) hold at most this many at once,
# as many as the hashes at once: a flood of strangers' page views runs on
# that many threads, and the players' requests take the seat left over.
CASINO_PAGES_VISITORS_AT_ONCE = envint(
    "CASINO_PAGES_VISITORS_AT_ONCE", CASINO_HASHES_AT_ONCE, minimum=1
)
# Of those places, inside and waiting, one client holds at most this many (a
# signed-in session, or a visitor's address): a browser opens six connections
# to a site at most, and one script with a free account filled the players'
# whole line.
CASINO_PAGES_PER_CLIENT = envint("CASINO_PAGES_PER_CLIENT", 8, minimum=1)
# The hashing threads' nice value (0-19): a hash takes the CPU the players'
# requests leave. A process already nicer (the cluster's login worker) keeps its own.
CASINO_HASH_NICE = envint("CASINO_HASH_NICE", 10, minimum=0)
if CASINO_HASH_NICE > 19:
    raise ImproperlyConfigured(f"CASINO_HASH_NICE must be at most 19; got {CASINO_HASH_NICE}")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "login"

AXES_FAILURE_LIMIT = envint("CASINO_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = 0.25  # hours
# A username from one address, and an address whatever the usernames: failed
# logins spread over many usernames lock the address after
# CASINO_ADDRESS_FAILURE_LIMIT of them (casino/frontdoor/lockout.py).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "casino.frontdoor.lockout.AddressLockoutHandler"
CASINO_ADDRESS_FAILURE_LIMIT = envint("CASINO_ADDRESS_FAILURE_LIMIT", 20, minimum=1)
# Anonymous credential posts (login, sign-up, the admin's login) per client
# address per minute, counted in the cache before any password is hashed
# (casino/frontdoor/throttle.py); more get a 429. The cluster's nginx applies the same
# rate in front (ops/cluster.sh). 0 turns the Django check off (the tests
# do, except the throttle's own).
CASINO_CREDENTIAL_POSTS = envint("CASINO_CREDENTIAL_POSTS", 0 if TESTING else 10, minimum=0)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

# Staff (superusers too) give a code from an authenticator app after their
# password before the admin or any other player's data opens to them
# (casino/otp.py); on by default whenever debug is off. A wrong code counts as
# a failed login with axes.
CASINO_STAFF_OTP = envbool("CASINO_STAFF_OTP", not DEBUG)
OTP_TOTP_ISSUER = "The Casino"  # the account's name in the authenticator app
# The admin's device pages never show a device's key (nor its QR code) to
# another operator: enrolment shows it once, to its owner.
OTP_ADMIN_HIDE_SENSITIVE_DATA = True

# Sessions end after an hour without activity.
SESSION_COOKIE_AGE = envint("CASINO_SESSION_SECONDS", 3600, minimum=60)
# Written when changed, or when the idle clock is over a minute old
# (casino/sessions.py), not on every request.
SESSION_ENGINE = "casino.sessions"
SESSION_SAVE_EVERY_REQUEST = False
# Sessions read from the cache and written through to the database (as
# Django's cached_db engine): on by default where the cache is Redis, shared
# by every process (the cluster); the tests keep the database alone, as they
# change stored sessions directly.
CASINO_SESSION_CACHE = envbool("CASINO_SESSION_CACHE", bool(REDIS_URL) and not TESTING)

# --- I18n -------------------------------------------------------------------
# Japanese, the language of the rule pages, is the fallback; the browser's
# Accept-Language decides first.
LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static -----------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "casino.storage.ModuleManifestStaticFilesStorage"
    },
}

# Hashed names with far-future caching (whitenoise) whenever DEBUG is off,
# the imports inside the site's ES modules too (casino/storage.py): `make
# setup` collects them (collectstatic) into STATIC_ROOT.

# --- Security ---------------------------------------------------------------
# Request bodies: the largest form the site has is a few kilobytes; nginx
# refuses bigger bodies in the cluster (client_max_body_size) with the same
# limit, and under ASGI casino/frontdoor/ answers 413 before reading more.
CASINO_MAX_BODY_BYTES = envint("CASINO_MAX_BODY_BYTES", 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = CASINO_MAX_BODY_BYTES
# Websockets one client address may hold open at once per server process
# (casino/frontdoor/; the cluster's nginx counts across its workers too): a
# household behind one NAT with a few players and tabs, not one machine
# holding thousands. 0: no cap.
CASINO_SOCKETS_PER_ADDRESS = envint("CASINO_SOCKETS_PER_ADDRESS", 20, minimum=0)
# Table sockets one player may hold open at once per server process
# (games/consumers/session.py): one free account opened 2,000 from 200
# addresses, ten from each, under the cap above. 0: no cap.
CASINO_SOCKETS_PER_PLAYER = envint("CASINO_SOCKETS_PER_PLAYER", 20, minimum=0)
# Messages a table socket takes from its page (games/consumers/limits.py): a
# few a second on average, bursts of a dozen (fast taps, a peel's answers).
CASINO_SOCKET_MESSAGES_PER_SECOND = float(os.environ.get("CASINO_SOCKET_MESSAGES_PER_SECOND", "4"))
CASINO_SOCKET_MESSAGE_BURST = envint("CASINO_SOCKET_MESSAGE_BURST", 12, minimum=1)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content Security Policy (django-csp). Every script is a file served from
# this origin (htmx and its ws extension included); templates carry no inline
# <script>, no on*= handlers and no hx-on, and htmx runs with allowEval off
# (templates/base.html's htmx-config meta), so no 'unsafe-inline' or
# 'unsafe-eval' for scripts. Stylesheets are files too (htmx's injected
# indicator <style> is turned off by the same meta tag); NONCE stays in both
# lists for a template that truly needs an inline block
# (nonce="{{ request.csp_nonce }}"), and django-csp only sends it when a
# template used it. Style *attributes* are allowed: the tables position cards,
# chips and road cells with CSS custom properties (style="--delay: .35s"),
# which a stylesheet cannot carry per element; an injected style attribute can
# restyle a page but run nothing. connect-src 'self' covers the same-origin
# websocket (CSP3 'self' matches ws:/wss: on the page's host and port).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "media-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
if not DEBUG:
    SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = envbool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = envbool("DJANGO_SECURE_COOKIES", True)

# --- The casino's own settings ---------------------------------------------
# Worker threads per socket server process for the sockets' reads and renders
# (games/consumers/threads.py). One by default: the process has one GIL, and
# every query's answer waits for it, so more threads mostly wait for each
# other. HTTP scales with gunicorn's processes (HTTP_WORKERS in the cluster).
CASINO_SOCKET_THREADS = envint("CASINO_SOCKET_THREADS", 1, minimum=1)
# Connections to Redis each socket worker's event loop opens at most for the
# reveal marks and socket counts (games/services/reveal_marks.py); a write
# past them waits for one.
CASINO_SOCKET_REDIS_CONNECTIONS = envint("CASINO_SOCKET_REDIS_CONNECTIONS", 50, minimum=1)
# Amounts are in chips here; the wallet stores minor units (1 chip = 100).
CASINO_STARTING_CHIPS = envint("CASINO_STARTING_CHIPS", 10_000, minimum=0)
CASINO_DAILY_TOPUP_CHIPS = envint("CASINO_DAILY_TOPUP_CHIPS", 1_000, minimum=0)
# Demo accounts a client address may start per hour (games/services/demo.py);
# 0 turns the limit off (the tests do, except the limit's own).
CASINO_DEMO_STARTS = envint("CASINO_DEMO_STARTS", 0 if TESTING else 30, minimum=0)
# Seconds between two cards of the reveal (normal and fast-forward).
CASINO_REVEAL_DELAY = float(os.environ.get("CASINO_REVEAL_DELAY", "0.6"))
CASINO_REVEAL_FAST_DELAY = float(os.environ.get("CASINO_REVEAL_FAST_DELAY", "0.1"))
# An open socket re-reads its session this often (and at its expiry), and is
# closed once the session is gone (games/consumers/session.py).
CASINO_SOCKET_SESSION_CHECK = float(os.environ.get("CASINO_SOCKET_SESSION_CHECK", "60"))
# A Baccarat socket that connects sends the result of the player's latest
# round at its table settled this many seconds ago or less, if no socket
# finished showing it (games/consumers/baccarat.py: a reveal cut off by a
# dropped socket ends on its result after the page reconnects).
CASINO_REVEAL_RESUME_SECONDS = envint("CASINO_REVEAL_RESUME_SECONDS", 120, minimum=1)

# Server seeds are sealed at rest with these Fernet keys (games/sealing.py):
# the first seals, each one opens. Unset: one key derived from SECRET_KEY
# (and one from each SECRET_KEY_FALLBACKS). Rotation: docs/security.md.
CASINO_SEED_KEYS = envlist("CASINO_SEED_KEYS", [])
for _key in CASINO_SEED_KEYS:
    try:
        Fernet(_key)
    except ValueError:
        raise ImproperlyConfigured(
            "CASINO_SEED_KEYS must list Fernet keys (32 url-safe base64 bytes), comma-separated"
        ) from None
# Error reports (with debug on, the technical 500 page; with it off, the
# mail to ADMINS) never show a server seed or a sealed one: casino/reporting.py.
DEFAULT_EXCEPTION_REPORTER_FILTER = "casino.reporting.SeedSafeExceptionReporterFilter"

# --- Monitoring (docs/monitoring.md) ---------------------------------------
# /metrics answers only `Authorization: Bearer <this>`; unset, it is a 404
# for everyone. PROMETHEUS_MULTIPROC_DIR (read by prometheus_client itself)
# makes every process of a server program write its metrics to one folder,
# so one scrape sees them all.
CASINO_METRICS_TOKEN = os.environ.get("CASINO_METRICS_TOKEN", "").strip()
if CASINO_METRICS_TOKEN and len(CASINO_METRICS_TOKEN) < 32:
    raise ImproperlyConfigured("CASINO_METRICS_TOKEN must be at least 32 characters long")
# The load balancer and Prometheus ask on plain http inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]

# --- Logs -------------------------------------------------------------------
# JSON lines on standard error (casino/logs.py), each with the request's id,
# the user's id and the round's id, and no secret in any of them.
# django-structlog's middleware names each request; it comes right after the
# hash pool's fast 429, which must stay the first thing a request meets.
INSTALLED_APPS.append("django_structlog")
MIDDLEWARE.insert(
    MIDDLEWARE.index("casino.frontdoor.throttle.HashesBusyMiddleware") + 1,
    "django_structlog.middlewares.RequestMiddleware",
)
LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "INFO").strip().upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"DJANGO_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL; got {LOG_LEVEL!r}"
    )
LOGGING = logs.logging_config(LOG_LEVEL)
logs.configure_structlog()
# One line a request, when it ends (its start only at DEBUG); the client's
# address is the one the site counts (casino/logs.py), not a forwarded header
# any client may write, and a request id sent by a client is not believed.
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = False

# --- Rotating the secret key -------------------------------------------------
# DJANGO_SECRET_KEY_FALLBACKS: the previous secret keys, comma-separated, while
# a new DJANGO_SECRET_KEY takes over (docs/operations.md): sessions, password
# reset links and the server seeds sealed with a key derived from an old one
# (games/sealing.py) stay readable until they are renewed.
SECRET_KEY_FALLBACKS = envlist("DJANGO_SECRET_KEY_FALLBACKS", [])
if any(len(key) < 50 for key in SECRET_KEY_FALLBACKS):
    raise ImproperlyConfigured("DJANGO_SECRET_KEY_FALLBACKS must list keys of 50+ characters")
