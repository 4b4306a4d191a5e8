"""Whether this interpreter can run the players: Locust and the client's
libraries are development requirements, which a ``.venv`` that ``make
cluster`` set up (the runtime requirements alone) lacks. Without them a run
would seat nobody; the benches stop first, with the reason. Only the
standard library here, so the check itself always runs."""

from __future__ import annotations

import importlib.util
import sys

NEEDED = {"locust": "locust", "requests": "requests", "websocket": "websocket-client"}


def missing() -> list[str]:
    return [name for module, name in NEEDED.items() if importlib.util.find_spec(module) is None]


def require(script: str) -> None:
    """Stop (exit 2) with the reason when the players cannot run here."""
    absent = missing()
    if absent:
        print(
            f"{script}: {', '.join(absent)} missing from {sys.executable}, which runs the "
            "players (Locust): install the development requirements (make .venv/.dev, or "
            "pip install --require-hashes -r requirements-dev.txt) and run it with that "
            "interpreter",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(2)
