"""CPU the public commitment log adds to a round. The last line printed is
one JSON object.

Run from the repository root: ``.venv/bin/python bench/log_append.py``.
It sets up its own throwaway site (bench/throwaway.py; SQLite in WAL).

* ``leaf_ms``: the round's part: building a leaf (the pseudonym's HMAC,
  its bytes) and its INSERT in the round's transaction, as the difference
  between a transaction storing the next seed alone and one storing it with
  its leaf (interleaved, CPU time of this process, SQLite's included).
* ``integrate_per_leaf_ms``: the integrator's part, per leaf: placing a
  batch of pending leaves, keeping their hashes and signing one checkpoint.
* ``per_round_ms``: both; the target is at most 0.1 ms.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import set_up_django

_keys = tempfile.mkdtemp(prefix="bench-log-keys-")
set_up_django(
    "bench-log-",
    CASINO_LOG_KEY_FILE=f"{_keys}/log_key",
    CASINO_LOG_INTEGRATE_SECONDS="0",
)

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from commitlog.integrator import integrate  # noqa: E402
from commitlog.keys import make_key  # noqa: E402
from commitlog.leaves import pending_leaf  # noqa: E402
from games.cards import server_seed_hash  # noqa: E402
from games.models import Profile  # noqa: E402
from games.services.rounds import seeds_update  # noqa: E402
from games.services.wallet import new_server_seed_hex  # noqa: E402

ROUNDS = 200  # a pass: this many transactions of each kind
PASSES = 15
BATCH = 2000  # leaves per integration pass


def cpu_ms(fn, n: int) -> float:
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t0) * 1000 / n


def main() -> None:
    make_key(settings.CASINO_LOG_KEY_FILE)
    user = get_user_model().objects.create_user("bench-log")
    profile = Profile.objects.get(user=user)

    def next_seed_statements(with_leaf: bool) -> list:
        profile.next_server_seed = new_server_seed_hex()
        profile.nonce += 1
        update, leaf = seeds_update(profile, game="baccarat", table="baccarat-classic")
        return [update, leaf] if with_leaf else [update]

    def store(with_leaf: bool) -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            for sql, params in next_seed_statements(with_leaf):
                cursor.execute(sql, params)

    alone, with_leaf = [], []
    for _ in range(PASSES):
        alone.append(cpu_ms(lambda: store(False), ROUNDS))
        with_leaf.append(cpu_ms(lambda: store(True), ROUNDS))
    leaf_ms = statistics.median(w - a for w, a in zip(with_leaf, alone, strict=True))

    integrate()  # what the passes above left pending
    per_leaf = []
    for _ in range(3):
        with transaction.atomic(), connection.cursor() as cursor:
            for n in range(BATCH):
                commitment = server_seed_hash(n.to_bytes(32, "big"))
                sql, params = pending_leaf(commitment=commitment, nonce=n, player_pk=user.pk)
                cursor.execute(sql, params)
        t0 = time.process_time()
        integrate(batch=BATCH)
        per_leaf.append((time.process_time() - t0) * 1000 / BATCH)
    integrate_ms = statistics.median(per_leaf)
    result = {
        "leaf_ms": round(leaf_ms, 4),
        "seed_alone_ms": round(statistics.median(alone), 4),
        "integrate_per_leaf_ms": round(integrate_ms, 4),
        "per_round_ms": round(leaf_ms + integrate_ms, 4),
        "target_ms": 0.1,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
