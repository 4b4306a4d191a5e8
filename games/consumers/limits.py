"""How many messages a table socket takes from its page.

A page sends a handful of messages a round (BET, a peel's two answers, a
speed change). A token bucket per socket (``CASINO_SOCKET_MESSAGES_PER_SECOND``,
bursts of ``CASINO_SOCKET_MESSAGE_BURST``) lets a player tap as fast as a
hand can and refuses a script: a message over the budget is answered (a BET
with a message saying why) or dropped, and a socket that keeps sending
after ``MAX_REFUSED`` refusals is closed with ``CLOSE_CODE`` (the page's
ws extension opens it again, with a fresh budget, after its back-off).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext as _


@dataclass
class MessageBudget:
    rate: float  # messages a second, on average
    burst: int  # messages at once
    tokens: float = field(init=False)
    stamp: float = field(init=False)
    refused: int = 0

    CLOSE_CODE = 4008  # policy violation (the websocket's 1008, in the application range)
    MAX_REFUSED = 50

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)
        self.stamp = time.monotonic()

    @classmethod
    def from_settings(cls) -> MessageBudget:
        return cls(
            rate=settings.CASINO_SOCKET_MESSAGES_PER_SECOND,
            burst=settings.CASINO_SOCKET_MESSAGE_BURST,
        )

    def take(self) -> bool:
        """One message: True if it is within the budget."""
        now = time.monotonic()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False

    @property
    def exhausted(self) -> bool:
        return self.refused > self.MAX_REFUSED

    @staticmethod
    def refusal() -> str:
        return _("Too many actions at once. Wait a moment, then press BET again.")
