from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_django(code: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    full_env.update(env)
    full_env["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_rejects_a_malformed_debug_value():
    result = run_django("import django; django.setup()", DJANGO_DEBUG="maybe")
    assert result.returncode != 0
    assert "DJANGO_DEBUG" in result.stderr and "'maybe'" in result.stderr


def test_it_needs_a_secret_key_when_debug_is_off():
    result = run_django(
        "import django; django.setup()",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY_FILE="/nonexistent/secret_key",  # not a checkout's db/secret_key
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_it_rejects_a_malformed_redis_url():
    result = run_django("import django; django.setup()", REDIS_URL="localhost:6379")
    assert result.returncode != 0
    assert "REDIS_URL" in result.stderr


def test_deploy_check_is_clean_with_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "k" * 20 + "-production-secret-0123456789-abcdefghij",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_it_uses_postgresql_and_redis_when_urls_are_set():
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE']); print(settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = run_django(
        code,
        DATABASE_URL="postgres://u:p@127.0.0.1:5432/casino",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    assert "postgresql" in result.stdout and "RedisChannelLayer" in result.stdout


def test_kept_connections_and_the_pool_are_refused_together():
    """Django's pool cannot keep a connection per thread as well: the
    operator is told which setting to change, rather than a failure at the
    first query."""
    result = run_django(
        "import django; django.setup()",
        DATABASE_URL="postgres://u:p@127.0.0.1:5432/casino",
        CASINO_DB_POOL="4",
        CASINO_DB_CONN_MAX_AGE="300",
    )
    assert result.returncode != 0
    assert "CASINO_DB_POOL=0" in result.stderr


def published_file(**env: str) -> str:
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.CASINO_LOG_PUBLISHED_FILE)"
    )
    env = {"CASINO_SQLITE_PATH": "", "CASINO_LOG_PUBLISHED_FILE": "", **env}
    result = run_django(code, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_second_sqlite_site_never_shares_make_runs_published_checkpoint():
    """A bench's or a test server's SQLite file publishes beside itself: in
    make run's db/log_published its checkpoint would make make run's own
    database look like a forked log, and make run would refuse to serve it."""
    assert published_file() == str(ROOT / "db" / "log_published")
    assert published_file(CASINO_SQLITE_PATH="/srv/x/bench.sqlite3") == "/srv/x/bench.log_published"
    on_postgres = published_file(DATABASE_URL="postgres://u:p@127.0.0.1:5432/casino")
    assert on_postgres == str(ROOT / "db" / "log_published")


def test_a_renamed_knob_stops_start_up_instead_of_being_ignored():
    result = run_django("import django; django.setup()", CASINO_SOCKET_MESSAGES_PER_SECOND="2")
    assert result.returncode != 0
    assert "CASINO_SOCKET_MESSAGES_PER_SECOND is now CASINO_TABLE_ACTIONS_PER_SECOND" in (
        result.stderr
    )
