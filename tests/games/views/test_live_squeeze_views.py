"""A script reading a squeezed coup's result before its cards open finds
nothing: the table's page shows only the open cards (the peeler's and a
watcher's alike), the bet's round page, the history, its CSV and the roads
say the bet waits, and the shoe (whose seed would give every card) is not
published while its last coup is squeezed."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter

import pytest
from django.urls import reverse
from django.utils import timezone

from games.baccarat import live as shoe_rules
from games.baccarat.odds import navigator
from games.baccarat.rules import points
from games.cards import RANKS, Card
from games.models import Coup, Round, Shoe, Table
from games.presenters.live_squeeze import player_name, state_context
from games.selectors.live import live_view
from games.services import live
from games.services.tables import save_table, table_snapshot
from tests.live import shoe_under_way

pytestmark = pytest.mark.django_db

URL = "/baccarat/baccarat-live/"


@pytest.fixture
def table():
    table = Table.objects.get(slug="baccarat-live")
    before = table_snapshot(table)
    table.squeeze_threshold = 5_000
    return save_table(table=table, actor=None, before=before)


def squeeze(table, ann, *, last_of_shoe: bool = False) -> Coup:
    """ann's PLAYER 6,000 closes into a squeeze now."""
    now = timezone.now()
    # A first coup fixes the shoe's order; the next one may reach the cut card.
    shoe_under_way(table, next_opens_at=now - dt.timedelta(seconds=20))
    if last_of_shoe:
        shoe = Shoe.objects.get(table=table)
        order = shoe_rules.shoe_order(bytes.fromhex(shoe.server_seed), shoe.entropy, shoe.decks)
        Shoe.objects.filter(pk=shoe.pk).update(position=shoe_rules.cut_position(order) - 1)
    live.advance(table, now=now - dt.timedelta(seconds=20))
    live.place_bet(
        user=ann, table=table, bets={"player": 6_000}, slip_key="b",
        now=now - dt.timedelta(seconds=19),
    )  # fmt: skip
    step = live.advance(table, now=now)
    assert step.did == "squeezing"
    return Coup.objects.get(pk=step.coup.pk)


def faces(html: str) -> list[str]:
    return re.findall(r'data-card="([2-9TJQKA][SHDC])"', html)


def test_the_page_shows_the_open_cards_only_to_peeler_and_watcher(client, table, make_player):
    ann, bob = make_player(chips=1_000), make_player(chips=1_000)
    coup = squeeze(table, ann)
    for user in (ann, bob):
        client.force_login(user)
        page = client.get(URL).content.decode()
        assert 'data-testid="live-squeeze"' in page and 'data-slot="p2"' in page
        assert sorted(faces(page)) == sorted(coup.cards[:2])
        # The Banker's 2nd card lies face down in its place, its face unsent.
        banker = page.split('class="hand hand-banker"')[1].split('class="live-peel"')[0]
        assert banker.count('class="playing-card') == 2
        assert banker.count("playing-card face-down") == 1
        assert "data-winner" not in page and 'data-testid="live-result"' not in page
        assert f'data-peeler="{player_name(ann.pk)}"' in page
        assert f'data-me="{player_name(user.pk)}"' in page


def test_the_bets_pages_say_it_waits_until_the_cards_open(client, table, make_player):
    ann = make_player(chips=1_000)
    coup = squeeze(table, ann)
    client.force_login(ann)
    rnd = Round.objects.get(player=ann, coup=coup)
    page = client.get(reverse("history_round", args=[rnd.pk])).content.decode()
    assert "waits for its coup to be dealt" in page
    assert "data-cards" not in page and faces(page) == []
    listing = client.get(reverse("history")).content.decode()
    assert faces(listing) == [] and "BANKER wins" not in listing and "PLAYER wins" not in listing
    csv = b"".join(client.get(reverse("history_export")).streaming_content).decode()
    row = next(line for line in csv.splitlines() if str(rnd.pk) in line.split(",")[:2])
    assert not any(card in row.split(",") for card in coup.cards)
    roads_url = reverse("baccarat_roads", args=["baccarat-live"])
    roads = client.get(roads_url, HTTP_HX_REQUEST="true").content.decode()
    client.force_login(make_player(chips=1_000))  # a player with no bet at all
    assert roads == client.get(roads_url, HTTP_HX_REQUEST="true").content.decode()


def test_the_shoe_is_not_published_while_its_last_coup_is_squeezed(client, table, make_player):
    ann = make_player(chips=1_000)
    coup = squeeze(table, ann, last_of_shoe=True)
    url = reverse("live_shoe", args=["baccarat-live", coup.shoe.number])
    assert client.get(url).status_code == 404
    live.advance(table, now=timezone.now() + dt.timedelta(minutes=5))  # the cards open
    assert client.get(url).status_code == 200


NAV_CELL = re.compile(r'data-testid="nav-(\d)"[^>]*><b>\d</b><small>(\d+%)</small>')


def test_the_navigator_takes_out_the_cards_the_shoes_earlier_coups_showed(
    client, table, make_player
):
    """A one-deck live shoe: the coup dealt before this one showed its cards
    to the whole table, so the navigator beside the peeled card counts them
    out of the shoe, as a player keeping count at the table would."""
    before = table_snapshot(table)
    table.decks = 1
    table = save_table(table=table, actor=None, before=before)
    ann = make_player(chips=1_000)
    coup = squeeze(table, ann)
    earlier = [
        Card.parse(code)
        for c in Coup.objects.filter(shoe=coup.shoe, number__lt=coup.number)
        for code in c.cards
    ]
    assert len(earlier) >= 4
    p1, b1 = Card.parse(coup.cards[0]), Card.parse(coup.cards[1])  # P2 is peeled first

    # What is left of the shoe, per point value, counted here.
    left = Counter(points(Card(rank, "S")) for rank in RANKS for _suit in "SHDC")
    for card in (p1, b1, *earlier):
        left[points(card)] -= 1
    nav = state_context(live_view(table))["squeeze"].navigator
    assert [cell.left for cell in nav.cells] == [left[v] for v in range(10)]

    # The page shows the exact chances of what is left.
    expected = navigator(1, [p1], [b1], "player", seen=earlier)
    client.force_login(ann)
    page = client.get(URL).content.decode()
    shown = dict(NAV_CELL.findall(page))
    for v in range(10):
        odds = expected.outcomes.get(v)
        percent = math.floor(odds.player * 100) if odds else 0
        assert shown[str(v)] == f"{percent}%", v
