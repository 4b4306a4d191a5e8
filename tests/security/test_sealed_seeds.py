"""Unrevealed server seeds never leave the server.

The attacks: a database reader (a dump, a backup, a replica) predicting a
player's next cards from the stored seed; a staff member with view rights
reading the next seed, an open War round's seed or a PIN hash in the admin;
a developer or a mailbox reading a seed in an error report or a log line;
and an operator who loses the key on a rotation.
"""

from __future__ import annotations

import html
import io
import json
import logging
import sys

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth.models import Permission
from django.core import serializers
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.views.debug import ExceptionReporter

from games.models import Profile, Round, Table
from games.sealing import SealError
from games.services import account, baccarat, war
from games.services.faults import InjectedFault, inject_fault
from games.services.rounds import Seeds
from games.verify import derive_shoe
from tests.casino.test_settings import run_django
from tests.seeds import find_seed, first_cards_tied

CHIP = 100
WAR_CLIENT_SEED = "sealed-tests"


def _tie_seed() -> str:
    return find_seed("sealed-tie", WAR_CLIENT_SEED, 6, first_cards_tied)


def _open_war_round(user) -> Round:
    Profile.objects.filter(user=user).update(
        next_server_seed=_tie_seed(), client_seed=WAR_CLIENT_SEED, nonce=0
    )
    rnd = war.deal(
        user=user, table=Table.objects.get(slug="casino-war"), ante=10 * CHIP, tie_bet=0,
        slip_key="tie",
    )  # fmt: skip
    assert rnd.status == Round.Status.OPEN
    return rnd


def _every_stored_value() -> str:
    """Every cell of every table, as a database dump would hold them."""
    cells: list[str] = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608
            cells.extend(str(value) for row in cursor.fetchall() for value in row)
    return "\n".join(cells)


def test_a_database_dump_predicts_no_next_round(make_player):
    user = make_player(chips=1_000)
    rnd = _open_war_round(user)
    next_seed = Profile.objects.get(user=user).next_server_seed
    # What the dump would be worth in clear: the open round's seed deals the
    # cards still to come (the war), the profile's the next round's shoe.
    shoe = derive_shoe(rnd.server_seed, rnd.client_seed, rnd.nonce, 6)
    assert [str(c) for c in shoe[:2]] == rnd.cards

    dump = _every_stored_value()

    assert rnd.server_seed not in dump.lower()
    assert next_seed not in dump.lower()
    assert rnd.server_seed_hash in dump  # the commitment is public and stays readable


def test_dumpdata_writes_sealed_seeds_that_load_back(make_player):
    user = make_player()
    seed = Profile.objects.get(user=user).next_server_seed
    out = io.StringIO()
    call_command("dumpdata", "games.profile", stdout=out)
    assert seed not in out.getvalue()
    (loaded,) = [
        o.object
        for o in serializers.deserialize("json", out.getvalue())
        if o.object.user_id == user.pk
    ]
    assert loaded.next_server_seed == seed


@pytest.fixture
def viewer(db, django_user_model) -> Client:
    """A staff member with view rights only on profiles and rounds."""
    staff = django_user_model.objects.create_user("viewer", password="pw-Secret-123", is_staff=True)
    staff.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="games", codename__in=["view_profile", "view_round"]
        )
    )
    client = Client()
    client.force_login(staff)
    return client


def test_staff_with_view_rights_read_no_unrevealed_seed_and_no_pin_hash(make_player, viewer):
    user = make_player(chips=1_000)
    account.set_pin(user=user, password="pw-Secret-123", new_pin="4321")
    settled = baccarat.place_bet(
        user=user, table=Table.objects.get(slug="baccarat-classic"), bets={"player": 1_000},
        slip_key="b1",
    )  # fmt: skip
    open_round = _open_war_round(user)
    profile = Profile.objects.get(user=user)

    pages = {
        "profiles": reverse("admin:games_profile_changelist"),
        "profile": reverse("admin:games_profile_change", args=[profile.pk]),
        "rounds": reverse("admin:games_round_changelist"),
        "open round": reverse("admin:games_round_change", args=[open_round.pk]),
        "settled round": reverse("admin:games_round_change", args=[settled.pk]),
    }
    html = {}
    for name, url in pages.items():
        response = viewer.get(url)
        assert response.status_code == 200, name
        html[name] = response.content.decode()

    everything = "\n".join(html.values())
    assert profile.next_server_seed not in everything
    assert open_round.server_seed not in everything
    assert profile.pin_hash and profile.pin_hash not in everything
    assert "md5$" not in everything and "argon2" not in everything
    # What may be shown is: the commitment, and a settled round's seed.
    assert open_round.server_seed_hash in html["open round"]
    assert settled.server_seed in html["settled round"]


def _fail_while_dealing(seeds: Seeds, next_seed: str) -> None:
    seed = seeds.server_seed  # noqa: F841 - the locals an error report would list
    raise RuntimeError("the dealer fell over")


@pytest.mark.parametrize("debug", [True, False])
def test_an_error_report_never_shows_a_seed(settings, rf, debug):
    settings.DEBUG = debug
    secret = "ab" * 32
    upcoming = "cd" * 32
    seeds = Seeds(server_seed=secret, server_seed_hash="0" * 64, client_seed="c", nonce=1)
    try:
        _fail_while_dealing(seeds, upcoming)
    except RuntimeError:
        reporter = ExceptionReporter(rf.get("/"), *sys.exc_info())
    html, text = reporter.get_traceback_html(), reporter.get_traceback_text()
    for report in (html, text):
        assert "the dealer fell over" in report  # it is the report of that error
        assert secret not in report and upcoming not in report
    assert secret not in repr(seeds)


@pytest.mark.parametrize("debug", [True, False])
def test_a_round_failing_mid_deal_reports_neither_its_seed_nor_its_cards(
    make_player, settings, rf, debug
):
    """A War deal that fails after the shoe is shuffled (the fault point
    after the stakes are taken): the dealing code's frames hold the seed, the
    shoe and the hands, and the report shows none of them."""
    settings.DEBUG = debug
    user = make_player(chips=1_000)
    seed = Profile.objects.get(user=user).next_server_seed
    table = Table.objects.get(slug="casino-war")
    with inject_fault("war.after_debit"):
        try:
            war.deal(user=user, table=table, ante=10 * CHIP, tie_bet=0, slip_key="boom")
        except InjectedFault:
            reporter = ExceptionReporter(rf.get("/"), *sys.exc_info())
    shoe = [str(c) for c in derive_shoe(seed, Profile.objects.get(user=user).client_seed, 0, 6)]
    text, page = reporter.get_traceback_text(), html.unescape(reporter.get_traceback_html())
    assert "injected fault at war.after_debit" in text
    assert "place_round" in page and "dealt" in page  # the frames and their names are there
    for report in (text, page):
        assert seed not in report
        assert f"cards=[{shoe[0]!r}, {shoe[1]!r}]" not in report  # the round's dealt cards
    assert Profile.objects.get(user=user).next_server_seed == seed  # rolled back


def test_no_log_line_shows_a_seed_even_with_every_query_logged(make_player, caplog):
    user = make_player(chips=1_000)
    seeds_seen = {Profile.objects.get(user=user).next_server_seed}
    connection.force_debug_cursor = True
    try:
        with caplog.at_level(logging.DEBUG, logger="django.db.backends"):
            rnd = baccarat.place_bet(
                user=user, table=Table.objects.get(slug="baccarat-classic"),
                bets={"banker": 1_000}, slip_key="logged",
            )  # fmt: skip
            seeds_seen |= {rnd.server_seed, Profile.objects.get(user=user).next_server_seed}
            tie = _open_war_round(user)
            seeds_seen |= {tie.server_seed, Profile.objects.get(user=user).next_server_seed}
    finally:
        connection.force_debug_cursor = False
    lines = "\n".join(r.getMessage() for r in caplog.records)
    assert "UPDATE" in lines and "INSERT" in lines  # the queries were logged, with their values
    for seed in seeds_seen:
        assert seed not in lines


def test_a_key_rotation_keeps_every_seed(make_player, settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.CASINO_SEED_KEYS = [old]
    user = make_player(chips=1_000)
    rnd = baccarat.place_bet(
        user=user, table=Table.objects.get(slug="baccarat-classic"), bets={"tie": 1_000},
        slip_key="r1",
    )  # fmt: skip
    seeds = (Profile.objects.get(user=user).next_server_seed, rnd.server_seed)

    settings.CASINO_SEED_KEYS = [new, old]
    out = io.StringIO()
    call_command("rotate_seed_keys", stdout=out)
    assert "server seeds sealed" in out.getvalue()

    settings.CASINO_SEED_KEYS = [new]  # the old key is gone
    assert Profile.objects.get(user=user).next_server_seed == seeds[0]
    assert Round.objects.get(pk=rnd.pk).server_seed == seeds[1]

    settings.CASINO_SEED_KEYS = [old]  # a wrong key fails loudly, never deals from junk
    with pytest.raises(SealError, match="CASINO_SEED_KEYS"):
        Profile.objects.get(user=user)


def test_a_malformed_seed_key_stops_start_up():
    result = run_django("import django; django.setup()", CASINO_SEED_KEYS="not-a-key")
    assert result.returncode != 0
    assert "CASINO_SEED_KEYS" in result.stderr


def test_the_history_export_leaves_an_open_rounds_seed_out(make_player):
    user = make_player(chips=1_000)
    rnd = _open_war_round(user)
    client = Client()
    client.force_login(user)
    response = client.get(reverse("history_export"))
    body = b"".join(response.streaming_content).decode()
    assert rnd.server_seed_hash in body
    assert rnd.server_seed not in body
    assert json.dumps(rnd.server_seed) not in body


def test_make_run_gets_a_secret_key_of_its_own_and_keeps_the_seeds_sealed_before_it(
    make_player, settings, tmp_path
):
    """make run serves with debug off on a key made once in db/secret_key; a
    site served before that file existed had its seeds sealed under the
    development key, and keeps every one of them."""
    settings.CASINO_SEED_KEYS = []
    user = make_player(chips=1_000)
    rnd = baccarat.place_bet(
        user=user, table=Table.objects.get(slug="baccarat-classic"), bets={"tie": 1_000},
        slip_key="k1",
    )  # fmt: skip
    seeds = (Profile.objects.get(user=user).next_server_seed, rnd.server_seed)
    settings.SECRET_KEY_FILE = tmp_path / "db" / "secret_key"

    call_command("make_secret_key", stdout=io.StringIO())

    key = settings.SECRET_KEY_FILE.read_text().strip()
    assert len(key) >= 50 and key != settings.SECRET_KEY
    assert settings.SECRET_KEY_FILE.stat().st_mode & 0o077 == 0  # this user's only
    settings.SECRET_KEY = key
    assert Profile.objects.get(user=user).next_server_seed == seeds[0]
    assert Round.objects.get(pk=rnd.pk).server_seed == seeds[1]

    call_command("make_secret_key", stdout=io.StringIO())  # once: never replaced
    assert settings.SECRET_KEY_FILE.read_text().strip() == key


def test_debug_off_starts_on_the_kept_key_and_not_without_one(tmp_path):
    kept = tmp_path / "secret_key"
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
    missing = run_django(code, DJANGO_DEBUG="0", DJANGO_SECRET_KEY_FILE=str(kept))
    assert missing.returncode != 0 and "DJANGO_SECRET_KEY" in missing.stderr
    kept.write_text("s" * 60 + "\n")
    started = run_django(code, DJANGO_DEBUG="0", DJANGO_SECRET_KEY_FILE=str(kept))
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "s" * 60
