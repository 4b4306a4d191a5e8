"""Settings for the casino, read from the environment, one module a concern.

Development defaults run on one machine (SQLite, the in-memory channel
layer). Each knob is one line read with casino/settings/env.py's helpers,
which stop start-up with a message naming a malformed variable. What each
variable does: docs/configuration.md; the front door's: docs/front-door.md.
"""

from __future__ import annotations

from casino.settings.auth import *  # noqa: F403
from casino.settings.base import *  # noqa: F403
from casino.settings.channels import *  # noqa: F403
from casino.settings.commitlog import *  # noqa: F403
from casino.settings.database import *  # noqa: F403
from casino.settings.frontdoor import *  # noqa: F403
from casino.settings.house import *  # noqa: F403
from casino.settings.logs import *  # noqa: F403
from casino.settings.security import *  # noqa: F403
