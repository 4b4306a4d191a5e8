"""The roads on the table screen (games.selectors.roads.table_roads and the
table page): five roads, each cut to its latest columns, and the hidden
Ask P / Ask B marks in the same coordinates as the road shown."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from games.baccarat import roads as core
from games.models import Table
from games.selectors.roads import SIDES, TABLE_COLS, table_roads
from tests.stored_results import store_results

SLUG = "baccarat-classic"
NAMES = ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig")


def store(user, winners: list[core.Result]) -> None:
    """Finished rounds for the player at the table, oldest first."""
    store_results(user, winners, slug=SLUG)


def history(seed: int, n: int) -> list[core.Result]:
    rng = random.Random(seed)
    out, side = [], "banker"
    for _ in range(n):
        roll = rng.random()
        if roll < 0.1:
            out.append(core.Result("tie", rng.random() < 0.1, rng.random() < 0.1))
            continue
        if roll < 0.45:
            side = "player" if side == "banker" else "banker"
        out.append(core.Result(side, rng.random() < 0.1, rng.random() < 0.1))
    return out


def shown(window, name: str):
    return (
        window.bead_plate
        if name == "bead_plate"
        else (window.big_road if name == "big_road" else window.derived[name])
    )


@pytest.mark.parametrize("rounds", [0, 1, 7, 40, 80, 119, 120, 121, 500])
def test_each_road_and_its_ask_marks_share_the_cut(make_player, rounds: int) -> None:
    user = make_player()
    results = history(rounds, rounds)
    store(user, results)
    window = table_roads(user=user, table=Table.objects.get(slug=SLUG))
    # The window read: whole bead columns, at most TABLE_ROUNDS rounds.
    start = max(0, len(results) - 1 - (len(results) - 1) % 6 - 114) if results else 0
    part = results[start:]
    assert window.rounds == len(part)
    roads, asks = core.roads_with_ask(part)
    for name in NAMES:
        road, cols = shown(window, name), TABLE_COLS[name]
        assert road.cols == cols
        full = roads[name]
        offset = (full[-1].col - road.cells[-1].col) if road.cells else 0
        # The road shown is the whole road's latest columns, moved left by offset.
        assert [c._replace(col=c.col + offset) for c in road.cells] == [
            c for c in full if c.col >= offset
        ]
        for side in SIDES:
            mark, expected = window.ask[side][name], getattr(asks[side], name)
            if expected is None:
                assert mark is None
                continue
            # The next mark lies inside the grid, where the whole road would put it.
            assert mark is not None and 0 <= mark.col < cols and 0 <= mark.row < 6
            assert mark._replace(col=mark.col + offset) == expected


def test_a_full_road_leaves_room_for_the_column_the_next_win_opens(make_player) -> None:
    user = make_player()
    # Alternating wins: every win opens a big-road column, far more than shown.
    store(user, [core.Result("player" if i % 2 else "banker") for i in range(100)])
    window = table_roads(user=user, table=Table.objects.get(slug=SLUG))
    cols = TABLE_COLS["big_road"]
    assert max(c.col for c in window.big_road.cells) == cols - 2
    assert window.ask["banker"]["big_road"][:3] == (cols - 1, 0, "banker")
    # The latest round is PLAYER: a PLAYER win goes down its column.
    assert window.ask["player"]["big_road"][:3] == (cols - 2, 1, "player")


@pytest.fixture
def tab(client, make_player):
    user = make_player()
    client.force_login(user)
    return client, user


def table_page(client) -> str:
    response = client.get(reverse("baccarat_table", args=[SLUG]))
    assert response.status_code == 200
    return response.content.decode()


def road_html(html: str, testid: str) -> str:
    match = re.search(rf'data-testid="{testid}"[^>]*>(.*?)</div>', html, re.S)
    assert match, testid
    return match.group(1)


def test_the_table_page_shows_the_five_roads_with_ask_buttons(tab) -> None:
    client, user = tab
    store(user, history(3, 30))
    html = table_page(client)
    window = table_roads(user=user, table=Table.objects.get(slug=SLUG))
    for testid in (
        "bead-plate",
        "big-road",
        "table-big-eye-boy",
        "table-small-road",
        "table-cockroach-pig",
        "ask-button-player",
        "ask-button-banker",
        "last60",
        "roads-toggle",
    ):
        assert f'data-testid="{testid}"' in html, testid
    assert road_html(html, "bead-plate").count('class="bead ') == 30
    assert road_html(html, "big-road").count('class="ring ') == len(window.big_road.cells)
    for testid, name in (
        ("table-big-eye-boy", "big_eye_boy"),
        ("table-small-road", "small_road"),
        ("table-cockroach-pig", "cockroach_pig"),
    ):
        part = road_html(html, testid)
        assert len(re.findall(r'class="d-(red|blue)"', part)) == len(window.derived[name].cells)
    # Each road carries the hidden mark of the next PLAYER and BANKER win, at its cell.
    for testid, name in (
        ("bead-plate", "bead_plate"),
        ("big-road", "big_road"),
        ("table-big-eye-boy", "big_eye_boy"),
    ):
        part = road_html(html, testid)
        for side in SIDES:
            cell = window.ask[side][name]
            assert f'class="ask-mark ask-mark-{side} ' in part
            assert re.search(
                rf'ask-mark-{side}[^"]*" style="grid-area: {cell.row + 1} / {cell.col + 1}"', part
            )
    assert 'data-testid="pct-player">P ' in html


def test_an_empty_table_asks_only_the_first_cells(tab) -> None:
    client, _ = tab
    html = table_page(client)
    assert road_html(html, "bead-plate").count("ask-mark-") == 2
    assert 'ask-mark-player ask-ring w-player" style="grid-area: 1 / 1"' in html
    assert "ask-mark" not in road_html(html, "table-big-eye-boy")
    # The roads dialog's address still answers.
    response = client.get(reverse("baccarat_roads", args=[SLUG]))
    assert response.status_code == 200
