"""A server process readied before its first request (casino.startup)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from django.urls import reverse

from casino.startup import FULL_COLLECTION_EVERY, prepare_process, site_templates, warm_up


def test_a_prepared_process_has_its_templates_loaded_and_its_start_up_frozen(client, db):
    thresholds = gc.get_threshold()
    try:
        prepare_process()
        # What start-up made is out of the collector's reach, and full
        # collections are spaced out.
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold()[2] == FULL_COLLECTION_EVERY
        # Every template of the site loads (a broken one would be logged and skipped).
        assert warm_up() == len(site_templates()) > 20
        assert client.get(reverse("login")).status_code == 200
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_the_asgi_process_is_readied_when_the_cluster_asks():
    """ops/cluster.sh starts its websocket workers with CASINO_GC_FREEZE=1:
    loading the ASGI application then readies and freezes the process."""
    probe = "import gc, casino.asgi; print(gc.get_freeze_count(), gc.get_threshold()[2])"
    env = {**os.environ, "CASINO_GC_FREEZE": "1"}
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, full_every = map(int, done.stdout.split()[-2:])
    assert frozen > 10_000 and full_every == FULL_COLLECTION_EVERY
