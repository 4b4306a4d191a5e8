"""A live table (games/services/live.py): one shoe dealt on the server's
clock, every bet on a coup staked at once and settled by the deal, a stake
after the close refused and nothing taken, a coup dealt once, a coup its
dealer abandoned refunded, and the shoe published and replayable at its end."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from commitlog.keys import pseudonym
from commitlog.models import Leaf
from games.baccarat import live as shoe_rules
from games.baccarat.rules import play_coup
from games.cards import Card
from games.errors import BetRefused
from games.models import Coup, LedgerEntry, LimitRefusal, Round, Shoe, ShoeSeed, Table
from games.presenters.live import DealerLease
from games.services import baccarat, live, play_safe
from games.services.repair import find_problems
from games.services.wallet import ledger_mismatches
from tests.groups import heard
from tests.live import shoe_under_way

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def table():
    return Table.objects.get(slug="baccarat-live")


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def secret(user) -> str:
    return f"secret-of-{user.pk}"


def bet(user, table, now, slip="s", commit=None, **stakes):
    """A bet as the page sends it: on a new shoe's first coup, with the
    commitment of the player's secret seed."""
    return live.place_bet(
        user=user,
        table=table,
        bets=stakes or {"player": 1_000},
        slip_key=slip,
        commit=shoe_rules.seed_commitment(secret(user)) if commit is None else commit,
        now=now,
    )


def shuffle_and_deal(table, players, close=15.0):
    """A new shoe's first coup from its close: commitments fixed, each
    player's seed revealed, then the deal."""
    assert live.advance(table, now=at(close)).did == "revealing"
    for user in players:
        live.reveal(user=user, table=table, seed=secret(user), now=at(close + 1))
    return live.advance(table, now=at(close + live.REVEAL_SECONDS))


def balance(user) -> int:
    user.wallet.refresh_from_db()
    return user.wallet.balance


def test_a_coup_takes_bets_then_deals_and_settles_every_bet_on_it(table, make_player):
    ann, bob = make_player(chips=1_000), make_player(chips=1_000)
    opened = live.advance(table, now=at(0))
    assert opened.did == "opened" and opened.coup.number == 1
    assert opened.coup.closes_at == at(15)
    shoe = Shoe.objects.get(table=table)
    assert Leaf.objects.filter(commitment=shoe.commitment).exists()  # logged before any bet

    a = bet(ann, table, at(3), player=1_000).round
    b = bet(bob, table, at(14.999), banker=2_000, tie=1_000).round
    assert a.status == b.status == Round.Status.OPEN
    assert balance(ann) == 100_000 - 1_000 and balance(bob) == 100_000 - 3_000
    assert a.server_seed == "" and a.server_seed_hash == shoe.commitment  # the seed stays hidden

    assert live.advance(table, now=at(14)).did == ""  # not yet
    dealt = shuffle_and_deal(table, [ann, bob])
    assert dealt.did == "dealt"
    coup = Coup.objects.get(pk=dealt.coup.pk)
    # The deal shows the cards first; the bets settle just after (the dealer's next call).
    assert set(Round.objects.filter(coup=coup).values_list("status", flat=True)) == {"open"}
    assert live.settle_coup(coup) == 2
    shoe.refresh_from_db()
    # The shoe's order is fixed by the seeds the first coup's players revealed.
    assert shoe.contributions == sorted(
        shoe_rules.contribution(pseudonym(u.pk), secret(u)) for u in (ann, bob)
    )
    order = shoe_rules.shoe_order(bytes.fromhex(shoe.server_seed), shoe.entropy, 8)
    expected = play_coup(order[shoe_rules.burned(order) :])
    assert coup.cards == [str(c) for c in expected.cards_in_deal_order]
    for rnd, user in ((a, ann), (b, bob)):
        rnd.refresh_from_db()
        assert rnd.status == Round.Status.SETTLED
        assert rnd.cards == coup.cards and rnd.winner == coup.winner
        assert balance(user) == rnd.balance_after == 100_000 - rnd.total_bet + rnd.total_return
    assert ledger_mismatches() == []


def test_a_stake_a_millisecond_after_the_close_is_refused_and_takes_nothing(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    with pytest.raises(BetRefused, match="No more bets"):
        bet(ann, table, at(15.001))
    with pytest.raises(BetRefused, match="No more bets"):
        bet(ann, table, at(15))
    assert balance(ann) == 100_000
    assert not Round.objects.filter(player=ann).exists()
    assert not LedgerEntry.objects.filter(wallet__user=ann, kind=LedgerEntry.Kind.BET).exists()


def test_after_the_deal_a_late_bet_is_refused_until_the_next_window(table, make_player):
    ann, bob = make_player(chips=1_000), make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    live.advance(table, now=at(15))
    with pytest.raises(BetRefused, match="No more bets"):
        bet(bob, table, at(15.5), slip="late")  # while the seeds are revealed
    live.reveal(user=ann, table=table, seed=secret(ann), now=at(16))
    dealt = live.advance(table, now=at(18))
    assert dealt.did == "dealt"
    with pytest.raises(BetRefused, match="No more bets"):
        bet(bob, table, at(18.5), slip="late")
    assert live.advance(table, now=at(19)).did == ""  # the result stays on screen
    nxt = live.advance(table, now=at(18 + live.RESULT_SECONDS))
    assert nxt.did == "opened" and nxt.coup.number == 2
    assert bet(bob, table, at(25), slip="late").round.coup_id == nxt.coup.pk


def test_one_slip_per_player_per_coup_and_a_replayed_slip_charges_once(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    first = bet(ann, table, at(1), slip="one")
    again = bet(ann, table, at(2), slip="one")
    assert again.replayed and again.round.pk == first.round.pk
    with pytest.raises(BetRefused, match="are placed"):
        bet(ann, table, at(3), slip="two")
    assert balance(ann) == 100_000 - 1_000


def test_the_bet_check_applies_as_at_any_table(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    with pytest.raises(BetRefused):
        bet(ann, table, at(1), player=1_000, banker=1_000)  # never both sides
    with pytest.raises(BetRefused):
        bet(ann, table, at(1), player=table.limits["player"]["max"] + 10)
    assert balance(ann) == 100_000


def test_a_private_table_takes_no_live_bet(make_player):
    ann = make_player(chips=1_000)
    classic = Table.objects.get(slug="baccarat-classic")
    with pytest.raises(BetRefused, match="own rounds"):
        bet(ann, classic, at(0))


def test_a_first_coup_with_no_bet_waits_for_one(table):
    live.advance(table, now=at(0))
    step = live.advance(table, now=at(15))
    assert step.did == "waiting" and step.coup.closes_at == at(30)
    assert Coup.objects.filter(table=table).count() == 1


def test_two_dealers_deal_a_coup_once(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    assert [live.advance(table, now=at(15)).did, live.advance(table, now=at(15)).did] == [
        "revealing",
        "",
    ]
    live.reveal(user=ann, table=table, seed=secret(ann), now=at(16))
    assert [live.advance(table, now=at(18)).did, live.advance(table, now=at(18)).did] == [
        "dealt",
        "",
    ]
    assert LedgerEntry.objects.filter(round__player=ann, kind=LedgerEntry.Kind.PAYOUT).count() <= 1
    assert ledger_mismatches() == []


def test_a_coup_its_dealer_left_a_window_past_its_close_is_refunded(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    rnd = bet(ann, table, at(1)).round
    assert live.advance(table, now=at(30)).did == "void"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOID and "refunded" in rnd.void_reason
    assert balance(ann) == 100_000
    assert ledger_mismatches() == []


def test_the_shoe_is_published_at_its_end_and_replays(table, make_player, settings):
    ann = make_player(chips=100_000)
    now = at(0)
    live.advance(table, now=now)
    bet(ann, table, now, slip="first")
    shoe = Shoe.objects.get(table=table)
    assert live.shoe_document(shoe) is None  # not while it is dealt
    assert shuffle_and_deal(table, [ann]).did == "dealt"
    now, dealt = at(15 + live.REVEAL_SECONDS + live.RESULT_SECONDS), 1
    live.advance(table, now=now)
    shoe.refresh_from_db()
    while shoe.ended_at is None:
        now += dt.timedelta(seconds=15)
        step = live.advance(table, now=now)
        assert step.did == "dealt"
        dealt += 1
        now += dt.timedelta(seconds=live.RESULT_SECONDS)
        live.advance(table, now=now)
        shoe.refresh_from_db()
    doc = live.shoe_document(shoe)
    assert doc is not None and len(doc["coups"]) == dealt > 60
    assert shoe_rules.check_document(doc) == []
    # The next window is a new shoe with a new commitment.
    nxt = Coup.objects.filter(table=table).first()
    assert nxt.shoe.number == 2 and nxt.number == 1
    assert nxt.shoe.commitment != shoe.commitment
    assert Card.parse(doc["coups"][0]["cards"][0])


def test_repair_leaves_a_live_bet_to_its_dealer(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    assert find_problems() == []


def test_a_closed_live_table_does_not_move(table):
    Table.objects.filter(pk=table.pk).update(enabled=False)
    assert live.advance(table, now=timezone.now()).did == ""


def test_a_private_round_cannot_be_played_at_a_live_table(table, make_player):
    """A script that sends the private table's BET to the live table's slug
    (its HTTP URL hands over to the live BET; the private socket does not)
    is refused: the live table's coups are everybody's."""
    ann = make_player(chips=1_000)
    with pytest.raises(BetRefused, match="live table"):
        baccarat.play(user=ann, table=table, bets={"player": 1_000}, slip_key="private")
    assert balance(ann) == 100_000


@pytest.mark.parametrize("change", [{"enabled": False}, {"live": False}])
def test_an_operator_closing_the_table_mid_coup_refunds_its_bets(table, make_player, change):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    rnd = bet(ann, table, at(1)).round
    Table.objects.filter(pk=table.pk).update(**change)
    assert table in live.tables_to_deal()
    assert live.advance(table, now=at(2)).did == "void"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOID and balance(ann) == 100_000
    assert table not in live.tables_to_deal()
    assert ledger_mismatches() == []


# ------------------------------------------------------------------ commit, then reveal


def test_a_seed_counts_only_if_revealed_as_committed_before_the_close(table, make_player):
    """The house (or any player) cannot pick the order: a seed is fixed by
    its commitment before the close, revealed only after it, and a seed
    that does not match its commitment, or comes too early or too late, is
    refused. A commitment withheld counts for nothing and stays listed."""
    ann, bob, cat = (make_player(chips=1_000) for _ in range(3))
    live.advance(table, now=at(0))
    for user in (ann, bob, cat):
        bet(user, table, at(1), slip=f"s{user.pk}")
    with pytest.raises(BetRefused, match="no seed to reveal"):
        live.reveal(user=ann, table=table, seed=secret(ann), now=at(2))  # before the close
    assert live.advance(table, now=at(15)).did == "revealing"
    with pytest.raises(BetRefused, match="does not match"):
        live.reveal(user=ann, table=table, seed="another-seed", now=at(16))
    live.reveal(user=ann, table=table, seed=secret(ann), now=at(16))
    live.reveal(user=ann, table=table, seed=secret(ann), now=at(16.5))  # again: the same
    with pytest.raises(BetRefused, match="no seed to reveal"):  # too late
        live.reveal(user=bob, table=table, seed=secret(bob), now=at(15 + live.REVEAL_SECONDS))
    assert live.advance(table, now=at(15 + live.REVEAL_SECONDS)).did == "dealt"
    shoe = Shoe.objects.get(table=table)
    assert shoe.contributions == [shoe_rules.contribution(pseudonym(ann.pk), secret(ann))]
    assert len(shoe.commitments) == 3
    assert shoe_rules.withheld(shoe.commitments, shoe.contributions) == sorted(
        pseudonym(u.pk) for u in (bob, cat)
    )
    assert shoe_rules.check_reveals(shoe.commitments, shoe.contributions) == []


def test_a_player_who_committed_nothing_has_nothing_to_reveal(table, make_player):
    ann, bob = make_player(chips=1_000), make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    bet(bob, table, at(1), commit="")  # a bet without a seed of its own
    live.advance(table, now=at(15))
    with pytest.raises(BetRefused, match="committed no seed"):
        live.reveal(user=bob, table=table, seed=secret(bob), now=at(16))
    assert ShoeSeed.objects.filter(player=bob).count() == 0


def test_a_malformed_commitment_takes_nothing(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    with pytest.raises(BetRefused, match="SHA-256"):
        bet(ann, table, at(1), commit="not-a-hash")
    assert balance(ann) == 100_000 and not Round.objects.filter(player=ann).exists()


def test_a_commitment_on_a_later_coup_is_not_kept(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    shuffle_and_deal(table, [ann])
    live.advance(table, now=at(30))
    bet(ann, table, at(31), slip="second", commit=shoe_rules.seed_commitment("late"))
    assert list(ShoeSeed.objects.values_list("commitment", flat=True)) == [
        shoe_rules.seed_commitment(secret(ann))
    ]


@pytest.mark.parametrize("committed", [False, True])
def test_a_new_shoe_nobody_seeded_is_put_away_and_its_bets_refunded(table, make_player, committed):
    """Bets but no commitment at the close, or commitments but no reveal:
    the shoe cannot be shuffled by the players, so no card is dealt from
    it; every bet is refunded and the next window starts a new shoe."""
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    rnd = bet(ann, table, at(1), commit=None if committed else "").round
    step = live.advance(table, now=at(15))
    if committed:
        assert step.did == "revealing"
        step = live.advance(table, now=at(15 + live.REVEAL_SECONDS))
    assert step.did == "void"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOID and "seed" in rnd.void_reason
    assert balance(ann) == 100_000 and ledger_mismatches() == []
    shoe = Shoe.objects.get(table=table)
    assert shoe.ended_at is not None and shoe.entropy == "" and live.shoe_document(shoe) is None
    nxt = live.advance(table, now=at(15 + live.REVEAL_SECONDS + live.RESULT_SECONDS))
    assert nxt.did == "opened" and nxt.coup.shoe.number == 2


def test_a_dealer_that_died_while_seeds_were_revealed_refunds_the_coup(table, make_player):
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    rnd = bet(ann, table, at(1)).round
    live.advance(table, now=at(15))
    assert live.advance(table, now=at(15 + live.REVEAL_SECONDS + 15)).did == "void"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOID and balance(ann) == 100_000


def test_one_dealer_holds_the_lease_and_a_standby_takes_it_when_it_lapses():
    """Two dealer processes: one deals, the other stands by; when the first
    stops renewing (killed), its lease lapses and the standby deals."""
    cache.delete(DealerLease.KEY)
    first, standby = DealerLease(), DealerLease()
    assert first.held() and not standby.held()
    assert first.held() and not standby.held()  # renewed on each pass
    cache.delete(DealerLease.KEY)  # the first dealer died: its lease ran out
    assert standby.held() and not first.held()


@pytest.mark.parametrize("how", ["table closed and opened", "dealer died"])
def test_a_new_shoe_void_once_its_seeds_are_known_is_never_dealt(table, make_player, how):
    """An attack on the shuffle: void a new shoe's first coup after its
    seeds were revealed (staff turn the table off and on, or the dealer
    misses its window). Kept, the shoe would let the house, knowing its own
    seed and the revealed ones, commit a seed that picks the order at the
    next window. The shoe is put away unshuffled; the next coup is a new
    shoe with a new seed, and the seeds revealed count for nothing."""
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    assert live.advance(table, now=at(15)).did == "revealing"
    live.reveal(user=ann, table=table, seed=secret(ann), now=at(16))
    if how == "dealer died":
        then = at(15 + live.REVEAL_SECONDS + 15)
        assert live.advance(table, now=then).did == "void"
    else:
        then = at(16.5)
        Table.objects.filter(pk=table.pk).update(enabled=False)
        assert live.advance(table, now=then).did == "void"
        Table.objects.filter(pk=table.pk).update(enabled=True)
    old = Shoe.objects.get(table=table)
    assert old.ended_at == then and old.entropy == "" and live.shoe_document(old) is None
    assert balance(ann) == 100_000 and ledger_mismatches() == []
    nxt = live.advance(table, now=then + dt.timedelta(seconds=live.RESULT_SECONDS))
    assert nxt.did == "opened" and nxt.coup.shoe.number == 2
    assert nxt.coup.shoe.commitment != old.commitment
    bet(ann, table, then + dt.timedelta(seconds=live.RESULT_SECONDS + 1), slip="again")
    assert ShoeSeed.objects.filter(shoe=nxt.coup.shoe, player=ann).exists()


def test_a_bet_meant_for_a_coup_that_closed_is_not_staked_on_the_next(table, make_player):
    """A BET the page sent for coup 1 that reaches the server only once
    coup 2 takes bets (queued behind others, a slow network) is refused:
    the player chose for the coup on their screen, not the next one."""
    ann = make_player(chips=1_000)
    shoe_under_way(table, next_opens_at=at(0))
    shown = Coup.objects.get(table=table, number=1)
    nxt = live.advance(table, now=at(0)).coup
    with pytest.raises(BetRefused, match="No more bets"):
        live.place_bet(
            user=ann, table=table, bets={"player": 1_000}, slip_key="late", coup=str(shown.pk),
            now=at(1),
        )  # fmt: skip
    assert balance(ann) == 100_000 and not Round.objects.filter(player=ann).exists()
    placed = live.place_bet(
        user=ann, table=table, bets={"player": 1_000}, slip_key="now", coup=str(nxt.pk), now=at(1)
    )
    assert placed.round.coup_id == nxt.pk


@pytest.mark.parametrize("seed", ["\ud800", "tab\there", "a:b", "x" * 65, ""])
def test_a_seed_that_could_not_be_written_down_is_refused_with_a_reason(table, make_player, seed):
    """A lone surrogate once closed the sender's socket (it cannot be
    encoded); a seed of another shape could be read two ways."""
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    bet(ann, table, at(1))
    live.advance(table, now=at(15))
    with pytest.raises(BetRefused, match="characters of text"):
        live.reveal(user=ann, table=table, seed=seed, now=at(16))


def test_a_bet_over_the_players_loss_limit_is_refused_and_counted_once(table, make_player):
    """The live BET runs in a transaction of its own (its locks in the deal's
    order): the refusal still reaches the operator's count, once."""
    ann = make_player(chips=1_000)
    play_safe.set_loss_limit(user=ann, period="day", amount=5_000)
    live.advance(table, now=at(0))
    with pytest.raises(BetRefused) as refused:
        bet(ann, table, at(1), player=6_000)
    assert refused.value.code == "loss_limit"
    assert LimitRefusal.objects.filter(user=ann, code="loss_limit").count() == 1
    assert balance(ann) == 100_000


def test_bets_a_dealer_left_open_after_its_deal_are_settled_before_the_next_coup(
    table, make_player
):
    """The deal's transaction stores the cards; the bets settle after, in
    batches. A dealer that died in between leaves some open: the next one
    settles them before it opens the next coup, each once."""
    players = [make_player(chips=1_000) for _ in range(3)]
    live.advance(table, now=at(0))
    for user in players:
        bet(user, table, at(1), slip=f"s{user.pk}")
    dealt = shuffle_and_deal(table, players)
    assert dealt.did == "dealt"
    with transaction.atomic():  # one batch of two, then the dealer died
        assert live._settle_open(dealt.coup, at(18), limit=2) == 2
    assert Round.objects.filter(coup=dealt.coup, status=Round.Status.OPEN).count() == 1
    assert live.advance(table, now=at(18 + live.RESULT_SECONDS)).did == "opened"
    assert not Round.objects.filter(coup=dealt.coup, status=Round.Status.OPEN).exists()
    assert live.settle_coup(dealt.coup) == 0  # nothing twice
    payouts = LedgerEntry.objects.filter(round__coup=dealt.coup, kind=LedgerEntry.Kind.PAYOUT)
    assert payouts.values("round").distinct().count() == payouts.count()  # one a bet at most
    assert ledger_mismatches() == []


def test_a_players_socket_hears_their_last_coup_when_it_settles_and_when_a_bet_is_refunded(
    table, make_player, django_capture_on_commit_callbacks
):
    """The seat message carries the player's figures, so no socket reads
    the database for them after a deal; a refund still names the last coup
    that settled."""
    ann = make_player(chips=1_000)
    live.advance(table, now=at(0))
    first = bet(ann, table, at(1), player=1_000).round
    dealt = shuffle_and_deal(table, [ann])

    def told(step) -> dict:
        def run() -> None:
            with django_capture_on_commit_callbacks(execute=True):
                step()

        return heard(live.seat_group(ann.pk), run)[1]

    settled = told(lambda: live.settle_coup(dealt.coup, now=at(18)))
    first.refresh_from_db()
    figures = {"round": first.pk, "coup": 1, "staked": 1_000, "returned": first.total_return}
    assert settled == {
        "type": "live.seat",
        "table": table.pk,
        "balance": first.balance_after,
        "last": figures,
    }

    opens = 18 + live.RESULT_SECONDS
    assert live.advance(table, now=at(opens)).did == "opened"
    second = bet(ann, table, at(opens + 1), slip="again", player=2_000).round
    refunded = told(lambda: live.advance(table, now=at(opens + 40)))
    second.refresh_from_db()
    assert second.status == Round.Status.VOID
    assert refunded == {
        "type": "live.seat",
        "table": table.pk,
        "balance": first.balance_after,
        "last": figures,
    }
