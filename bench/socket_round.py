"""CPU of one round played over the table's socket, in one process, without
the web server: the real ASGI application (origin check, session cookie,
auth, the consumers) driven by Channels' communicator, every round through
the real pipeline, its answer and every reveal frame rendered and sent.

Run from the repository root: ``.venv/bin/python bench/socket_round.py``.
It sets up its own throwaway SQLite database (WAL, as in production), or
uses ``DATABASE_URL`` (an empty PostgreSQL database it may migrate and
fill) and ``REDIS_URL`` (cache, sessions and channel layer) when they are
set, as the cluster does. The reveal's pauses are zero.

``--players P`` players (default 20) each hold both tables' sockets and
play ``--rounds R`` rounds (default 30), alternating the games, all at once.
The last line printed is one JSON object:

* ``cpu_ms_per_round``: this process's CPU time (every thread) over the
  play, divided by the rounds played: the share of a round that a socket
  worker spends, without the web server's own framing (the websocket worker's part of
  the cluster's ``stack_cpu_ms_per_round`` is this plus the server).
* ``baccarat_cpu_ms`` / ``war_cpu_ms``: the same, one game at a time.
* ``wall_ms_p50``: a round's wall time, BET to result, at that concurrency.

Profile it with py-spy: ``py-spy record -o prof.svg -- .venv/bin/python
bench/socket_round.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import set_up_django

set_up_django(
    "bench-socket-round-",
    keep_database_url=True,
    CASINO_REVEAL_DELAY="0",
    CASINO_REVEAL_FAST_DELAY="0",
    # A player here sends a round's messages back to back: no per-socket budget.
    CASINO_TABLE_ACTIONS_PER_SECOND="0",
)

from channels.db import database_sync_to_async  # noqa: E402
from channels.testing import WebsocketCommunicator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402

from bench.client import BAC_AREAS, BAC_PLACED, BAC_SLIP_ERROR, WAR_ROUND, WAR_SLIP_KEY  # noqa: E402
from casino.asgi import application  # noqa: E402
from games.models import Round, Table  # noqa: E402
from games.services.wallet import open_account  # noqa: E402

BACCARAT = "baccarat-classic"
WAR = "casino-war"
DONE = re.compile(r'id="bac-phase"[^>]*data-phase="done"')


def sign_up(n: int, run: str) -> str:
    """A player with the starting grant, logged in: the session cookie."""
    user = get_user_model().objects.create_user(f"sock-{run}-{n}", password="bench-Secret-123")
    open_account(user=user)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def open_socket(path: str, session_key: str) -> WebsocketCommunicator:
    cookie = f"{settings.SESSION_COOKIE_NAME}={session_key}; django_language=en"
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    socket = WebsocketCommunicator(
        application, path, headers=[*headers, (b"cookie", cookie.encode())]
    )
    connected, _ = await socket.connect()
    assert connected, path
    return socket


class Player:
    def __init__(self, session_key: str, rng: random.Random) -> None:
        self.session_key = session_key
        self.rng = rng
        self.war_key = ""
        self.version = ""  # the table's version the Baccarat page shows
        self.times: dict[str, list[float]] = {"baccarat": [], "war": []}

    async def sit_down(self) -> None:
        number = await database_sync_to_async(
            Table.objects.values_list("current_version__number", flat=True).get
        )(slug=BACCARAT)
        self.version = str(number)
        self.bac = await open_socket(f"/ws/baccarat/{BACCARAT}/", self.session_key)
        self.war = await open_socket(f"/ws/war/{WAR}/", self.session_key)
        self.war_key = f"{self.rng.getrandbits(64):016x}"

    async def baccarat(self) -> None:
        started = time.perf_counter()
        side = self.rng.choice(["player", "banker"])
        slip = dict.fromkeys(BAC_AREAS, "")
        slip[side] = "10"
        key = f"b-{self.rng.getrandbits(64):x}"
        message = {"action": "bet", **slip, "slip_key": key, "squeeze_visit": ""}
        message["table_version"] = self.version
        await self.bac.send_to(text_data=json.dumps(message))
        answer = await self.bac.receive_from(timeout=30)
        if BAC_PLACED.search(answer) is None:
            error = BAC_SLIP_ERROR.search(answer)
            raise RuntimeError(f"BET refused: {error.group(1) if error else answer[:200]}")
        while DONE.search(await self.bac.receive_from(timeout=30)) is None:
            pass
        self.times["baccarat"].append(time.perf_counter() - started)

    async def war_action(self, message: dict[str, str]) -> str:
        await self.war.send_to(text_data=json.dumps(message))
        while True:
            answer = await self.war.receive_from(timeout=30)
            if WAR_ROUND.search(answer):
                return answer

    async def war_round(self) -> None:
        started = time.perf_counter()
        answer = await self.war_action(
            {"action": "deal", "slip_key": self.war_key, "ante": "10", "tie_bet": "0"}
        )
        found = WAR_SLIP_KEY.search(answer)
        assert found is not None, answer[:300]
        self.war_key = found.group(1)
        found_round = WAR_ROUND.search(answer)
        assert found_round is not None
        status, round_id = found_round.groups()
        if status == "open":
            answer = await self.war_action(
                {"action": "decide", "round_id": round_id, "decision": "surrender"}
            )
        self.times["war"].append(time.perf_counter() - started)

    async def close(self) -> None:
        await self.bac.disconnect()
        await self.war.disconnect()


async def play(players: list[Player], rounds: int, games: tuple[str, ...]) -> float:
    """Every player plays ``rounds`` rounds of ``games`` in turn; the CPU seconds."""

    async def one(player: Player) -> None:
        for i in range(rounds):
            game = games[i % len(games)]
            await (player.baccarat() if game == "baccarat" else player.war_round())

    cpu = time.process_time()
    await asyncio.gather(*(one(p) for p in players))
    return time.process_time() - cpu


async def bench(players: int, rounds: int) -> dict:
    run = f"{random.getrandbits(32):x}"
    keys = [await database_sync_to_async(sign_up)(n, run) for n in range(players)]
    seated = [Player(key, random.Random(n)) for n, key in enumerate(keys)]
    for player in seated:
        await player.sit_down()
    await play(seated, 2, ("baccarat", "war"))  # warm up: templates, connections
    for player in seated:
        player.times = {"baccarat": [], "war": []}
    both = await play(seated, rounds, ("baccarat", "war"))
    bac = await play(seated, rounds // 2, ("baccarat",))
    war = await play(seated, rounds // 2, ("war",))
    for player in seated:
        await player.close()
    total = players * rounds
    walls = [t for p in seated for game in p.times.values() for t in game]
    count = await database_sync_to_async(
        Round.objects.filter(player__username__startswith=f"sock-{run}-").count
    )()
    expected = players * (rounds + 2 + 2 * (rounds // 2))
    assert count == expected, (count, expected)
    return {
        "cpu_ms_per_round": round(both * 1000 / total, 3),
        "baccarat_cpu_ms": round(bac * 1000 / (players * (rounds // 2)), 3),
        "war_cpu_ms": round(war * 1000 / (players * (rounds // 2)), 3),
        "wall_ms_p50": round(statistics.median(walls) * 1000, 1),
        "players": players,
        "rounds": total,
        "database": connections["default"].vendor,
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    settings.DEBUG = False
    call_command("setup_casino", verbosity=0)
    result = asyncio.run(bench(args.players, args.rounds))
    print(
        f"socket round: {result['cpu_ms_per_round']} ms CPU "
        f"(Baccarat {result['baccarat_cpu_ms']}, War {result['war_cpu_ms']}), "
        f"{result['players']} players, {result['database']}"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
