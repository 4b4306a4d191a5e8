"""What a table socket takes from its page: short JSON objects, and not too
many of them.

``read_message``: the page sends a few short actions; anything longer than
``MAX_MESSAGE_CHARS`` is not one of them, and deeply nested JSON would
exhaust the parser's recursion. Anything that is not a JSON object is dropped.

A page sends a handful of messages a round (BET, a peel's two answers, a
speed change). A token bucket per socket (``CASINO_SOCKET_MESSAGES_PER_SECOND``,
bursts of ``CASINO_SOCKET_MESSAGE_BURST``) lets a player tap as fast as a
hand can and refuses a script: a message over the budget is answered (a BET
with a message saying why) or dropped, and a socket that keeps sending
after ``MAX_REFUSED`` refusals is closed with ``CLOSE_CODE`` (the page's
ws extension opens it again, with a fresh budget, after its back-off).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

MAX_MESSAGE_CHARS = 4096  # the longest action a page sends (a BET) is well under 1,000


def read_message(text_data: str | None) -> dict[str, Any] | None:
    """The page's message as a dict, or None for anything that is not one."""
    if not text_data or len(text_data) > MAX_MESSAGE_CHARS:
        return None
    try:
        message = json.loads(text_data)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def text_field(message: dict[str, Any], name: str) -> str:
    """A field the page sends as text; anything else (a number, a list, an
    object) is as good as missing."""
    value = message.get(name)
    return value if isinstance(value, str) else ""


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
