"""hypercorn's settings for ``make run``: one process serving pages and
sockets (casino/asgi.py), chosen on measurement (docs/front-door.md).

    hypercorn -c python:casino.hypercorn_conf --bind 127.0.0.1:8000 \
        --keep-alive 5 casino.asgi:application

The limits that are the server's own:

* ``keep_alive_timeout``: hypercorn starts this clock when a connection
  opens and stops it only once the whole request head is in, so a client
  that trickles its head (or sends nothing) is closed after it; an idle
  keep-alive connection is too. The Makefile passes ``--keep-alive
  $(HEAD_SECONDS)``.
* ``h11_max_incomplete_size``: a request head larger than this is refused.
* bodies: hypercorn hands the application a body as it arrives and stops
  reading while ``max_app_queue_size`` pieces wait, so casino/frontdoor/body_limit.py's 413
  comes after at most ``CASINO_MAX_BODY_BYTES`` were read;
  ``websocket_max_message_size`` bounds a socket's messages (64 KiB).

One worker: ``make run``'s channel layer and cache live in its memory.
"""

from __future__ import annotations

import logging

workers = 1
keep_alive_timeout = 5
h11_max_incomplete_size = 16 * 1024
max_app_queue_size = 10
# The browser sends small JSON messages (a peel, a decision: the consumers
# drop one over 4,096 characters); a bigger frame closes the socket (1009)
# before it is read whole, as the cluster's uvicorn does (--ws-max-size).
websocket_max_message_size = 64 * 1024
# A line per request on the terminal, as daphne printed.
# Its access and error lines go through the site's own log pipeline
# (casino/logs.py: JSON lines, secrets taken out, a path's seed included)
# instead of plain-text handlers of its own beside it.
accesslog = logging.getLogger("hypercorn.access")
errorlog = logging.getLogger("hypercorn.error")
