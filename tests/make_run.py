"""Serving the site in tests as ``make run`` does, with the benches' own
helpers (bench/stack.py): its server command read from the Makefile (``make
-n run``) so the tests follow it when its server or limits change,
production settings on a fresh file, its set-up steps, and a server
subprocess for the length of a block."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bench.stack import Server, free_port, make_run_command, production_env
from bench.stack import set_up as set_up_site

__all__ = ["free_port", "make_run_command", "production_env", "serving", "set_up_site"]


@contextmanager
def serving(
    command: list[str], env: dict[str, str], port: int, *, seconds: float = 120
) -> Iterator[str]:
    """``command`` in a subprocess until the block ends; the block starts
    once the server answers on ``port`` (its URL is yielded)."""
    try:
        server = Server(command, env, f"http://127.0.0.1:{port}", seconds)
    except SystemExit as exc:  # a test's error, not the end of pytest
        raise RuntimeError(str(exc)) from None
    try:
        yield server.url
    finally:
        server.stop()
