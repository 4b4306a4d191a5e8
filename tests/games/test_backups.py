"""Backups and restores as an operator runs them (``make backup``,
``make restore``), and the restore drill on SQLite.

The attacks: whoever gets hold of a backup file (another account on the
server, a copied disk) reading it or predicting cards from it; an operator
restoring a damaged, altered or foreign file over the live books.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.admin.audit_words import change_lines, summary
from games.backups import backup
from games.models import AuditEntry, Profile, Round, Table, TableHour, Wallet
from games.services import baccarat

ROOT = Path(__file__).resolve().parent.parent.parent
CHIP = 100


def play(user, key: str) -> Round:
    return baccarat.place_bet(
        user=user, table=Table.objects.get(slug="baccarat-classic"), bets={"banker": 10 * CHIP},
        slip_key=key,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_it_backs_up_to_an_owner_only_file_that_names_what_it_holds(make_player, tmp_path):
    user = make_player(chips=1_000)
    rounds = [play(user, "b1"), play(user, "b2")]
    path, manifest = backup(tmp_path / "backups")
    assert path.stat().st_mode & 0o777 == 0o600  # password hashes inside: owner only
    assert (tmp_path / "backups").stat().st_mode & 0o077 == 0
    stored = json.loads(path.with_name(path.name + ".json").read_text())
    assert stored["rounds"] == manifest.rounds == 2
    assert stored["last_round_id"] == rounds[-1].pk
    # A stolen backup predicts no card: the next seed is sealed in it.
    assert Profile.objects.get(user=user).next_server_seed.encode() not in path.read_bytes()


@pytest.mark.django_db(transaction=True)
def test_make_restore_brings_back_the_books_as_they_were(make_player, tmp_path):
    user = make_player(chips=1_000)
    kept = play(user, "kept")
    hours = list(TableHour.objects.values_list("hour", "rounds", "staked"))
    path, _ = backup(tmp_path)
    later = play(user, "after the backup")
    assert list(TableHour.objects.values_list("hour", "rounds", "staked")) != hours
    out = io.StringIO()
    call_command("restore", str(path), "--yes", stdout=out)
    assert "ledger ok" in out.getvalue()
    assert "kept totals ok" in out.getvalue()  # the restore audits the kept totals too
    assert list(Round.objects.values_list("pk", flat=True)) == [kept.pk]
    assert Wallet.objects.get(user=user).balance == kept.balance_after
    # The dashboard's hours are the backup's, as its rounds are.
    assert list(TableHour.objects.values_list("hour", "rounds", "staked")) == hours
    call_command("audit_ledger", stdout=out)
    # Rolling the books back (a payout erased with the rounds after the
    # backup) leaves its trace for every operator to read, in words.
    entry = AuditEntry.objects.get(action="database.restore")
    assert summary(entry) == f"the system restored the database from the backup {path.name}"
    assert change_lines(entry)[1:] == ["rounds 2 → 1", f"last round {later.pk} → {kept.pk}"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("damage", ["altered", "no manifest", "other engine", "missing"])
def test_a_bad_backup_restores_nothing(make_player, tmp_path, damage):
    user = make_player(chips=1_000)
    play(user, "before")
    path, _ = backup(tmp_path)
    live = play(user, "live")
    manifest = path.with_name(path.name + ".json")
    expected = {
        "altered": "does not match its manifest",
        "no manifest": "no manifest",
        "other engine": "is a postgresql backup",
        "missing": "no backup at",
    }[damage]
    if damage == "altered":  # one byte changed, as by a bad disk or a hand
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "no manifest":
        manifest.unlink()
    elif damage == "other engine":
        stored = json.loads(manifest.read_text())
        manifest.write_text(json.dumps({**stored, "engine": "postgresql"}))
    else:
        path = tmp_path / "casino-nothing.sqlite3"
    with pytest.raises(CommandError, match=expected) as refused:
        call_command("restore", str(path), "--yes")
    assert "nothing restored" in str(refused.value)
    assert Round.objects.filter(pk=live.pk).exists()  # the live books are untouched


def test_the_restore_drill_on_sqlite_loses_no_round_taken_before_the_backup(tmp_path):
    """bench/drill.py: players play, a backup is taken while they do, they
    play on, the file is deleted, the backup restored: the ledger is exact
    and every round committed before the backup began is there, unchanged."""
    done = subprocess.run(
        [sys.executable, "bench/drill.py", "--database", "sqlite", "--players", "3",
         "--rounds", "30", "--think", "0.05"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ledger_ok"] is True, result["audit"]
    assert result["rounds_before_backup"] > 0 and result["rounds_lost"] == 0
    assert result["rounds_changed"] == 0 and result["restored_as_manifest"] is True
    # It truly went back: the rounds played after the backup are gone.
    assert result["rounds_played"] > result["rounds_in_backup"]
    assert result["player_errors"] == []
    assert {"backup_s", "restore_s", "pitr_seconds_lost"} <= set(result)


@pytest.mark.django_db(transaction=True)
def test_a_restore_keeps_the_log_consistent_with_every_checkpoint_published_before_it(
    make_player, tmp_path, client
):
    from commitlog import integrator  # noqa: PLC0415
    from games import tlog  # noqa: PLC0415

    user = make_player(chips=1_000)
    play(user, "r1")
    before = integrator.integrate()
    path, _ = backup(tmp_path)
    play(user, "r2")
    after = integrator.integrate()  # published after the backup was taken
    call_command("restore", str(path), "--yes", stdout=io.StringIO())
    play(user, "r3")
    new = integrator.integrate()
    for old in (before, after):
        proof = client.get(f"/log/proof/consistency?from={old.size}&to={new.size}").json()
        tlog.verify_consistency(
            old.size, new.size, bytes(old.root), bytes(new.root),
            [tlog.b64decode(p) for p in proof["proof"]],
        )  # fmt: skip
    call_command("audit_log", stdout=io.StringIO())


@pytest.mark.django_db(transaction=True)
def test_a_backup_older_than_a_published_checkpoint_over_a_lost_log_is_not_served(
    make_player, tmp_path, client
):
    from commitlog import integrator  # noqa: PLC0415
    from commitlog.models import Checkpoint, Leaf, LogState, Node  # noqa: PLC0415
    from commitlog.published import LogForked  # noqa: PLC0415

    user = make_player(chips=1_000)
    integrator.integrate()
    path, _ = backup(tmp_path)
    play(user, "published after the backup")
    published = integrator.integrate()
    for model in (Checkpoint, Node, Leaf, LogState):  # the live log is lost
        model.objects.all().delete()
    said = io.StringIO()
    call_command("restore", str(path), "--yes", stdout=io.StringIO(), stderr=said)
    assert f"a checkpoint of {published.size} was published" in said.getvalue()
    answer = client.get("/log/checkpoint")
    assert answer.status_code == 503
    assert "restored from before that checkpoint" in answer.content.decode()
    with pytest.raises(LogForked):
        integrator.integrate()
