"""The front door's knobs (casino/frontdoor/). What each guard does with its
knob, and why the defaults are what they are: docs/front-door.md."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from casino.settings.base import TESTING
from casino.settings.env import envfloat, envint

_HALF_THE_CORES = max(1, (os.cpu_count() or 2) // 2)

# Body limit.
CASINO_MAX_BODY_BYTES = envint("CASINO_MAX_BODY_BYTES", 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = CASINO_MAX_BODY_BYTES
# Seconds a request's body may take to arrive in all (408 after).
CASINO_BODY_SECONDS = envfloat("CASINO_BODY_SECONDS", 30)

# Hash pool and credential desk.
PASSWORD_HASHERS = [
    "casino.frontdoor.hash_pool.Argon2Hasher",
    "casino.frontdoor.hash_pool.PBKDF2Hasher",
    "casino.frontdoor.hash_pool.PBKDF2SHA1Hasher",
    "casino.frontdoor.hash_pool.ScryptHasher",
]
CASINO_HASHES_AT_ONCE = envint("CASINO_HASHES_AT_ONCE", _HALF_THE_CORES, minimum=1)
CASINO_HASHES_WAITING = envint("CASINO_HASHES_WAITING", 4 * CASINO_HASHES_AT_ONCE, minimum=0)
CASINO_HASH_NICE = envint("CASINO_HASH_NICE", 10, minimum=0, maximum=19)

# Page seats (`make run`).
CASINO_PAGES_AT_ONCE = envint("CASINO_PAGES_AT_ONCE", CASINO_HASHES_AT_ONCE + 1, minimum=1)
CASINO_PAGES_WAITING = envint("CASINO_PAGES_WAITING", 64, minimum=0)
CASINO_PAGES_VISITORS_AT_ONCE = envint(
    "CASINO_PAGES_VISITORS_AT_ONCE", CASINO_HASHES_AT_ONCE, minimum=1
)
CASINO_PAGES_PER_CLIENT = envint("CASINO_PAGES_PER_CLIENT", 8, minimum=1)

# Credential throttle and demo starts, per client address (0: off; the tests
# turn both off but in their own tests).
CASINO_CREDENTIAL_POSTS = envint("CASINO_CREDENTIAL_POSTS", 0 if TESTING else 10, minimum=0)
CASINO_DEMO_STARTS = envint("CASINO_DEMO_STARTS", 0 if TESTING else 30, minimum=0)

# Lockout (django-axes, casino/frontdoor/lockout.py).
AXES_FAILURE_LIMIT = envint("CASINO_LOGIN_FAILURE_LIMIT", 5, minimum=1)
CASINO_ADDRESS_FAILURE_LIMIT = envint("CASINO_ADDRESS_FAILURE_LIMIT", 20, minimum=1)
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "casino.frontdoor.lockout.AddressLockoutHandler"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

# Sockets per address and per player (0: no cap).
CASINO_SOCKETS_PER_ADDRESS = envint("CASINO_SOCKETS_PER_ADDRESS", 20, minimum=0)
CASINO_SOCKETS_PER_PLAYER = envint("CASINO_SOCKETS_PER_PLAYER", 20, minimum=0)
# A player's actions at a table: each table socket's messages, and BET, DEAL
# and a War decision over HTTP per player (games/services/pace.py; 0: no
# limit, the tests' default but in their own tests).
CASINO_TABLE_ACTIONS_PER_SECOND = envfloat("CASINO_TABLE_ACTIONS_PER_SECOND", 0 if TESTING else 4)
CASINO_TABLE_ACTION_BURST = envint("CASINO_TABLE_ACTION_BURST", 12, minimum=1)
for _old, _new in (
    ("CASINO_SOCKET_MESSAGES_PER_SECOND", "CASINO_TABLE_ACTIONS_PER_SECOND"),
    ("CASINO_SOCKET_MESSAGE_BURST", "CASINO_TABLE_ACTION_BURST"),
):
    if _old in os.environ:  # renamed: never ignored without a word
        raise ImproperlyConfigured(f"{_old} is now {_new}: rename it in the environment")
