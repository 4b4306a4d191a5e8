"""Django's HTTP side under daphne, with one thread hop per request.

Every view and every middleware of the site is synchronous. Django's own
ASGI handler still runs the middleware in async mode: each middleware's
``process_request`` / ``process_response``, the ``request_started`` and
``request_finished`` signals and the view each cross from the event loop to
a worker thread and back, more than a dozen hops per request. Under load
those hops cost as much CPU as the view itself.

``SyncStackHandler`` reads the body on the event loop, then runs the whole
synchronous stack (signals, middleware, view, and closing the response,
which gives the database connection back) in one call on the request's own
thread, and sends the response from the event loop. Streaming responses (the
CSV export) are sent as Django sends them and closed afterwards.

Requests still run concurrently: Django's ``ThreadSensitiveContext`` gives
each request a thread of its own. At most ``CASINO_HTTP_CONCURRENCY``
requests per process run their stack at once; the others wait their turn on
the event loop, in arrival order. Under load that keeps a few threads busy
instead of a hundred fighting over the GIL (and over the database pool).
"""

from __future__ import annotations

import asyncio
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import HttpResponseBase
from django.urls import set_script_prefix


class SyncStackHandler(ASGIHandler):
    """An ASGI application serving Django's synchronous stack (see the module)."""

    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.slots = asyncio.Semaphore(settings.CASINO_HTTP_CONCURRENCY)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            async with self.slots:
                response = await sync_to_async(self._respond, thread_sensitive=True)(
                    scope, body_file
                )
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:
                pass  # the client went away while the response was sent
            finally:
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=True)()
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """The response to one request, run on the request's thread."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
        if not response.streaming:
            # The body is in memory: close now (request_finished gives the
            # database connection back) instead of in another hop.
            response.close()
        return response


def get_application() -> SyncStackHandler:
    django.setup(set_prefix=False)
    return SyncStackHandler()
