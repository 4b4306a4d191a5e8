"""Server time of one Baccarat round, against a floor, and the cost of the
table page as a player's history grows. The last line printed is one JSON object.

Run from the repository root: ``.venv/bin/python bench/round.py``.
It sets up its own throwaway site (bench/throwaway.py; SQLite in WAL, as in production).

* ``round_ms``: median over 500 rounds of the BET request (session, auth,
  validation, shuffle, settle, ledger, the stored round, the reveal event on
  commit, BET's answer) plus rendering every reveal fragment the
  websocket would push for that round (as the consumer does).
* ``floor_ms``: the same harness on a baseline view that does one atomic
  wallet update and renders a tiny template.
* ``ratio``: round_ms / floor_ms (target <= 3).
* ``roads_ratio``: median render time of the table page for a player with
  100,000 stored rounds at the table over one with 100 (target <= 1.5).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import interleaved_medians, make_rounds, set_up_django, spread_rounds

# One player bets back to back here: no limit on a player's pace at the table.
set_up_django("bench-round-", CASINO_TABLE_ACTIONS_PER_SECOND="0")

from asgiref.sync import sync_to_async  # noqa: E402
from channels.db import database_sync_to_async  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.db import transaction  # noqa: E402
from django.db.models import F  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.template import engines  # noqa: E402
from django.test import AsyncClient, Client  # noqa: E402
from django.urls import include, path  # noqa: E402
from django.utils import translation  # noqa: E402
from django.views.decorators.http import require_POST  # noqa: E402

from games.models import Round, Table, Wallet  # noqa: E402
from games.presenters.baccarat import reveal_steps  # noqa: E402
from games.services.wallet import open_account  # noqa: E402

ROUNDS = 500
WARMUP = 30
PAGE_RENDERS = 60
BIG_HISTORY = 100_000
SMALL_HISTORY = 100
SLUG = "baccarat-classic"

_TINY = engines["django"].from_string('<span id="header-balance">{{ balance }}</span>')


@login_required
@require_POST
def floor(request: HttpRequest) -> HttpResponse:
    """The baseline: one atomic wallet update and a tiny template."""

    with transaction.atomic():
        Wallet.objects.filter(user=request.user).update(balance=F("balance"))
    balance = Wallet.objects.values_list("balance", flat=True).get(user=request.user)
    return HttpResponse(_TINY.render({"balance": balance}, request))


urlpatterns = [
    path("bench/floor/", floor),
    path("", include("casino.urls")),
]


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def player(username: str):

    user = get_user_model().objects.create_user(username, password="bench-Secret-123")
    open_account(user=user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return user, client


def bench_rounds() -> tuple[float, float]:
    """BET and the floor through the ASGI handler (as daphne serves them):
    sync views run in a worker thread, and the reveal event's group_send hops
    back to the event loop as it does in production."""
    return asyncio.run(_bench_rounds())


async def _bench_rounds() -> tuple[float, float]:

    user, sync_client = await sync_to_async(player)("bench-rounds")
    client = AsyncClient(headers={"Accept-Language": "en"})
    client.cookies = sync_client.cookies  # the same logged-in session
    bet_url = f"/baccarat/{SLUG}/bet/"
    htmx = {"headers": {"HX-Request": "true"}}
    await client.get(f"/baccarat/{SLUG}/")
    version = await database_sync_to_async(
        Table.objects.values_list("current_version__number", flat=True).get
    )(slug=SLUG)
    keys = (f"bench-{i}" for i in range(10**9))

    @database_sync_to_async
    def reveal(key: str) -> int:
        # What the consumer does with the reveal event.
        rnd = Round.objects.select_related("player", "table").get(player=user, slip_key=key)
        with translation.override("en"):
            return len(reveal_steps(rnd, table=rnd.table))

    async def one_round() -> float:
        # The slip is the browser's: BET sends it whole.
        key = next(keys)
        started = time.perf_counter()
        slip = {"slip_key": key, "banker": "10", "table_version": str(version)}
        response = await client.post(bet_url, slip, **htmx)
        steps = await reveal(key)
        elapsed = time.perf_counter() - started
        assert response.status_code == 200 and steps >= 6, response.content[:500]
        return elapsed

    async def one_floor() -> float:
        started = time.perf_counter()
        response = await client.post("/bench/floor/", **htmx)
        elapsed = time.perf_counter() - started
        assert response.status_code == 200
        return elapsed

    for _ in range(WARMUP):
        await one_round()
        await one_floor()
    rounds, floors = [], []
    for _ in range(ROUNDS):  # interleaved, so both see the same database and load
        rounds.append(await one_round())
        floors.append(await one_floor())
    count = await sync_to_async(Round.objects.filter(player=user).count)()
    assert count == ROUNDS + WARMUP, count
    return median_ms(rounds), median_ms(floors)


def bench_roads() -> tuple[float, float]:
    """The table page's median render for a player with SMALL_HISTORY
    Baccarat rounds at the table and for one with BIG_HISTORY."""
    clients = []
    for name, count in (("bench-small", SMALL_HISTORY), ("bench-big", BIG_HISTORY)):
        user, client = player(name)
        make_rounds([user], count, war_every=0)
        clients.append(client)
    spread_rounds(300)  # played over the past year, not all in this session

    def render(client: Client) -> None:
        assert client.get(f"/baccarat/{SLUG}/").status_code == 200

    small, big = interleaved_medians([partial(render, c) for c in clients], PAGE_RENDERS)
    return round(small, 3), round(big, 3)


def main() -> None:
    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False  # no query log: measure the code, not the debug wrapper
    round_ms, floor_ms = bench_rounds()
    small_ms, big_ms = bench_roads()
    result = {
        "round_ms": round_ms,
        "floor_ms": floor_ms,
        "ratio": round(round_ms / floor_ms, 2),
        "roads_ratio": round(big_ms / small_ms, 2),
        "roads_small_ms": small_ms,
        "roads_big_ms": big_ms,
        "rounds": ROUNDS,
        "history": [SMALL_HISTORY, BIG_HISTORY],
    }
    print(f"round (BET + reveal fragments): {round_ms} ms median over {ROUNDS}")
    print(f"floor (atomic wallet update + tiny template): {floor_ms} ms")
    print(f"table page: {small_ms} ms with {SMALL_HISTORY} rounds, {big_ms} ms with {BIG_HISTORY}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
