"""The server command ``make run`` ends with, read from the Makefile itself
(``make -n run``), so the tests serve the site exactly as ``make run`` does
and follow it when its server or limits change."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_run_command(host: str, port: int) -> list[str]:
    """``make run``'s last command for ``host`` and ``port``, with this
    interpreter as its Python."""
    printed = subprocess.run(
        [
            shutil.which("make") or "make",
            "--no-print-directory",
            "-n",
            "run",
            f"HOST={host}",
            f"PORT={port}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    last = printed.replace("\\\n", " ").strip().splitlines()[-1]
    command = shlex.split(last)
    if command[0].endswith("/python"):
        command[0] = sys.executable
    return command
