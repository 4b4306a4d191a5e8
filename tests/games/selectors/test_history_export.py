"""The CSV exports' formula guard: a cell a player or an operator chose is
shown by a spreadsheet as written and never run as a formula, while the
amounts the site writes stay numbers a spreadsheet can add up."""

from __future__ import annotations

import csv
import io

import pytest

from games.selectors.history import HistoryFilter, player_rounds
from games.selectors.history_export import csv_chunks, csv_rows, spreadsheet_text
from tests.stored_results import settled_coup

FORMULA_STARTS = [
    "=1+1",
    '=HYPERLINK("//x")',
    "+1+1",
    "-1+1",
    "@SUM(A1:A9)",
    ";=1+1",
    "\t=1",
    "\r=1",
    "\n=1",
    " =1",
    "   =1",
    " \t =1",
    "\u3000=1",  # an ideographic (full-width) space
    "＝1+1",
    "＋1+1",
    "－1+1",
    "＠SUM(A1:A9)",
    "；=1+1",
    "﹦1+1",  # the small form
    "\u202e=1",  # right-to-left override
    "\u200b=1",  # zero-width space
    "\u00a0=1",  # no-break space
    " plain words",  # leading space is suspect even before anything else
]


@pytest.mark.parametrize("text", FORMULA_STARTS)
def test_a_formula_start_is_read_as_text(text):
    guarded = spreadsheet_text(text)
    assert guarded.startswith("'"), repr(guarded)
    assert guarded.replace("'", "") == text  # only quotes are added


@pytest.mark.parametrize(
    ("text", "guarded"),
    [
        ("lucky;=1+1", "lucky;'=1+1"),
        ("lucky; =1+1", "lucky;' =1+1"),
        ("lucky;＝1+1", "lucky;'＝1+1"),
        ("lucky\t@SUM(A1)", "lucky\t'@SUM(A1)"),
        ("lucky;;=1", "lucky;';'=1"),
        (";=1+1", "';'=1+1"),
    ],
)
def test_a_formula_after_a_semicolon_or_tab_is_read_as_text(text, guarded):
    """A spreadsheet whose list separator is ; (or that opens the file as
    tab-separated) starts a new cell there."""
    assert spreadsheet_text(text) == guarded


@pytest.mark.parametrize(
    "text",
    [
        "",
        "alice",
        "ラッキー7",
        "player seed",
        "lucky; charm",
        "ante=5;raise=5",
        "x=1+1",
        "a-b",
        "'already quoted",
        "<script>alert(1)</script>",
        "2026-12-01T09:30:00+00:00",
    ],
)
def test_it_leaves_text_that_is_no_formula_as_written(text):
    assert spreadsheet_text(text) == text


def test_a_players_formula_is_text_but_the_sites_losses_stay_numbers(make_player):
    player = make_player("-cmd")
    rnd, _coup = settled_coup(
        player,
        bets={"player": 1_050},
        client_seed="@SUM(1+1)*cmd|' /C calc'!A0",
        wanted=lambda coup: coup.winner == "banker",
    )
    body = "".join(csv_chunks(player_rounds(player_id=player.pk, filters=HistoryFilter())))
    header, row = list(csv.reader(io.StringIO(body, newline="")))
    cells = dict(zip(header, row, strict=True))
    assert cells["player"] == "'-cmd"
    assert cells["client_seed"] == "'@SUM(1+1)*cmd|' /C calc'!A0"
    assert (cells["total_bet"], cells["total_return"], cells["net"]) == ("10.5", "0", "-10.5")
    assert float(cells["net"]) == -10.5  # a number, not text a SUM would skip
    assert cells["id"] == str(rnd.pk) and cells["nonce"] == str(rnd.nonce)
    assert cells["bets"] == "player=10.5"


def test_both_exports_guard_the_same_cells(make_player):
    """The player's export (``csv_rows``) and the floor export
    (``csv_chunks``) write the same guarded cells."""
    player = make_player("+alice")
    settled_coup(player, bets={"banker": 1_000}, client_seed="\t=1")
    rounds = player_rounds(player_id=player.pk, filters=HistoryFilter())
    rows = list(csv_rows(rounds))
    body = "".join(csv_chunks(rounds))
    assert list(csv.reader(io.StringIO(body, newline=""))) == rows
    cells = dict(zip(*rows, strict=True))
    assert (cells["player"], cells["client_seed"]) == ("'+alice", "'\t'=1")
