"""A live table over HTTP: its page shows the coup taking bets and its
clock; BET stakes the slip or refuses it after the close with nothing
taken; a finished shoe is published whole (and not before) and replays."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games.baccarat.live import check_document, seed_commitment
from games.models import Coup, Round, Shoe, Table
from games.presenters import live as presenter
from games.selectors.live import live_view
from games.selectors.roads import result_shown_at
from games.services import live
from tests.live import finish_shoe, shoe_under_way
from tests.tables import shown_version

pytestmark = pytest.mark.django_db

URL = "/baccarat/baccarat-live/"


@pytest.fixture
def table():
    return Table.objects.get(slug="baccarat-live")


@pytest.fixture
def ann(client, make_player):
    user = make_player(chips=1_000)
    client.force_login(user)
    return user


SECRET = "a-secret-of-the-page"


def bet(client, **fields):
    data = {
        "slip_key": "k1",
        "table_version": shown_version("baccarat-live"),
        "commit": seed_commitment(SECRET),
        **fields,
    }
    return client.post(
        reverse("baccarat_bet", args=["baccarat-live"]), data, HTTP_HX_REQUEST="true"
    )


def deal_first_coup(table, user, start):
    """The first coup's close, the player's seed revealed (the page does it
    over the socket), the deal."""
    close = start + dt.timedelta(seconds=15)
    assert live.advance(table, now=close).did == "revealing"
    live.reveal(user=user, table=table, seed=SECRET, now=close)
    dealt = live.advance(table, now=close + dt.timedelta(seconds=live.REVEAL_SECONDS))
    assert dealt.did == "dealt"
    live.settle_coup(dealt.coup)  # as the dealer does once the cards are out


def test_the_page_shows_the_coup_taking_bets(client, ann, table):
    live.advance(table)
    page = client.get(URL).content.decode()
    assert 'data-testid="live-clock" data-state="open"' in page
    assert 'data-shoe="1" data-coup="1"' in page
    assert 'ws-connect="/ws/live/baccarat-live/' in page
    coup = Coup.objects.get(table=table)
    assert f'name="coup" value="{coup.pk}"' in page  # BET names the coup it is meant for


def test_bet_over_http_is_staked_on_the_coup(client, ann, table):
    live.advance(table)
    answer = bet(client, player="10").content.decode()
    assert 'id="bac-placed"' in answer and "placed on coup 1" in answer
    rnd = Round.objects.get(player=ann)
    assert rnd.status == Round.Status.OPEN and rnd.coup.number == 1
    assert 'data-balance="99000"' in answer
    # The stake on the page; the last settled coup's line is left as it is.
    assert 'id="live-stake"' in answer and "Your bet on this coup</strong>: PLAYER 10" in answer
    assert 'id="live-last"' not in answer


def test_bet_after_the_close_is_refused_and_takes_nothing(client, ann, table):
    live.advance(table, now=timezone.now() - dt.timedelta(seconds=15, milliseconds=1))
    answer = bet(client, player="10")
    assert "No more bets" in answer.content.decode()
    assert not Round.objects.filter(player=ann).exists()
    ann.wallet.refresh_from_db()
    assert ann.wallet.balance == 100_000


def test_a_shoe_is_published_when_it_ends_and_not_before(client, ann, table):
    start = timezone.now() - dt.timedelta(seconds=10)  # its window closes in 5 s
    live.advance(table, now=start)
    answer = bet(client, player="10").content.decode()
    assert 'data-committed="1"' in answer  # the page will reveal its seed for shoe 1
    deal_first_coup(table, ann, start)
    url = reverse("live_shoe", args=["baccarat-live", 1])
    assert client.get(url).status_code == 404  # the seed is still secret
    finish_shoe(Shoe.objects.get(table=table).pk)
    client.logout()  # public, as the commitment log is
    doc = client.get(url).json()
    assert len(doc["coups"]) > 60 and check_document(doc) == []


def test_a_live_bet_s_round_page_keeps_the_shoe_s_seed_and_says_where_to_verify(client, ann, table):
    start = timezone.now() - dt.timedelta(seconds=10)
    live.advance(table, now=start)
    bet(client, player="10")
    deal_first_coup(table, ann, start)
    rnd = Round.objects.get(player=ann)
    assert rnd.status == Round.Status.SETTLED
    shoe = Shoe.objects.get(table=table)
    page = client.get(reverse("history_round", args=[rnd.pk])).content.decode()
    assert shoe.server_seed not in page  # the rest of the shoe stays unknown
    assert "coup 1 of shoe 1" in page and 'data-testid="verify"' not in page
    assert SECRET in page and seed_commitment(SECRET) in page  # the seed it added, as committed
    verdict = client.get(reverse("history_round_verify", args=[rnd.pk])).content.decode()
    assert shoe.server_seed not in verdict and "Does not match" not in verdict
    assert "verified whole" in verdict
    finish_shoe(shoe.pk)  # once the shoe is published: the command to replay it, filled in
    page = client.get(reverse("history_round", args=[rnd.pk])).content.decode()
    assert f"--commitment {shoe.commitment} --seed " in page and f":{SECRET}</pre>" in page


def test_the_live_table_s_rules_and_a_waiting_bet_s_page_speak_of_the_live_table(
    client, ann, table
):
    rules = client.get(reverse("baccarat_rules", args=["baccarat-live"])).content.decode()
    assert "every player at it bets on the same coup" in rules and "play alone" not in rules
    assert (
        "play alone"
        in client.get(reverse("baccarat_rules", args=["baccarat-classic"])).content.decode()
    )
    live.advance(table)
    bet(client, player="10")
    rnd = Round.objects.get(player=ann)
    page = client.get(reverse("history_round", args=[rnd.pk])).content.decode()
    assert "waits for its coup to be dealt" in page and "war or surrender" not in page


def test_the_roads_in_detail_are_the_table_s_for_a_player_who_never_bet(client, ann, table):
    """The roads dialog of a live table reads its shoe, as its roads do:
    the same for everybody at it, a player with no bet included."""
    start = timezone.now() - dt.timedelta(seconds=40)
    shoe_under_way(table, next_opens_at=start + dt.timedelta(seconds=25))
    coup = Coup.objects.get(table=table, number=1)
    detail = client.get(
        reverse("baccarat_roads", args=["baccarat-live"]), HTTP_HX_REQUEST="true"
    ).content.decode()
    plate = detail.split('data-testid="detail-bead-plate"')[1].split("<h3>")[0]
    assert plate.count('class="bead ') == 1 and f'class="bead w-{coup.winner}' in plate


def test_a_table_made_private_again_opens_for_a_player_whose_live_bet_was_refunded(
    client, ann, table
):
    """The operator unticks "live" mid-coup: the bets on it are refunded (no
    card), and the table's page, now a private table's, opens for them."""
    live.advance(table)
    bet(client, player="10")
    Table.objects.filter(pk=table.pk).update(live=False)
    assert live.advance(table).did == "void"
    assert Round.objects.get(player=ann).status == Round.Status.VOID
    page = client.get(URL)
    assert page.status_code == 200 and 'data-testid="live-table"' not in page.content.decode()


def test_a_void_coup_s_reason_is_told_in_each_socket_s_language(client, ann, table):
    """The dealer voids a coup for every language at once: its reason is
    kept in English and each page's state says it in its own."""
    live.advance(table)
    bet(client, player="10")
    Table.objects.filter(pk=table.pk).update(enabled=False)
    assert live.advance(table).did == "void"
    said = {}
    for code in ("en", "ja"):
        with translation.override(code):
            said[code] = presenter.state_html(live_view(table))
    assert "The table closed before this coup was dealt" in said["en"]
    with translation.override("ja"):
        reason = translation.gettext(
            "The table closed before this coup was dealt; every bet on it is refunded."
        )
    assert reason in said["ja"] and "The table closed" not in said["ja"]


def test_no_screen_gives_a_coup_s_result_away_while_its_cards_slide_in(client, ann, table):
    """The deal's state brings the cards, each sliding in at its turn; until
    the last is in place no state says the result: no totals, no winner, no
    winners' list, no mark on the roads (a page loaded or a socket joined
    meanwhile draws the same state). From then on, all of them."""
    start = timezone.now() - dt.timedelta(seconds=10)
    live.advance(table, now=start)
    bet(client, player="10")
    deal_first_coup(table, ann, start)
    coup = Coup.objects.get(table=table, number=1)
    landed = result_shown_at(coup)
    cards = len(coup.cards)
    # Dealt P B P B, then each hand's third card in its own turn (P 5th, B
    # 6th, a Banker's third waiting out the turn of a Player who stood), 0.6 s
    # apart, each sliding for 0.6 s.
    turns = [2 * i for i in range(len(coup.detail["player"]))]
    turns += [2 * i + 1 for i in range(len(coup.detail["banker"]))]
    assert landed - coup.dealt_at == dt.timedelta(seconds=max(turns) * 0.6 + 0.6)

    sliding = presenter.state_html(
        live_view(table, now=landed - dt.timedelta(milliseconds=1)), fresh=True
    )
    assert sliding.count('class="playing-card') == cards
    assert "data-winner" not in sliding and " wins" not in sliding and ": TIE" not in sliding
    assert 'data-testid="player-total"></b>' in sliding
    assert 'data-testid="live-winners"' not in sliding
    assert 'class="bead ' not in sliding  # the shoe's first coup: an empty bead plate

    roads = reverse("baccarat_roads", args=["baccarat-live"])
    detail = client.get(roads, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="bead ' not in detail  # nor in the roads in detail

    out = presenter.state_html(live_view(table, now=landed))
    assert f'data-winner="{coup.winner}"' in out
    assert f'data-testid="player-total">{coup.detail["player_total"]}</b>' in out
    assert f'class="bead w-{coup.winner}' in out
    Coup.objects.filter(pk=coup.pk).update(dealt_at=timezone.now() - (landed - coup.dealt_at))
    detail = client.get(roads, HTTP_HX_REQUEST="true").content.decode()
    assert f'class="bead w-{coup.winner}' in detail
