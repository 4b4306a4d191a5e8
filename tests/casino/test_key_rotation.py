"""Rotating DJANGO_SECRET_KEY as the runbook says: the old key moves to
DJANGO_SECRET_KEY_FALLBACKS, and nothing sealed or signed with it is lost."""

from __future__ import annotations

from tests.casino.test_settings import run_django

OLD = "o" * 30 + "ld-secret-key-for-the-rotation-test"
NEW = "n" * 30 + "ew-secret-key-for-the-rotation-test"

SEAL_UNDER_OLD_OPEN_UNDER_NEW = f"""
import django
from django.conf import settings
django.setup()
from games.sealing import unseal
assert settings.SECRET_KEY == {NEW!r} and settings.SECRET_KEY_FALLBACKS == [{OLD!r}]
token = "{{token}}"
print(unseal(token))
"""


def test_a_seed_sealed_under_the_old_secret_key_opens_after_the_rotation():
    seed = "ab" * 32
    before = run_django(
        f"import django; django.setup(); from games.sealing import seal; print(seal({seed!r}))",
        DJANGO_SECRET_KEY=OLD,
    )
    assert before.returncode == 0, before.stderr
    token = before.stdout.strip().splitlines()[-1]
    after = run_django(
        SEAL_UNDER_OLD_OPEN_UNDER_NEW.replace("{token}", token),
        DJANGO_SECRET_KEY=NEW,
        DJANGO_SECRET_KEY_FALLBACKS=OLD,
    )
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip().splitlines()[-1] == seed
    dropped = run_django(  # the fallback dropped too early: the seed no longer opens
        SEAL_UNDER_OLD_OPEN_UNDER_NEW.replace("{token}", token), DJANGO_SECRET_KEY=NEW
    )
    assert dropped.returncode != 0


def test_a_short_fallback_key_stops_start_up():
    result = run_django(
        "import django; django.setup()", DJANGO_SECRET_KEY=NEW, DJANGO_SECRET_KEY_FALLBACKS="short"
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY_FALLBACKS" in result.stderr
