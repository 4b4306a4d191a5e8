"""gunicorn's settings for the cluster's HTTP workers (ops/cluster.sh).

    gunicorn -c python:casino.gunicorn_conf --bind 127.0.0.1:8100 \
        --forwarded-allow-ips 127.0.0.1 casino.wsgi:application

Sync workers: one request at a time per process, nginx buffering the slow
clients in front; HTTP_WORKERS processes (2 by default). No proxy is trusted
unless the command line names it (``--forwarded-allow-ips``): only then does
a worker take the client address from nginx's ``X-Forwarded-For``
(casino/wsgi.py), which the credential throttle and axes count.
"""

from __future__ import annotations

import os

from casino import logs

wsgi_app = "casino.wsgi:application"
workers = int(os.environ.get("HTTP_WORKERS", "2"))
worker_class = "sync"
forwarded_allow_ips = ""
timeout = 60
# gunicorn 27's control socket lives in the home folder by default, shared by
# every gunicorn of the user (a test cluster beside a running one): not used.
control_socket_disable = True
graceful_timeout = 10
# gunicorn's default of 4,094 bytes for the request line is enough; headers
# and bodies are bounded by nginx and DATA_UPLOAD_MAX_MEMORY_SIZE.


def post_worker_init(worker) -> None:
    """Each worker, once it has loaded the application: trust the proxies it
    was told to and, when asked, ready the process (casino/startup.py)."""
    # The worker has loaded the application by now; this config file is read before.
    from casino import wsgi  # noqa: PLC0415

    wsgi.application.trust(worker.cfg.forwarded_allow_ips)
    # Off by default: on this project's 2-core test machine, shared with other
    # work, bench/load.py showed no gain from it (200 paced players: p99 661 ms
    # without it, 4.8 s with it, at 71% and 100% machine load); measure again
    # on a quiet machine before turning it on (CASINO_GC_FREEZE=1).
    from casino.startup import prepare_if_asked  # noqa: PLC0415  (needs Django set up)

    prepare_if_asked()


def child_exit(server, worker) -> None:
    """A worker is gone: its live gauges leave the program's metrics
    (PROMETHEUS_MULTIPROC_DIR, docs/monitoring.md); its counters stay."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # noqa: PLC0415  (only in the cluster)

        multiprocess.mark_process_dead(worker.pid)


# gunicorn's own lines (workers booting, a worker timed out or killed) as
# JSON lines through the site's pipeline (casino/logs.py), like the
# application's; Django's settings are not loaded yet in the master, so
# without the mail to ADMINS here (each worker's Django adds it back).
_level = os.environ.get("DJANGO_LOG_LEVEL", "INFO").strip().upper() or "INFO"
logconfig_dict = logs.logging_config(_level, mail_admins=False)
logconfig_dict["loggers"].update(
    {
        "gunicorn.error": {"handlers": ["console"], "level": _level, "propagate": False},
        # A configured logger turns gunicorn's access lines on; the site's own
        # line per request (django-structlog's) says more, so they stay off.
        "gunicorn.access": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    }
)
