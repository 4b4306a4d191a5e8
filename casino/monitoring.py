"""Health and metrics endpoints for the load balancer and Prometheus
(docs/monitoring.md).

* ``/healthz``: the process answers (no dependency touched).
* ``/readyz``: the database, the cache (Redis in the cluster), the channel
  layer and the migrations, checked by django-health-check.
* ``/metrics``: Prometheus' text format, django-prometheus' request metrics
  and the casino's own (casino/metrics.py), only to
  ``Authorization: Bearer $CASINO_METRICS_TOKEN``; any other request, and
  every request while the token is unset, gets the site's plain 404.

Neither health page says more than ``ok`` or ``unavailable``: which check
failed and why goes to the log, never to whoever asked (a version, a host
name or a driver's message is a gift to an attacker).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import logging
import os
from collections.abc import Iterator

from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import Http404, HttpRequest, HttpResponse
from health_check.base import HealthCheck
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

# The cache key under which ``audit_ledger`` leaves its last result.
AUDIT_KEY = "monitoring:ledger-audit"


@dataclasses.dataclass
class ChannelLayer(HealthCheck):
    """A message sent on the channel layer comes back (Redis in the cluster):
    without it no reveal reaches a player."""

    async def run(self) -> None:
        layer = get_channel_layer()
        if layer is None:
            raise ServiceUnavailable("no channel layer")
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "health.check"})
        message = await asyncio.wait_for(layer.receive(channel), 3)
        if message.get("type") != "health.check":
            raise ServiceUnavailable("the channel layer returned another message")


@dataclasses.dataclass
class Migrations(HealthCheck):
    """Every migration on disk is applied: a worker started before
    ``migrate`` finished would serve a schema it does not know."""

    # Sync, so the library runs it on a thread: the migration loader is sync.
    def run(self) -> None:  # type: ignore[override]
        connection = connections[DEFAULT_DB_ALIAS]
        try:
            executor = MigrationExecutor(connection)
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        finally:
            # Run on the executor's thread: its connection would stay open.
            connection.close()
        if plan:
            raise ServiceUnavailable(f"{len(plan)} migration(s) not applied")


class QuietHealthCheckView(HealthCheckView):
    """django-health-check's checks, answered as ``ok`` (200) or
    ``unavailable`` (503) in plain text; the failures go to the log."""

    async def get(self, request, *args, **kwargs) -> HttpResponse:  # type: ignore[override]  # async, as the library's
        with self.get_executor() as executor:
            results = await asyncio.gather(
                *(check.get_result(executor) for check in self.get_checks())
            )
        failed = [result for result in results if result.error]
        for result in failed:
            logger.warning("%s: %s", repr(result.check), result.error)
        return HttpResponse(
            "unavailable\n" if failed else "ok\n",
            status=503 if failed else 200,
            content_type="text/plain; charset=utf-8",
        )


healthz = QuietHealthCheckView.as_view(checks=())
readyz = QuietHealthCheckView.as_view(
    checks=(
        "health_check.checks.Database",
        "health_check.checks.Cache",
        ChannelLayer,
        Migrations,
    )
)


class LedgerAuditCollector(Collector):
    """The last ``audit_ledger`` result, as the command left it in the cache
    (shared by every process of the cluster). Nothing before the first run."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            audit = cache.get(AUDIT_KEY)
        except Exception:  # the cache is down: /readyz says so; the rest still counts
            logger.warning("could not read the last ledger audit", exc_info=True)
            return
        if not isinstance(audit, dict):
            return
        yield GaugeMetricFamily(
            "casino_ledger_audit_ok",
            "1 when the last ledger audit found every wallet equal to its ledger rows, else 0.",
            value=1 if audit.get("ok") else 0,
        )
        yield GaugeMetricFamily(
            "casino_ledger_audit_wallets_off",
            "Wallets the last ledger audit found unequal to their ledger rows.",
            value=int(audit.get("wallets_off", 0)),
        )
        yield GaugeMetricFamily(
            "casino_ledger_audit_timestamp_seconds",
            "When the last ledger audit ran (Unix time).",
            value=float(audit.get("at", 0)),
        )


def record_audit(*, wallets_off: int, at: float) -> None:
    """Leave an audit's result for the metrics (kept a week: an audit that
    stops running shows as an old timestamp, then as none)."""
    cache.set(
        AUDIT_KEY,
        {"ok": wallets_off == 0, "wallets_off": wallets_off, "at": at},
        7 * 24 * 3600,
    )


def _registry() -> CollectorRegistry:
    """Every process of this server program (multiprocess mode), or this one."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


_audit_registry = CollectorRegistry(auto_describe=False)
_audit_registry.register(LedgerAuditCollector())


def _authorised(request: HttpRequest) -> bool:
    token = settings.CASINO_METRICS_TOKEN
    if not token:
        return False
    sent = request.headers.get("Authorization", "")
    scheme, _, credentials = sent.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(credentials.strip().encode(), token.encode())


def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus' text format, to the bearer of the metrics token only."""
    if not _authorised(request):
        raise Http404  # the site's own 404: nothing says a page is here
    body = generate_latest(_registry()) + generate_latest(_audit_registry)
    response = HttpResponse(body, content_type="text/plain; version=0.0.4; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
