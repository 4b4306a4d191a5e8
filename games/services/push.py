"""Realtime events to a player's open tables, sent after the commit.

Every push goes through ``push``: it waits for the surrounding transaction
to commit (a rolled-back round never reaches a browser; outside a
transaction it sends at once), and a channel layer that is down costs only
the live update, never the player's answer: the page shows the stored state
anyway on its next load.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def baccarat_group(user_id: int) -> str:
    """The Channels group of one player's Baccarat sockets (every tab, every table)."""
    return f"baccarat-{user_id}"


def war_group(user_id: int) -> str:
    """The Channels group of one player's War sockets."""
    return f"war-{user_id}"


def push(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the current transaction commits."""
    transaction.on_commit(partial(send_now, group, event))


def send_now(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the layer is down: the stored state is shown on the next load
        logger.exception("could not push %s to %s", event.get("type"), group)
