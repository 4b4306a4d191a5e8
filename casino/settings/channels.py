"""The sockets: the channel layer and the socket workers' own knobs."""

from __future__ import annotations

from casino.settings.database import REDIS_URL
from casino.settings.env import envint

# Redis across the cluster's workers; one process's memory otherwise. redis-py
# 8 reads with a 5 s timeout, as long as channels_redis blocks waiting for a
# message, so an idle socket's consumer died (redis/redis-py#4091): read for
# longer. It also caps a pool at 100 connections, which a busy worker's
# group sends passed (a 500 after a committed DEAL). A worker's messages past
# `capacity` are dropped: the default 100 lost reveals under load.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [
                {
                    "address": REDIS_URL,
                    "socket_timeout": 15,
                    "socket_connect_timeout": 5,
                    "max_connections": 1000,
                }
            ],
            "capacity": 2000,
        },
    }
    if REDIS_URL
    else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
}

# Threads per socket worker for the sockets' reads and renders
# (games/consumers/threads.py): one, as the process has one GIL.
CASINO_SOCKET_THREADS = envint("CASINO_SOCKET_THREADS", 1, minimum=1)
# Redis connections per socket worker for the reveal marks and socket counts.
CASINO_SOCKET_REDIS_CONNECTIONS = envint("CASINO_SOCKET_REDIS_CONNECTIONS", 50, minimum=1)
