"""Django's HTTP side under daphne, with one thread hop per request.

Every view and every middleware of the site is synchronous. Django's own
ASGI handler still runs the middleware in async mode: each middleware's
``process_request`` / ``process_response``, the ``request_started`` and
``request_finished`` signals and the view each cross from the event loop to
a worker thread and back, more than a dozen hops per request, on a thread
started for that request alone. Under load those hops cost as much CPU as
the view itself.

``SyncStackHandler`` reads the body on the event loop, then runs the whole
synchronous stack in one call on a worker thread: the signals, the
middleware, the view, reading a streamed body (the CSV export) and closing
the response, which gives the database connection back. The event loop then
sends it as Django's own handler does.

The workers are a fixed pool of ``CASINO_HTTP_CONCURRENCY`` threads per
process (one by default), reused from request to request; requests beyond
that wait their turn on the event loop, in arrival order. Under load that
keeps one thread busy instead of many fighting over the GIL.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import HttpResponse, HttpResponseBase
from django.urls import set_script_prefix


class SyncStackHandler(ASGIHandler):
    """An ASGI application serving Django's synchronous stack (see the module)."""

    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.threads = settings.CASINO_HTTP_CONCURRENCY
        self.executor = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="http")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            respond = sync_to_async(self._respond, thread_sensitive=False, executor=self.executor)
            response = await respond(scope, body_file)
            await self.send_response(response, send)
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """The response to one request, whole in memory, on a worker thread."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
        try:
            if not response.streaming:
                return response
            # A streamed body (the CSV export's generator reads the database)
            # is read here, on this thread and its connection.
            whole = HttpResponse(
                b"".join(response), status=response.status_code, headers=response.headers
            )
            whole.cookies = response.cookies
            return whole
        finally:
            # request_finished: the database connection goes back.
            response.close()


def get_application() -> SyncStackHandler:
    django.setup(set_prefix=False)
    return SyncStackHandler()
