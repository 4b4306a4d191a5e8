"""History pages as a player and an operator see them."""

from __future__ import annotations

import csv
import hashlib
import io
import uuid
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone

from games.baccarat.rules import play_coup, settle
from games.cards import server_seed_hash
from games.models import Round, Table
from games.services import rollups
from games.services.baccarat import coup_record
from games.verify import derive_shoe
from games.war.rules import play_war, settle_war

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HTMX = {**EN, "HTTP_HX_REQUEST": "true"}
# Staff read another player's rounds and find players with these, not with
# staff status alone (tests/security/test_staff_access.py).
READER_PERMISSIONS = ["view_round", "view_user", "view_wallet"]


# --- real rounds, dealt from real shoes (see the selector tests for the long form) ---


def _save(player, table, **fields) -> Round:
    seq = (Round.objects.filter(player=player, table=table).aggregate(m=Max("seq"))["m"] or 0) + 1
    total_bet, total_return = sum(fields["bets"].values()), sum(fields["returns"].values())
    rnd = Round.objects.create(
        player=player,
        table=table,
        version=table.current_version,
        game=table.game,
        seq=seq,
        slip_key=uuid.uuid4().hex,
        server_seed_hash=server_seed_hash(bytes.fromhex(fields["server_seed"])),
        total_bet=total_bet,
        total_return=total_return,
        balance_before=500_000,
        balance_after=500_000 - total_bet + total_return,
        outcome="win"
        if total_return > total_bet
        else "lose"
        if total_return < total_bet
        else "push",
        settled_at=timezone.now(),
        **fields,
    )
    rollups.record(rnd, before=None)  # the player's kept totals, as the round pipeline keeps them
    return rnd


def baccarat_round(player, *, winner="player", bets=None, seed="views", client_seed="lucky"):
    table = Table.objects.get(slug="baccarat-classic")
    server_seed = hashlib.sha256(seed.encode()).hexdigest()
    bets = bets or {"player": 1_000}
    nonce = 0
    while (coup := play_coup(derive_shoe(server_seed, client_seed, nonce, 8))).winner != winner:
        nonce += 1
    pays = {k: Decimal(v) for k, v in table.current_version.pays.items()}
    return _save(
        player,
        table,
        server_seed=server_seed,
        client_seed=client_seed,
        nonce=nonce,
        bets=bets,
        returns=settle(coup, bets, pays),
        **coup_record(coup, decks=8),
    )


def war_round(player, *, result="war_win", ante=1_000, seed="views-war", client_seed="lucky"):
    table = Table.objects.get(slug="casino-war")
    server_seed = hashlib.sha256(seed.encode()).hexdigest()
    decision = "surrender" if result == "surrender" else "war"
    nonce = 0
    while True:
        shoe = derive_shoe(server_seed, client_seed, nonce, 6)
        war = play_war(shoe, decision)
        if war.result == result:
            break
        nonce += 1
    bets = {"ante": ante, **({"raise": ante} if war.decision == "war" else {})}
    pays = {k: Decimal(v) for k, v in table.current_version.pays.items()}
    returns = {k: v for k, v in settle_war(war, ante, 0, pays).items() if k in bets}
    return _save(
        player,
        table,
        server_seed=server_seed,
        client_seed=client_seed,
        nonce=nonce,
        bets=bets,
        returns=returns,
        cards=[str(c) for c in shoe[: 7 if war.decision == "war" else 2]],
        detail={"decision": war.decision, "result": war.result},
        winner=war.result,
    )


def open_war_round(player) -> Round:
    """A war waiting for the tie decision: two cards dealt, stake taken, nothing returned."""
    rnd = war_round(player, result="war_win")
    Round.objects.filter(pk=rnd.pk).update(
        status=Round.Status.OPEN,
        bets={"ante": 1_000},
        returns={},
        total_bet=1_000,
        total_return=0,
        outcome="",
        balance_after=None,
        detail={},
        winner="",
        settled_at=None,
    )
    rnd.refresh_from_db()
    return rnd


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.fixture
def bob(make_player):
    return make_player("bob")


# --- the history list ---------------------------------------------------------------


def test_it_lists_the_players_rounds_newest_first(client, alice, bob):
    older = baccarat_round(alice, winner="banker")
    newer = war_round(alice, result="win")
    theirs = baccarat_round(bob)
    client.force_login(alice)
    response = client.get(reverse("history"), **EN)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.index(f'data-round="{newer.pk}"') < body.index(f'data-round="{older.pk}"')
    assert f'data-round="{theirs.pk}"' not in body
    assert "Casino War" in body and "Baccarat Classic" in body
    assert "BANKER WINS" in body and "You win" in body
    assert reverse("history_round", args=[newer.pk]) in body
    # The totals come in their own request, so the list never waits for them.
    assert 'hx-get="/history/summary/"' in body


def test_an_htmx_filter_renders_only_the_results(client, alice):
    baccarat_round(alice)
    war = war_round(alice, result="lose")
    client.force_login(alice)
    response = client.get(reverse("history"), {"game": "war"}, **HTMX)
    body = response.content.decode()
    assert "<html" not in body
    assert body.lstrip().startswith('<div id="history-results">')
    assert body.count('data-testid="history-row"') == 1
    assert f'data-round="{war.pk}"' in body
    assert 'hx-get="/history/summary/?game=war"' in body


def test_the_summary_adds_up_the_filter(client, alice, bob):
    baccarat_round(alice, winner="player", bets={"player": 1_000})  # returns 2,000
    baccarat_round(alice, winner="banker", bets={"player": 550})  # loses
    war_round(alice, result="win", ante=300)  # returns 600
    baccarat_round(bob, bets={"player": 77_700})
    client.force_login(alice)
    everything = client.get(reverse("history_summary"), **HTMX).content.decode()
    assert 'data-testid="summary-rounds">3<' in everything
    assert 'data-testid="summary-bet">18.50<' in everything
    assert 'data-testid="summary-return">26<' in everything
    assert 'data-testid="summary-net" class="net">+7.50<' in everything
    baccarat = client.get(
        reverse("history_summary"), {"game": "baccarat", "result": "lose"}, **HTMX
    )
    body = baccarat.content.decode()
    assert 'data-testid="summary-rounds">1<' in body
    assert 'data-testid="summary-net" class="net">-5.50<' in body


def test_a_bad_filter_is_explained_and_does_not_filter(client, alice):
    baccarat_round(alice)
    client.force_login(alice)
    body = client.get(
        reverse("history"), {"date_from": "2025-03-09", "date_to": "2025-03-01"}, **EN
    ).content.decode()
    assert "The start date is after the end date." in body
    assert body.count('data-testid="history-row"') == 1
    body = client.get(
        reverse("history"), {"date_from": "soon", "game": "poker"}, **EN
    ).content.decode()
    assert "Enter a valid date." in body
    assert "Select a valid choice" in body
    assert body.count('data-testid="history-row"') == 1


def test_it_pages_with_newer_and_older_links(client, alice):
    made = [baccarat_round(alice, seed=f"page{i}") for i in range(27)]
    client.force_login(alice)
    first = client.get(reverse("history"), **EN).content.decode()
    assert first.count('data-testid="history-row"') == 25
    assert 'data-testid="history-newer"' not in first
    assert f"?before={made[2].pk}" in first
    second = client.get(reverse("history"), {"before": made[2].pk}, **EN).content.decode()
    assert second.count('data-testid="history-row"') == 2
    assert f"?after={made[1].pk}" in second
    assert 'data-testid="history-older"' not in second


def test_history_needs_a_login(client, db):
    response = client.get(reverse("history"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


# --- a round's page and its verification ------------------------------------------


def test_it_shows_a_round_with_cards_bets_paytable_and_seeds(client, alice):
    rnd = baccarat_round(alice, winner="banker", bets={"banker": 2_000, "tie": 100})
    client.force_login(alice)
    body = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    for i, card in enumerate(rnd.cards):
        assert f'data-card="{card}"' in body
        assert f'title="{i + 1}. ' in body
    assert body.count("<li data-owner=") == len(rnd.cards)
    assert f'data-testid="player-total">{rnd.detail["player_total"]}<' in body
    assert f'data-testid="banker-total">{rnd.detail["banker_total"]}<' in body
    assert "BANKER WINS" in body
    assert 'data-area="banker"><td>BANKER</td><td class="num">20</td>' in body
    assert '<td class="num">39</td>' in body  # 20 x 1.95
    assert 'data-testid="balance-before">5,000<' in body
    assert 'data-testid="balance-after">5,018<' in body  # 5,000 - 21 + 39 + 0 (the tie lost)
    assert "Baccarat Classic, paytable version 1, 8 decks" in body
    assert "×1.95" in body and "×9" in body
    assert rnd.server_seed_hash in body
    assert rnd.server_seed in body
    assert f"--nonce {rnd.nonce} --game baccarat --decks 8" in body
    assert 'id="replay-data"' in body and "js/replay.js" in body


def test_verify_says_matches_then_names_a_tampered_card(client, alice):
    rnd = baccarat_round(alice)
    client.force_login(alice)
    url = reverse("history_round_verify", args=[rnd.pk])
    body = client.post(url, **HTMX).content.decode()
    assert body.lstrip().startswith('<div id="verification" class="verification ok"')
    assert "Matches" in body
    real = rnd.cards[0]
    fake = "9H" if real != "9H" else "9S"
    Round.objects.filter(pk=rnd.pk).update(cards=[fake, *rnd.cards[1:]])
    body = client.post(url, **HTMX).content.decode()
    assert "Does not match" in body
    assert f"card 1: stored {fake}, derived {real}" in body
    # Without htmx the whole page comes back with the verdict in it.
    page = client.get(url, **EN).content.decode()
    assert "<html" in page and f"card 1: stored {fake}, derived {real}" in page


def test_verify_checks_a_war_with_its_decision(client, alice):
    rnd = war_round(alice, result="war_lose")
    client.force_login(alice)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    assert page.count('data-owner="burn"') == 3
    assert "Dealer wins the war" in page
    assert "--decision war" in page
    body = client.post(reverse("history_round_verify", args=[rnd.pk]), **HTMX).content.decode()
    assert "Matches" in body


def test_an_open_round_keeps_its_seed_and_undealt_cards_secret(client, alice):
    rnd = open_war_round(alice)
    client.force_login(alice)
    page = client.get(reverse("history_round", args=[rnd.pk]), **EN).content.decode()
    assert rnd.server_seed_hash in page
    assert rnd.server_seed not in page
    assert "Hidden until the round is over." in page
    assert page.count("<li data-owner=") == 2
    assert 'data-testid="verify"' not in page
    verify = client.post(reverse("history_round_verify", args=[rnd.pk]), **HTMX).content.decode()
    assert rnd.server_seed not in verify
    assert "still waiting for the tie decision" in verify
    export = b"".join(client.get(reverse("history_export")).streaming_content).decode()
    assert rnd.server_seed not in export


# --- who may see what -----------------------------------------------------------------


def test_another_players_rounds_and_history_are_404(client, alice, bob):
    theirs = baccarat_round(bob)
    client.force_login(alice)
    for url in (
        reverse("history_round", args=[theirs.pk]),
        reverse("history_round_verify", args=[theirs.pk]),
        reverse("history_player", args=[bob.pk]),
        reverse("history_player_summary", args=[bob.pk]),
        reverse("history_player_export", args=[bob.pk]),
        reverse("history_player_lookup") + "?username=bob",
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("history_round_verify", args=[theirs.pk])).status_code == 404
    # Their own id in the operator's URL is just their own history.
    assert client.get(reverse("history_player", args=[alice.pk])).status_code == 200


def test_staff_see_and_export_any_players_rounds(client, make_player, alice):
    operator = make_player("operator", is_staff=True)
    operator.user_permissions.set(Permission.objects.filter(codename__in=READER_PERMISSIONS))
    baccarat_round(alice, winner="player", bets={"player": 1_000, "player_pair": 100})
    war = war_round(alice, result="war_win", ante=500)
    client.force_login(operator)

    lookup = client.get(reverse("history_player_lookup"), {"username": "alice"})
    assert lookup["Location"] == reverse("history_player", args=[alice.pk])
    page = client.get(reverse("history_player", args=[alice.pk]), **EN).content.decode()
    assert "Past games of alice" in page
    assert page.count('data-testid="history-row"') == 2
    assert reverse("history_player_export", args=[alice.pk]) in page
    round_page = client.get(reverse("history_round", args=[war.pk]), **EN).content.decode()
    assert 'data-testid="round-player">alice<' in round_page

    response = client.get(reverse("history_player_export", args=[alice.pk]), {"game": "war"})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == [
        "id", "time", "player", "game", "table", "version", "status", "bets", "returns",
        "total_bet", "total_return", "net", "outcome", "result", "cards",
        "server_seed_hash", "server_seed", "client_seed", "nonce",
    ]  # fmt: skip
    assert len(rows) == 2
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["id"] == str(war.pk)
    assert row["player"] == "alice"
    assert row["table"] == "casino-war" and row["version"] == "1" and row["status"] == "settled"
    assert row["bets"] == "ante=5;raise=5"
    assert row["returns"] == "ante=5;raise=10"
    assert (row["total_bet"], row["total_return"], row["net"]) == ("10", "15", "5")
    assert row["outcome"] == "win" and row["result"] == "war_win"
    assert row["cards"] == " ".join(war.cards) and len(war.cards) == 7
    assert row["server_seed"] == war.server_seed
    assert row["server_seed_hash"] == war.server_seed_hash
    assert (row["client_seed"], row["nonce"]) == ("lucky", str(war.nonce))
    assert row["time"].startswith(war.created_at.strftime("%Y-%m-%dT%H:%M:%S"))


def test_a_player_exports_only_their_own_rounds(client, alice, bob):
    mine = baccarat_round(alice)
    baccarat_round(bob)
    client.force_login(alice)
    response = client.get(reverse("history_export"))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r[0] for r in rows[1:]] == [str(mine.pk)]
    assert rows[1][2] == "alice"


def test_an_unknown_player_is_explained_to_staff(client, make_player):
    operator = make_player("operator", is_staff=True)
    operator.user_permissions.set(Permission.objects.filter(codename__in=READER_PERMISSIONS))
    client.force_login(operator)
    response = client.get(
        reverse("history_player_lookup"), {"username": "nobody"}, follow=True, **EN
    )
    assert "No player is called “nobody”." in response.content.decode()
    assert client.get(reverse("history_player", args=[999_999])).status_code == 404
