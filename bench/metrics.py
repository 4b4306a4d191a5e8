"""What Locust does not measure: the CPU of each part of the serving stack
(from /proc, live processes and their reaped children), the machine's busy
share and load average, and the ledger check against the server's database."""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = os.sysconf("SC_PAGE_SIZE")


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile (None for no values), for samples Locust does
    not take (an attack's answers, a server's checks); the players' own come
    from Locust's statistics."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


# ------------------------------------------------------------------ the ledger

LEDGER_CHECK = """
import json
from django.db.models import Q, Sum, Value
from django.db.models.functions import Coalesce
from games.models import LedgerEntry, Round, Wallet
balances = Wallet.objects.aggregate(s=Sum("balance"))["s"] or 0
live = Round.objects.exclude(status=Round.Status.VOID).aggregate(
    b=Sum("total_bet"), r=Sum("total_return"))
house_net = (live["b"] or 0) - (live["r"] or 0)
grants = LedgerEntry.objects.filter(kind__in=["grant", "topup", "adjustment"]).aggregate(
    s=Sum("amount"))["s"] or 0
moved = Round.objects.annotate(m=Coalesce(Sum("ledger_entries__amount"), Value(0)))
bad_live = sum(1 for r in moved.exclude(status=Round.Status.VOID).values("m", "total_bet",
    "total_return").iterator() if r["m"] != r["total_return"] - r["total_bet"])
bad_void = moved.filter(status=Round.Status.VOID).exclude(m=0).count()
import os
prefix = os.environ.get("LOAD_USER_PREFIX")
dealt = {}
if prefix:
    for name, pk in Round.objects.filter(game="baccarat", player__username__startswith=prefix
            ).values_list("player__username", "pk").iterator():
        dealt.setdefault(name, []).append(pk)
print(json.dumps({"dealt": dealt, "balances": balances, "house_net": house_net, "grants": grants,
    "rounds": Round.objects.count(), "open_rounds": Round.objects.filter(status="open").count(),
    "void_rounds": Round.objects.filter(status="void").count(),
    "round_mismatches": bad_live + bad_void, "wallets": Wallet.objects.count()}))
"""


def check_ledger(env: dict[str, str], user_prefix: str = "") -> dict:
    audit = subprocess.run(
        [sys.executable, "manage.py", "audit_ledger"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    sums = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", LEDGER_CHECK],
        cwd=ROOT,
        env={**env, "LOAD_USER_PREFIX": user_prefix},
        capture_output=True,
        text=True,
    )
    result: dict = {
        "audit_rc": audit.returncode,
        "audit": (audit.stdout.strip() or audit.stderr.strip())[-300:],
    }
    try:
        result.update(json.loads(sums.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        result["error"] = sums.stderr[-500:]
        result["ok"] = False
        return result
    result["identity_ok"] = result["balances"] + result["house_net"] == result["grants"]
    result["ok"] = (
        audit.returncode == 0 and result["identity_ok"] and result["round_mismatches"] == 0
    )
    return result


# ------------------------------------------------------------------ machine


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def processes() -> tuple[dict[int, list[str]], dict[int, list[int]]]:
    """Every live process's /proc stat fields (after the command) and each
    process's children."""
    stats: dict[int, list[str]] = {}
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry.name)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    return stats, children


def process_tree(roots: list[int], table=None) -> list[int]:
    """These processes and all their live descendants (PostgreSQL backends,
    gunicorn and nginx workers); ``table`` is ``processes()`` when read already."""
    stats, children = table or processes()
    out: list[int] = []
    todo = [p for p in roots if p in stats]
    while todo:
        pid = todo.pop()
        if pid not in out:
            out.append(pid)
            todo += children.get(pid, [])
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User+system CPU seconds of these processes and all their descendants,
    live or exited and reaped (the kernel adds those to their parent's
    children's times)."""
    table = processes()
    ticks = sum(int(x) for pid in process_tree(pids, table) for x in table[0][pid][11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_bytes(pids: list[int]) -> int | None:
    """Resident memory of these processes and their descendants (shared
    pages counted in each); None for no process."""
    if not pids:
        return None
    total = 0
    for pid in process_tree(pids):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    return total


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


class Sampler(threading.Thread):
    """``measure()`` every ``every`` seconds until ``stop`` is set: the load
    average over a window, a server's memory under an attack."""

    def __init__(self, measure: Callable[[], float | None], every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.measure = measure
        self.every = every
        self.samples: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while True:
            value = self.measure()
            if value is not None:
                self.samples.append(value)
            if self.stop.wait(self.every):
                return


class CpuMeter:
    """CPU seconds of each part of the stack (and of the load generators)
    between ``start()`` and ``stop()``, and the machine's busy share."""

    def __init__(self, parts: dict[str, list[int]], clients: list[int]) -> None:
        self.parts = parts
        self.clients = clients

    def snapshot(self) -> dict:
        return {
            "parts": {name: cpu_seconds(pids) for name, pids in self.parts.items()},
            "clients": cpu_seconds(self.clients),
            "machine": machine_ticks(),
            "loadavg": loadavg(),
            "at": time.time(),
        }

    def start(self) -> None:
        self.before = self.snapshot()
        self.sampler = Sampler(loadavg)
        self.sampler.start()

    def stop(self) -> None:
        self.after = self.snapshot()
        self.sampler.stop.set()

    def figures(self, rounds: int) -> dict:
        """Per part: CPU seconds, ms a round, % of one core over the window;
        the stack's sum; the clients'; the machine's busy share."""
        before, after = self.before, self.after
        window = max(after["at"] - before["at"], 1e-9)
        table = {}
        for name in self.parts:
            spent = after["parts"][name] - before["parts"][name]
            table[name] = {
                "cpu_s": round(spent, 2),
                "ms_per_round": round(1000 * spent / rounds, 2) if rounds else None,
                "pct_core": round(100 * spent / window, 1),
            }
        stack = sum(after["parts"].values()) - sum(before["parts"].values())
        busy = after["machine"][0] - before["machine"][0]
        ticks = after["machine"][1] - before["machine"][1]
        return {
            "window_s": round(window, 1),
            "cpu_parts": table,
            "stack_cpu_ms_per_round": round(1000 * stack / rounds, 2)
            if rounds and self.parts
            else None,
            "stack_cpu_pct": round(100 * stack / window, 1) if self.parts else None,
            "client_cpu_pct": round(100 * (after["clients"] - before["clients"]) / window, 1),
            "machine_busy_pct": round(100 * busy / ticks, 1) if ticks else None,
            "loadavg": {
                "start": before["loadavg"],
                "max": max(self.sampler.samples, default=before["loadavg"]),
                "end": after["loadavg"],
            },
        }


def cpu_table(columns: dict[str, dict]) -> str:
    """The per-part CPU table (ms a round, % of one core) of one or more
    runs side by side: ``columns`` maps a run's label to its figures."""
    parts: list[str] = []
    for figures in columns.values():
        parts += [p for p in figures["cpu_parts"] if p not in parts]
    width = max([len(p) for p in parts] + [len("stack")])
    head = f"{'CPU':<{width}}" + "".join(f" | {label:>21}" for label in columns)
    lines = [head, f"{'':<{width}}" + " | ms/round  % of a core" * len(columns)]

    def cell(value: float | None, pct: float | None) -> str:
        shown = "-" if value is None else f"{value:.2f}"
        return f" | {shown:>8}  {'-' if pct is None else f'{pct:.1f}':>11}"

    for part in parts:
        row = f"{part:<{width}}"
        for figures in columns.values():
            one = figures["cpu_parts"].get(part, {})
            row += cell(one.get("ms_per_round"), one.get("pct_core"))
        lines.append(row)
    row = f"{'stack':<{width}}"
    for figures in columns.values():
        row += cell(figures["stack_cpu_ms_per_round"], figures["stack_cpu_pct"])
    lines.append(row)
    return "\n".join(lines)
