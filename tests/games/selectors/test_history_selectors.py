"""History reads: filters, totals, paging and the shuffle re-derived from a round's seeds."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from decimal import Decimal

import pytest
from django.db.models import Max
from django.utils import timezone

from games.baccarat.rules import play_coup, settle
from games.cards import server_seed_hash
from games.models import Profile, Round, Table
from games.selectors.history import HistoryFilter, history_page, history_summary, player_rounds
from games.selectors.history_export import csv_rows
from games.selectors.round_report import round_report
from games.selectors.round_verification import verify_round
from games.services import baccarat as baccarat_service
from games.services import rollups
from games.services import war as war_service
from games.services.baccarat import coup_record
from games.verify import derive_shoe
from games.war.rules import play_war, settle_war

# --- a factory of real rounds: cards and results dealt from a real shoe ----------


def _seed(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


def _outcome(bet: int, back: int) -> str:
    return "win" if back > bet else "lose" if back < bet else "push"


def _save(player, table, *, created_at=None, **fields) -> Round:
    seq = (Round.objects.filter(player=player, table=table).aggregate(m=Max("seq"))["m"] or 0) + 1
    rnd = Round.objects.create(
        player=player,
        table=table,
        version=table.current_version,
        game=table.game,
        seq=seq,
        slip_key=uuid.uuid4().hex,
        settled_at=timezone.now(),
        **fields,
    )
    if created_at is not None:  # auto_now_add ignores a given value
        Round.objects.filter(pk=rnd.pk).update(created_at=created_at)
        rnd.refresh_from_db()
    rollups.record(rnd, before=None)  # the player's kept totals, as the round pipeline keeps them
    return rnd


def baccarat_round(
    player,
    *,
    winner: str | None = None,
    bets: dict[str, int] | None = None,
    slug: str = "baccarat-classic",
    seed: str = "history-baccarat",
    client_seed: str = "lucky",
    balance_before: int = 1_000_000,
    created_at=None,
) -> Round:
    """A settled coup dealt from the shoe of (seed, client seed, nonce); the
    first nonce whose coup has ``winner`` is used, so results are known."""
    table = Table.objects.get(slug=slug)
    version = table.current_version
    server_seed = _seed(seed)
    bets = bets or {"player": 1_000}
    nonce = 0
    while True:
        coup = play_coup(derive_shoe(server_seed, client_seed, nonce, version.decks))
        if winner is None or coup.winner == winner:
            break
        nonce += 1
    returns = settle(coup, bets, {k: Decimal(v) for k, v in version.pays.items()})
    total_bet, total_return = sum(bets.values()), sum(returns.values())
    return _save(
        player,
        table,
        created_at=created_at,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(server_seed)),
        client_seed=client_seed,
        nonce=nonce,
        bets=bets,
        returns=returns,
        total_bet=total_bet,
        total_return=total_return,
        balance_before=balance_before,
        balance_after=balance_before - total_bet + total_return,
        outcome=_outcome(total_bet, total_return),
        **coup_record(coup, decks=version.decks),
    )


def war_round(
    player,
    *,
    result: str = "win",
    ante: int = 1_000,
    tie_bet: int = 0,
    seed: str = "history-war",
    client_seed: str = "lucky",
    balance_before: int = 1_000_000,
    created_at=None,
) -> Round:
    """A settled war round with the wanted result (first nonce that gives it)."""
    table = Table.objects.get(slug="casino-war")
    version = table.current_version
    server_seed = _seed(seed)
    decision = {"war_win": "war", "war_lose": "war", "war_tie": "war", "surrender": "surrender"}
    nonce = 0
    while True:
        shoe = derive_shoe(server_seed, client_seed, nonce, version.decks)
        war = play_war(shoe, decision.get(result, "war"))
        if war.result == result:
            break
        nonce += 1
    returns = settle_war(war, ante, tie_bet, {k: Decimal(v) for k, v in version.pays.items()})
    bets = {"ante": ante, **({"tie_bet": tie_bet} if tie_bet else {})}
    if war.decision == "war":
        bets["raise"] = ante
    returns = {k: v for k, v in returns.items() if k in bets}
    total_bet, total_return = sum(bets.values()), sum(returns.values())
    return _save(
        player,
        table,
        created_at=created_at,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(server_seed)),
        client_seed=client_seed,
        nonce=nonce,
        bets=bets,
        returns=returns,
        total_bet=total_bet,
        total_return=total_return,
        balance_before=balance_before,
        balance_after=balance_before - total_bet + total_return,
        outcome=_outcome(total_bet, total_return),
        cards=[str(c) for c in shoe[: 7 if war.decision == "war" else 2]],
        detail={"decision": war.decision, "result": war.result},
        winner=war.result,
    )


def at(day: int, hour: int = 12) -> dt.datetime:
    return dt.datetime(2025, 3, day, hour, tzinfo=dt.UTC)


@pytest.fixture
def known_rounds(make_player):
    """Five rounds over three days for one player, and one for somebody else."""
    alice, bob = make_player("alice"), make_player("bob")
    baccarat_round(alice, winner="player", bets={"player": 1_000}, created_at=at(1))
    baccarat_round(alice, winner="banker", bets={"player": 500}, created_at=at(2, 9))
    baccarat_round(alice, winner="tie", bets={"player": 300}, created_at=at(2, 23))
    war_round(alice, result="win", ante=1_000, created_at=at(3))
    war_round(alice, result="lose", ante=200, created_at=at(3))
    baccarat_round(bob, winner="player", bets={"player": 99_900}, created_at=at(2))
    return alice, bob


# --- filters and totals ----------------------------------------------------------


def test_it_sums_every_round_of_the_player_and_nobody_else(known_rounds):
    alice, _bob = known_rounds
    summary = history_summary(player_id=alice.pk, filters=HistoryFilter())
    assert (summary.rounds, summary.total_bet, summary.total_return) == (5, 3_000, 4_300)
    assert summary.net == 1_300


FILTER_CASES = [
    (HistoryFilter(game="war"), (2, 1_200, 2_000, 800)),
    (HistoryFilter(game="baccarat"), (3, 1_800, 2_300, 500)),
    (HistoryFilter(outcome="lose"), (2, 700, 0, -700)),
    (HistoryFilter(outcome="push"), (1, 300, 300, 0)),
    (HistoryFilter(outcome="win", game="war"), (1, 1_000, 2_000, 1_000)),
    # Whole days, both ends included: 23:00 on the 2nd is in.
    (
        HistoryFilter(date_from=dt.date(2025, 3, 2), date_to=dt.date(2025, 3, 2)),
        (2, 800, 300, -500),
    ),
    (HistoryFilter(date_from=dt.date(2025, 3, 2)), (4, 2_000, 2_300, 300)),
    (HistoryFilter(date_to=dt.date(2025, 3, 1)), (1, 1_000, 2_000, 1_000)),
    (HistoryFilter(date_from=dt.date(2025, 3, 4)), (0, 0, 0, 0)),
]


def test_it_filters_by_game_result_and_dates(known_rounds):
    alice, _bob = known_rounds
    for filters, expected in FILTER_CASES:
        summary = history_summary(player_id=alice.pk, filters=filters)
        got = (summary.rounds, summary.total_bet, summary.total_return, summary.net)
        assert got == expected, filters
        page = history_page(player_id=alice.pk, filters=filters)
        assert len(page.rounds) == expected[0], filters
        assert all(r.player_id == alice.pk for r in page.rounds)


def test_it_lists_newest_first_and_pages_by_cursor(make_player):
    alice = make_player("alice")
    made = [baccarat_round(alice, seed=f"s{i}") for i in range(30)]
    ids = [r.pk for r in reversed(made)]

    first = history_page(player_id=alice.pk, filters=HistoryFilter())
    assert [r.pk for r in first.rounds] == ids[:25]
    assert first.newer is None and first.older == ids[24]

    second = history_page(player_id=alice.pk, filters=HistoryFilter(), before=first.older)
    assert [r.pk for r in second.rounds] == ids[25:]
    assert second.older is None and second.newer == ids[25]

    back = history_page(player_id=alice.pk, filters=HistoryFilter(), after=second.newer)
    assert [r.pk for r in back.rounds] == ids[:25]
    assert back.newer is None

    small = history_page(player_id=alice.pk, filters=HistoryFilter(), per_page=10)
    middle = history_page(
        player_id=alice.pk, filters=HistoryFilter(), before=small.older, per_page=10
    )
    assert [r.pk for r in middle.rounds] == ids[10:20]
    again = history_page(player_id=alice.pk, filters=HistoryFilter(), after=ids[10], per_page=10)
    assert [r.pk for r in again.rounds] == ids[:10]
    third = history_page(
        player_id=alice.pk, filters=HistoryFilter(), before=middle.older, per_page=10
    )
    assert [r.pk for r in third.rounds] == ids[20:30]
    assert third.newer == ids[20] and third.older is None
    up = history_page(player_id=alice.pk, filters=HistoryFilter(), after=third.newer, per_page=10)
    assert [r.pk for r in up.rounds] == ids[10:20]
    assert up.newer == ids[10] and up.older == ids[19]


# --- the round page ----------------------------------------------------------------


def test_it_says_whose_each_card_was_in_deal_order(make_player):
    alice = make_player()
    rnd = baccarat_round(alice)
    report = round_report(rnd)
    owners = [c.owner for c in report.cards]
    assert owners[:4] == ["player", "banker", "player", "banker"]
    assert [c.code for c in report.cards] == rnd.cards
    assert [c.code for c in report.hands["player"]] == rnd.detail["player"]
    assert [c.code for c in report.hands["banker"]] == rnd.detail["banker"]
    assert report.cards[-1].player_total == rnd.detail["player_total"]
    assert report.cards[-1].banker_total == rnd.detail["banker_total"]

    war = war_round(alice, result="war_win")
    war_owners = [c.owner for c in round_report(war).cards]
    assert war_owners == ["player", "dealer", "burn", "burn", "burn", "war_player", "war_dealer"]


# --- verification ----------------------------------------------------------------


def test_it_verifies_a_real_baccarat_round(make_player):
    rnd = baccarat_round(make_player(), bets={"banker": 1_000, "tie": 100, "player_pair": 100})
    result = verify_round(rnd)
    assert result.matches, result.differences
    assert result.derived_cards == rnd.cards


def test_it_names_a_tampered_card(make_player):
    rnd = baccarat_round(make_player())
    stored = list(rnd.cards)
    fake = "KD" if stored[2] != "KD" else "QS"
    Round.objects.filter(pk=rnd.pk).update(cards=[*stored[:2], fake, *stored[3:]])
    rnd.refresh_from_db()
    result = verify_round(rnd)
    assert not result.matches
    assert f"card 3: stored {fake}, derived {stored[2]}" in result.differences


def test_it_names_a_tampered_winner_and_return(make_player):
    rnd = baccarat_round(make_player(), winner="player", bets={"player": 1_000})
    Round.objects.filter(pk=rnd.pk).update(winner="banker", returns={"player": 0})
    rnd.refresh_from_db()
    differences = verify_round(rnd).differences
    assert "winner: stored banker, derived player" in differences
    assert "return on PLAYER: stored 0, derived 20" in differences


def test_it_catches_a_seed_that_does_not_match_its_commitment(make_player):
    rnd = baccarat_round(make_player())
    Round.objects.filter(pk=rnd.pk).update(server_seed_hash="0" * 64)
    rnd.refresh_from_db()
    (difference,) = verify_round(rnd).differences
    assert difference.startswith("server seed hash: committed " + "0" * 64)
    assert server_seed_hash(bytes.fromhex(rnd.server_seed)) in difference


@pytest.mark.parametrize("result", ["win", "lose", "surrender", "war_win", "war_lose", "war_tie"])
def test_it_verifies_war_rounds(make_player, result):
    rnd = war_round(make_player(), result=result, tie_bet=100)
    verification = verify_round(rnd)
    assert verification.matches, verification.differences
    assert verification.derived_result == result


def test_it_names_a_tampered_war_card_and_result(make_player):
    rnd = war_round(make_player(), result="war_lose")
    original = list(rnd.cards)
    fake = "AS" if original[5] != "AS" else "AH"
    Round.objects.filter(pk=rnd.pk).update(
        cards=[*original[:5], fake, original[6]], detail={"decision": "war", "result": "war_win"}
    )
    rnd.refresh_from_db()
    differences = verify_round(rnd).differences
    assert f"card 6: stored {fake}, derived {original[5]}" in differences
    assert "result: stored war_win, derived war_lose" in differences


def test_a_void_round_verifies_the_cards_it_dealt(make_player):
    rnd = baccarat_round(make_player())
    Round.objects.filter(pk=rnd.pk).update(
        status=Round.Status.VOID, cards=rnd.cards[:3], outcome="push", void_reason="test"
    )
    rnd.refresh_from_db()
    assert verify_round(rnd).matches


# --- open rounds and the export -------------------------------------------------


def test_an_open_war_round_keeps_its_seed_and_undealt_cards_secret(make_player):
    rnd = war_round(make_player(), result="war_win")
    Round.objects.filter(pk=rnd.pk).update(
        status=Round.Status.OPEN,
        returns={},
        total_return=0,
        outcome="",
        balance_after=None,
        detail={},
        winner="",
    )
    rnd.refresh_from_db()
    report = round_report(rnd)
    assert [c.code for c in report.cards] == rnd.cards[:2]
    assert not report.revealed
    header, row = list(csv_rows(player_rounds(player_id=rnd.player_id, filters=HistoryFilter())))
    values = dict(zip(header, row, strict=True))
    assert values["server_seed"] == ""
    assert values["cards"] == " ".join(rnd.cards[:2])
    assert values["server_seed_hash"] == rnd.server_seed_hash


def test_the_csv_rows_carry_every_column(known_rounds):
    alice, _bob = known_rounds
    rows = list(csv_rows(player_rounds(player_id=alice.pk, filters=HistoryFilter(game="war"))))
    header, *body = rows
    assert header[:4] == ["id", "time", "player", "game"]
    assert len(body) == 2
    newest = dict(zip(header, body[0], strict=True))
    assert newest["player"] == "alice"
    assert newest["game"] == "war"
    assert newest["table"] == "casino-war"
    assert newest["bets"] == "ante=2"
    assert (newest["total_bet"], newest["total_return"], newest["net"]) == ("2", "0", "-2")
    assert newest["outcome"] == "lose"
    assert newest["result"] == "lose"
    assert len(newest["cards"].split()) == 2


def test_rounds_played_through_the_game_services_verify(make_player):
    """The real BET and DEAL/WAR paths store rounds the verifier agrees with,
    and a war waiting for its decision shows only its first two cards."""
    player = make_player(chips=1_000)
    coup = baccarat_service.place_bet(
        user=player,
        table=Table.objects.get(slug="baccarat-classic"),
        bets={"banker": 1_000, "player_pair": 1_000},
        slip_key="bet-1",
    )
    assert verify_round(coup).matches, verify_round(coup).differences

    # Commit a server seed whose next shoe opens with a tie.
    profile = Profile.objects.get(user=player)
    seed = _seed("a tie")
    nonce = next(
        n
        for n in range(10_000)
        if (shoe := derive_shoe(seed, profile.client_seed, n, 6))[0].rank == shoe[1].rank
    )
    Profile.objects.filter(pk=profile.pk).update(next_server_seed=seed, nonce=nonce)
    table = Table.objects.get(slug="casino-war")
    waiting = war_service.deal(user=player, table=table, ante=1_000, tie_bet=100, slip_key="deal-1")
    assert waiting.status == Round.Status.OPEN
    report = round_report(waiting)
    assert not report.revealed and len(report.cards) == 2

    settled = war_service.decide(user=player, round_id=waiting.pk, decision="war")
    assert len(settled.cards) == 7
    verification = verify_round(settled)
    assert verification.matches, verification.differences
    assert [c.owner for c in round_report(settled).cards][2:5] == ["burn"] * 3
