"""Ready a server process before it takes requests, so the garbage
collector's pauses stay short.

CPython's cyclic garbage collector walks every tracked object of the oldest
generation in a full collection. A websocket worker holds about 165,000 of them
after it has served its first pages (Django, the apps, compiled templates,
translation catalogues). Under load (bench/load.py, 200 players on the
2-worker cluster) a full collection came every 15-20 s and stalled its worker
for 150-500 ms of wall time, with every request and reveal on that worker
waiting.

``prepare_process()`` loads what a worker would load on its first requests
anyway (URL patterns, the site's templates, both languages' catalogues),
collects once, and moves everything alive then into the collector's
permanent generation (``gc.freeze()``): later collections never walk those
objects again, only what the worker made since.

That still left full collections of 40,000-130,000 objects (the sockets, the
requests in flight) taking 60-135 ms of CPU every 15 s or so, while each
found only a few hundred objects of garbage. ``FULL_COLLECTION_EVERY`` spaces
them out: a full collection waits for that many collections of the middle
generation (about one a second under load) instead of Python's 10, so
cyclic garbage that reaches the oldest generation is kept a little longer
(minutes, a few megabytes at most) and a worker stalls every few minutes
instead of every 15 s.

Where it runs (``CASINO_GC_FREEZE=1``): the cluster's websocket workers,
which hold every open socket's objects (ops/cluster.sh; at 1,000 players
over the socket a worker without it made 7 full collections in a run,
0.5-1.8 s each, and 2 of at most 0.28 s with it); the gunicorn workers
when asked (casino/gunicorn_conf.py).
"""

from __future__ import annotations

import gc
import logging
import os
from pathlib import Path

from django.conf import settings
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.urls import get_resolver
from django.utils import translation

logger = logging.getLogger(__name__)

FULL_COLLECTION_EVERY = 200  # collections of the middle generation (Python's default: 10)


def site_templates() -> list[str]:
    """The names of the templates in the project's own template folders."""
    names = []
    for engine in settings.TEMPLATES:
        folders: list[str] = list(engine.get("DIRS", []))  # type: ignore[call-overload]  # settings are untyped
        for folder in folders:
            root = Path(folder)
            names += sorted(str(p.relative_to(root)) for p in root.rglob("*.html"))
    return names


def warm_up() -> int:
    """Load the URL patterns, the site's templates and every language's
    catalogue; returns how many templates were loaded."""
    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    loaded = 0
    for name in site_templates():
        try:
            get_template(name)
        except (TemplateDoesNotExist, TemplateSyntaxError):
            # A broken template shows its error on the page that uses it.
            logger.exception("template %s did not load at start-up", name)
            continue
        loaded += 1
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Baccarat")
    return loaded


def prepare_process() -> None:
    """Warm up, then freeze what is alive (see the module docstring)."""
    warm_up()
    gc.collect()
    gc.freeze()
    young, middle, _oldest = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def prepare_if_asked() -> None:
    """``prepare_process()`` in a process started with ``CASINO_GC_FREEZE=1``
    (the cluster's socket workers; gunicorn's workers when asked)."""
    if os.environ.get("CASINO_GC_FREEZE", "0") == "1":
        prepare_process()
