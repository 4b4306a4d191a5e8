"""The pure core must import without Django (it is checked by independent tools
and used by the standalone verifier)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = (
    "games.cards",
    "games.baccarat.rules",
    "games.baccarat.odds",
    "games.baccarat.roads",
    "games.war.rules",
    "games.war.odds",
    "games.verify",
    "games.money",
    "games.presets",
    "games.display",
    "games.tlog",
)


def test_core_modules_import_without_django() -> None:
    code = (
        "import games.cards, games.baccarat.rules, games.baccarat.odds, "
        "games.baccarat.roads, games.war.rules, games.war.odds, games.verify, "
        "games.money, games.presets, games.display, games.tlog; "
        "import sys; assert 'django' not in sys.modules, sorted(m for m in sys.modules "
        "if m.startswith('django'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_core_sources_never_mention_django_imports() -> None:
    for name in CORE:
        source = (ROOT / (name.replace(".", "/") + ".py")).read_text()
        assert "import django" not in source and "from django" not in source, name


def test_package_inits_stay_empty() -> None:
    for init in ("games/__init__.py", "games/baccarat/__init__.py", "games/war/__init__.py"):
        assert (ROOT / init).read_text() == "", init
