"""The live squeeze (games/services/live_squeeze.py): the largest stakes
peel, nobody else can open a card, the cards open by themselves on the
clock, nothing is settled or shown before they open, and a dealer that
died mid-squeeze still settles the coup as its cards were drawn."""

from __future__ import annotations

import datetime as dt

import pytest

from commitlog.keys import pseudonym
from games.baccarat import live as shoe_rules
from games.baccarat.rules import play_coup, settle
from games.models import Coup, LedgerEntry, Round, Shoe, Table
from games.money import decimal_pays
from games.presenters import live as presenter
from games.selectors.live import live_view
from games.services import live, live_squeeze
from games.services.tables import save_table, table_snapshot
from games.services.wallet import ledger_mismatches
from tests.live import shoe_under_way

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.UTC)
THRESHOLD = 5_000  # units: 50 chips
SQUEEZE_SECONDS = 8


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


@pytest.fixture
def table():
    table = Table.objects.get(slug="baccarat-live")
    before = table_snapshot(table)
    table.squeeze_threshold = THRESHOLD
    table.squeeze_seconds = SQUEEZE_SECONDS
    return save_table(table=table, actor=None, before=before)


def bet(user, table, now, slip="s", **stakes):
    return live.place_bet(user=user, table=table, bets=stakes, slip_key=slip, now=now).round


def balance(user) -> int:
    user.wallet.refresh_from_db()
    return user.wallet.balance


def squeezing(table, make_player, **stakes_by_name):
    """Open a coup of a shoe under way, place each player's stakes in order, close it."""
    shoe_under_way(table, make_player(chips=1_000), next_opens_at=at(0))
    live.advance(table, now=at(0))
    players = {}
    for i, (name, stakes) in enumerate(stakes_by_name.items()):
        players[name] = make_player(chips=1_000)
        bet(players[name], table, at(1 + i), **stakes)
    step = live.advance(table, now=at(15))
    return step, players


def test_it_picks_the_largest_stake_of_each_side_and_the_earlier_of_two_equal(table, make_player):
    step, p = squeezing(
        table,
        make_player,
        ann={"player": 6_000},
        bob={"player": 9_000},
        cat={"player": 9_000, "player_pair": 1_000},  # as much, later: bob peels
        dan={"banker": 7_000},
        eve={"banker": 1_000, "tie": 9_000},  # the largest slip, not the largest BANKER
    )
    assert step.did == "squeezing"
    coup = Coup.objects.get(pk=step.coup.pk)
    assert coup.status == Coup.Status.SQUEEZING
    assert coup.squeeze["peelers"] == {"player": p["bob"].pk, "banker": p["dan"].pk}
    assert coup.peel_until == at(15 + SQUEEZE_SECONDS)
    first = live_squeeze.current(coup)
    assert (first.slot, first.peeler) == ("p2", p["bob"].pk)


def test_under_the_threshold_a_side_is_not_squeezed_and_with_neither_the_coup_deals(
    table, make_player
):
    step, p = squeezing(table, make_player, ann={"player": 6_000}, bob={"banker": 4_000})
    coup = Coup.objects.get(pk=step.coup.pk)
    assert coup.squeeze["peelers"] == {"player": p["ann"].pk}  # BANKER's 4,000 is under it
    assert {peel.side for peel in live_squeeze.peels(coup)} == {"player"}


def test_small_stakes_are_dealt_and_settled_at_once_as_ever(table, make_player):
    step, _p = squeezing(table, make_player, ann={"player": 1_000}, bob={"banker": 4_990})
    assert step.did == "dealt"  # face up: the cards go out, then the bets settle
    assert live.settle_coup(step.coup) == 2
    assert not Round.objects.filter(status=Round.Status.OPEN).exists()


def test_nothing_tells_the_result_before_the_cards_open_then_they_open_by_themselves(
    table, make_player
):
    step, p = squeezing(table, make_player, ann={"player": 6_000}, bob={"banker": 8_000})
    coup = Coup.objects.get(pk=step.coup.pk)
    ann, bob = p["ann"], p["bob"]
    # Stakes taken, nothing settled or paid.
    assert balance(ann) == 100_000 - 6_000 and balance(bob) == 100_000 - 8_000
    on_coup = Round.objects.filter(coup=coup)
    assert set(on_coup.values_list("status", flat=True)) == {Round.Status.OPEN}
    assert all(r.cards == [] and r.winner == "" for r in on_coup)
    assert not LedgerEntry.objects.filter(round__coup=coup, kind=LedgerEntry.Kind.PAYOUT).exists()
    # The table's state: no result, no roads, only the first two cards open.
    view = live_view(table, now=at(16))
    assert view.last != coup  # the coup before it: this one has no result yet
    assert not {pseudonym(u.pk)[:8] for u in (ann, bob)} & {name for name, _ in view.winners}
    html = presenter.state_html(view)
    assert "data-winner" not in html and 'data-testid="live-result"' not in html
    shown = coup.cards[:2]
    assert live_squeeze.shown_cards(coup) == shown
    faces = [chunk.split('"')[0] for chunk in html.split('data-card="')[1:]]
    assert sorted(faces) == sorted(shown)

    # Each card opens by itself when its time is up; the last one settles.
    steps = len(live_squeeze.peels(coup))
    assert steps >= 2
    now = 15
    for _ in range(steps - 1):
        assert live.advance(table, now=at(now + SQUEEZE_SECONDS - 0.01)).did == ""
        now += SQUEEZE_SECONDS
        assert live.advance(table, now=at(now)).did == "peeled"
    assert Round.objects.filter(status=Round.Status.OPEN).count() == 2
    now += SQUEEZE_SECONDS
    assert live.advance(table, now=at(now)).did == "squeezed"
    coup.refresh_from_db()
    assert coup.status == Coup.Status.DEALT and coup.dealt_at == at(now)
    dealt = live_squeeze.dealt_coup(coup)
    for rnd in on_coup.select_related("version"):
        assert rnd.status == Round.Status.SETTLED and rnd.cards == coup.cards
        assert rnd.returns == settle(dealt, rnd.bets, decimal_pays(rnd.version.pays))
    assert balance(ann) == 100_000 - 6_000 + Round.objects.get(player=ann).total_return
    assert live_view(table, now=at(now)).last == coup
    # The result stays on screen, then the next coup opens.
    assert live.advance(table, now=at(now + 1)).did == ""
    assert live.advance(table, now=at(now + live.RESULT_SECONDS)).did == "opened"
    assert ledger_mismatches() == []


def test_the_cards_are_the_shoes_whoever_peels(table, make_player):
    step, _p = squeezing(table, make_player, ann={"player": 6_000})
    coup = Coup.objects.get(pk=step.coup.pk)
    shoe = Shoe.objects.get(pk=coup.shoe_id)
    order = shoe_rules.shoe_order(bytes.fromhex(shoe.server_seed), shoe.entropy, shoe.decks)
    first = Coup.objects.get(shoe=shoe, number=1)  # the coup that fixed the order
    assert coup.start == first.start + len(first.cards)
    expected = play_coup(order[coup.start :])
    assert coup.cards == [str(c) for c in expected.cards_in_deal_order]


def test_only_the_peeler_opens_the_card_being_peeled(table, make_player):
    step, p = squeezing(
        table, make_player, ann={"player": 6_000}, bob={"banker": 8_000}, cat={"player": 10}
    )
    coup = Coup.objects.get(pk=step.coup.pk)
    ann, bob, cat = p["ann"], p["bob"], p["cat"]
    # A watcher (a small PLAYER stake), the other side's peeler, a card not
    # being peeled, a made-up slot: nothing moves.
    for user, slot in ((cat, "p2"), (bob, "p2"), (bob, "b2"), (ann, "b2"), (ann, "p3"), (ann, "x")):
        assert live.open_card(table=table, user=user, slot=slot, now=at(16)).did == ""
    coup.refresh_from_db()
    assert coup.squeeze["peeled"] == 0 and coup.peel_until == at(15 + SQUEEZE_SECONDS)

    assert live.open_card(table=table, user=ann, slot="p2", now=at(17)).did == "peeled"
    coup.refresh_from_db()
    assert live_squeeze.current(coup).slot == "b2"
    assert coup.peel_until == at(17 + SQUEEZE_SECONDS)  # the next card's clock starts
    assert live.open_card(table=table, user=ann, slot="p2", now=at(17)).did == ""  # once
    assert live.open_card(table=table, user=ann, slot="b2", now=at(18)).did == ""

    # The peelers open every card: the coup settles with the last one.
    now = 18
    while (peel := live_squeeze.current(coup)) is not None:
        user = ann if peel.side == "player" else bob
        did = live.open_card(table=table, user=user, slot=peel.slot, now=at(now)).did
        coup.refresh_from_db()
        assert did == ("squeezed" if coup.status == Coup.Status.DEALT else "peeled")
        now += 1
    assert not Round.objects.filter(status=Round.Status.OPEN).exists()
    assert ledger_mismatches() == []


def test_a_dealer_that_died_mid_squeeze_leaves_the_next_one_to_settle_it_at_once(
    table, make_player
):
    step, p = squeezing(table, make_player, ann={"player": 6_000}, bob={"banker": 8_000})
    # No dealer ran for minutes: the next one opens every card and settles.
    assert live.advance(table, now=at(15 + 300)).did == "squeezed"
    coup = Coup.objects.get(pk=step.coup.pk)
    assert coup.status == Coup.Status.DEALT
    for rnd in Round.objects.filter(coup=coup):
        assert rnd.status == Round.Status.SETTLED and rnd.cards == coup.cards
    assert balance(p["ann"]) == 100_000 - 6_000 + Round.objects.get(player=p["ann"]).total_return
    assert ledger_mismatches() == []


@pytest.mark.parametrize("change", [{"enabled": False}, {"live": False}])
def test_an_operator_closing_the_table_mid_squeeze_opens_the_cards_and_settles(
    table, make_player, change
):
    step, _p = squeezing(table, make_player, ann={"player": 6_000})
    Table.objects.filter(pk=table.pk).update(**change)
    assert table in live.tables_to_deal()
    assert live.advance(table, now=at(16)).did == "squeezed"
    assert Round.objects.get(coup=step.coup).status == Round.Status.SETTLED
    assert table not in live.tables_to_deal()
    assert ledger_mismatches() == []


def test_the_shoes_last_coup_keeps_the_shoes_seed_until_its_cards_open(table, make_player):
    ann = make_player(chips=1_000)
    shoe_under_way(table, ann, next_opens_at=at(21))  # the shoe's order is fixed
    shoe = Shoe.objects.get(table=table)
    order = shoe_rules.shoe_order(bytes.fromhex(shoe.server_seed), shoe.entropy, shoe.decks)
    Shoe.objects.filter(pk=shoe.pk).update(position=shoe_rules.cut_position(order) - 1)
    live.advance(table, now=at(21))
    bet(ann, table, at(22), slip="last", player=6_000)
    last = live.advance(table, now=at(36))
    assert last.did == "squeezing"
    shoe.refresh_from_db()
    assert shoe.ended_at is None and live.shoe_document(shoe) is None
    assert live.advance(table, now=at(36 + 300)).did == "squeezed"
    shoe.refresh_from_db()
    assert shoe.ended_at == at(36 + 300)
    # (The shoe was cut short by hand above, so it is not replayed here.)
    assert live.shoe_document(shoe)["coups"][-1]["number"] == last.coup.number
