"""Logs and monitoring (docs/monitoring.md)."""

from __future__ import annotations

import logging

from django.core.exceptions import ImproperlyConfigured

from casino import logs
from casino.settings.env import envstr

# JSON lines on standard error (casino/logs.py) with the request's, the
# user's and the round's ids, and no secret.
LOG_LEVEL = envstr("DJANGO_LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"DJANGO_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL; got {LOG_LEVEL!r}"
    )
LOGGING = logs.logging_config(LOG_LEVEL)
logs.configure_structlog()
# One line a request, when it ends; the client's address is the one the site
# counts (casino/logs.py), and a request id sent by a client is not believed.
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = False

# /metrics answers only `Authorization: Bearer <this>`; unset, a 404.
CASINO_METRICS_TOKEN = envstr("CASINO_METRICS_TOKEN")
if CASINO_METRICS_TOKEN and len(CASINO_METRICS_TOKEN) < 32:
    raise ImproperlyConfigured("CASINO_METRICS_TOKEN must be at least 32 characters long")
# The load balancer and Prometheus ask on plain http inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
