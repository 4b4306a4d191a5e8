"""What a table socket takes from its page: short JSON objects, and not too
many of them.

``read_message``: the page sends a few short actions; anything longer than
``MAX_MESSAGE_CHARS`` is not one of them, and deeply nested JSON would
exhaust the parser's recursion. Anything that is not a JSON object is dropped.

A page sends a handful of messages a round (BET, a peel's two answers, a
speed change). A token bucket per socket (the front door's ``TokenBucket``
at the rate of a player's actions at a table, ``pace.table_actions``, which
HTTP's BET, DEAL and decision keep per player) lets a player tap as fast as
a hand can and refuses a script: a message over the budget is answered (a
BET with a message saying why) or dropped, and a socket that keeps sending
after ``MAX_REFUSED`` refusals is closed with ``CLOSE_CODE`` (the page's
ws extension opens it again, with a fresh budget, after its back-off).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.utils import translation

from casino.frontdoor.limits import TokenBucket
from games.services import pace

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


class MessageBudget(TokenBucket):
    """A socket's messages: the front door's token bucket at the rate the
    settings give, closed after ``MAX_REFUSED`` refusals."""

    CLOSE_CODE = 4008  # policy violation (the websocket's 1008, in the application range)
    MAX_REFUSED = 50

    @classmethod
    def from_settings(cls) -> MessageBudget:
        return cls(pace.table_actions())

    @property
    def exhausted(self) -> bool:
        return self.refused > self.MAX_REFUSED

    @staticmethod
    def refusal() -> str:
        return str(pace.TOO_FAST)


async def over_budget(
    socket: Any, budget: MessageBudget, refused_answer: Callable[[str], str] | None
) -> bool:
    """Whether a message is over the socket's budget. Over it, a script that
    keeps going is cut off (``CLOSE_CODE``) and a player is told why by the
    table's own refusal (``refused_answer``, rendered in the socket's
    language; None: the message wanted no answer)."""
    if budget.take():
        return False
    if budget.exhausted:
        await socket.close(code=budget.CLOSE_CODE)  # a script, not a player
    elif refused_answer is not None:
        with translation.override(socket.language):
            refusal = refused_answer(budget.refusal())
        await socket.send(text_data=refusal)
    return True
