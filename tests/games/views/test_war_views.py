"""The War table's pages: what a player sees and sends."""

from __future__ import annotations

import datetime as dt
import re
from functools import cache

import pytest
from django.urls import reverse
from django.utils import timezone

from games.cards import server_seed_hash
from games.models import LedgerEntry, Profile, Round, Table, Wallet
from games.money import decimal_pays
from games.services import account, war
from games.services.tables import save_table, table_snapshot
from games.war.odds import exact_edge
from tests.seeds import find_seed, war_cases

CLIENT_SEED = "war-views"
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@cache
def seed_for(case: str) -> str:
    return find_seed("war-views", CLIENT_SEED, 6, lambda shoe: case in war_cases(shoe))


def next_shoe(user, case: str) -> None:
    Profile.objects.filter(user=user).update(
        next_server_seed=seed_for(case), client_seed=CLIENT_SEED, nonce=0
    )


@pytest.fixture
def table(db) -> Table:
    return Table.objects.get(slug="casino-war")


@pytest.fixture
def player(client, make_player):
    user = make_player(chips=1_000)
    client.force_login(user)
    return user


def url(name: str, table: Table) -> str:
    return reverse(name, args=[table.slug])


def test_it_shows_the_table_with_its_chips_limits_keys_and_rules_link(client, player, table):
    body = client.get(table.get_absolute_url(), **EN).content.decode()
    for chip in (1, 5, 25, 100, 500):
        assert f'data-chip="{chip}"' in body
    assert "TIE BONUS" in body and "DEAL" in body
    assert url("war_rules", table) in body
    for key in ("PgDn", "Del", "Enter"):
        assert f"<kbd>{key}</kbd>" in body
    assert "ws/war/casino-war/" in body
    assert 'data-testid="round-max">10,500<' in body


def test_it_speaks_japanese(client, player, table):
    body = client.get(table.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="ja">' in body


def test_deal_shows_the_cards_the_result_and_the_new_balance(client, player, table):
    next_shoe(player, "win")
    response = client.post(
        url("war_deal", table), {"ante": "10", "tie_bet": "0", "slip_key": "a"}, **HTMX
    )
    body = response.content.decode()
    rnd = Round.objects.get(player=player)
    assert f'data-card="{rnd.cards[0]}"' in body and f'data-card="{rnd.cards[1]}"' in body
    assert 'data-result="win"' in body
    assert 'data-testid="war-payout">20<' in body
    assert 'id="header-balance"' in body and 'hx-swap-oob="true"' in body
    assert 'data-testid="header-balance">1,010<' in body
    # The hash committed for the next round, not the one this round used.
    seed = Profile.objects.get(user=player).next_server_seed
    assert f'data-testid="next-seed-hash">{server_seed_hash(bytes.fromhex(seed))}<' in body
    assert rnd.server_seed_hash not in body


def test_a_refused_deal_says_why_and_changes_nothing(client, player, table):
    before = Wallet.objects.get(user=player).balance
    response = client.post(
        url("war_deal", table), {"ante": "6000", "tie_bet": "0", "slip_key": "b"}, **HTMX
    )
    assert response["HX-Retarget"] == "#war-message"
    assert "The maximum bet on ANTE is 5,000 chips." in response.content.decode()
    assert Wallet.objects.get(user=player).balance == before
    assert not Round.objects.filter(player=player).exists()


def snapshot(user) -> tuple:
    """Everything a refused DEAL must leave untouched."""
    profile = Profile.objects.get(user=user)
    return (
        Wallet.objects.get(user=user).balance,
        LedgerEntry.objects.filter(wallet__user=user).count(),
        Round.objects.filter(player=user).count(),
        profile.nonce,
        profile.next_server_seed,
    )


@pytest.mark.parametrize(
    "ante", ["1e999999999", "１０", "1e3", "NaN", "Infinity", "-0", "1 0", "9" * 400]
)
def test_an_ante_that_is_not_an_amount_is_refused_422_never_a_500(client, player, table, ante):
    """``1e999999999`` overflowed the Decimal multiplication (a 500); ``１０``
    and ``1e3`` were taken as 10 and 1,000 chips. Each is now a client error
    (422) that says how an amount is written, and nothing is dealt."""
    before = snapshot(player)
    response = client.post(url("war_deal", table), {"ante": ante, "slip_key": "bad"}, **HTMX)
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#war-message"
    assert "written with the digits 0-9" in response.content.decode()
    plain = client.post(
        url("war_deal", table), {"tie_bet": ante, "ante": "5", "slip_key": "b"}, **EN
    )
    assert plain.status_code == 422
    assert 'data-testid="refused-message"' in plain.content.decode()
    assert snapshot(player) == before


def test_the_table_says_which_ante_can_still_go_to_war(client, player, table):
    """The MAX BET (10,500) bounds the ante, the tie bet and a war's raise:
    the line beside the ANTE limits says 5,000 (the ANTE's own MAX, which can
    go to war); with a personal max of 100
    it says 50, and changing the max bet in the menu updates it at once."""
    body = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="war-ante-most">5,000<' in body
    Profile.objects.filter(user=player).update(personal_max_bet=100 * 100)
    body = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="war-ante-most">50<' in body
    Profile.objects.filter(user=player).update(personal_max_bet=None)
    pin_for(player)
    body = client.post(
        url("war_menu_max_bet", table), {"max_bet": "30", "pin": "1234"}, **HTMX
    ).content.decode()
    assert 'id="war-limits"' in body and 'data-testid="war-ante-most">15<' in body


def test_the_table_says_when_no_ante_can_go_to_war(client, player, table):
    Profile.objects.filter(user=player).update(personal_max_bet=9 * 100)
    body = client.get(table.get_absolute_url(), **EN).content.decode()
    hint = body[body.index('data-testid="war-ante-hint"') :]
    assert '<span data-war-hint="some" hidden>' in hint
    assert '<span data-war-hint="none">No ante can go to war under this MAX BET</span>' in hint


def test_an_ante_whose_war_would_pass_the_personal_max_is_refused_at_the_deal(
    client, player, table
):
    Profile.objects.filter(user=player).update(personal_max_bet=100 * 100)
    before = snapshot(player)
    response = client.post(url("war_deal", table), {"ante": "100", "slip_key": "w"}, **HTMX)
    assert response.status_code == 200  # a rule of the table, said in the message region
    assert "the largest ANTE that can still go to war is 50 chips" in response.content.decode()
    assert snapshot(player) == before


def test_the_menu_refuses_a_max_bet_that_is_not_a_whole_number_of_chips(client, player, table):
    pin_for(player)
    for bad in ("１００", "1e2", "100.5", "-0", "1 00", "NaN"):
        response = client.post(
            url("war_menu_max_bet", table), {"max_bet": bad, "pin": "1234"}, **HTMX
        )
        assert response.status_code == 200, bad  # the menu's answer, errors and all
        assert "Enter a whole number of chips with the digits 0-9" in response.content.decode()
    assert Profile.objects.get(user=player).personal_max_bet is None


def test_an_ante_under_the_minimum_is_raised_with_a_note(client, player, table):
    next_shoe(player, "lose")
    body = client.post(
        url("war_deal", table), {"ante": "1", "slip_key": "c"}, **HTMX
    ).content.decode()
    assert "was under the table minimum and was raised to 5" in body
    assert 'data-ante="5"' in body


def test_a_tie_shows_the_decision_and_keeps_the_server_seed_hidden(client, player, table):
    next_shoe(player, "war_win")
    body = client.post(
        url("war_deal", table), {"ante": "10", "tie_bet": "1", "slip_key": "d"}, **HTMX
    ).content.decode()
    rnd = Round.objects.get(player=player)
    assert 'data-testid="decision-panel"' in body
    assert 'data-testid="btn-war"' in body and "disabled" not in body.split("btn-war")[1][:40]
    assert "Your TIE BONUS pays 11." in body
    assert rnd.server_seed not in body
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert rnd.server_seed not in page

    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **HTMX
    ).content.decode()
    rnd.refresh_from_db()
    assert 'data-result="war_win"' in body
    assert body.count('data-testid="burn-card"') == 3
    assert f'data-testid="war-player-card" data-card="{rnd.cards[5]}"' in body
    assert f'data-testid="war-dealer-card" data-card="{rnd.cards[6]}"' in body
    assert rnd.server_seed in body  # revealed once the round is over


def test_war_is_disabled_when_the_raise_is_short(client, make_player, table):
    user = make_player(chips=10)
    client.force_login(user)
    next_shoe(user, "tie")
    body = client.post(
        url("war_deal", table), {"ante": "10", "slip_key": "e"}, **HTMX
    ).content.decode()
    assert "Only SURRENDER remains" in body
    assert 'data-testid="btn-war" disabled' in body
    rnd = Round.objects.get(player=user)
    response = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **HTMX
    )
    assert "You can still surrender" in response.content.decode()
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN


def test_a_new_deal_is_refused_while_the_decision_waits(client, player, table):
    next_shoe(player, "tie")
    client.post(url("war_deal", table), {"ante": "10", "slip_key": "f"}, **HTMX)
    response = client.post(url("war_deal", table), {"ante": "10", "slip_key": "g"}, **HTMX)
    assert "Finish your war decision first" in response.content.decode()
    assert Round.objects.filter(player=player).count() == 1


def test_when_time_runs_out_the_player_lands_in_the_lobby_and_comes_back_to_the_same_cards(
    client, player, table
):
    next_shoe(player, "tie")
    client.post(url("war_deal", table), {"ante": "10", "slip_key": "h"}, **HTMX)
    rnd = Round.objects.get(player=player)
    Round.objects.filter(pk=rnd.pk).update(
        decision_deadline=rnd.decision_deadline - dt.timedelta(minutes=5)
    )
    # A late decision is refused and the page is sent off the table.
    response = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "surrender"}, **HTMX
    )
    assert response["HX-Redirect"].endswith(url("war_timed_out", table))
    response = client.get(url("war_timed_out", table), **EN)
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    lobby = client.get(reverse("lobby"), **EN).content.decode()
    assert "Time ran out for your war decision" in lobby
    # The lobby says where to resume, with a link to the table.
    assert 'data-testid="resume-round"' in lobby
    assert f'href="{table.get_absolute_url()}" data-testid="resume-link"' in lobby

    # Coming back: the same cards and a fresh countdown.
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="decision-panel"' in page
    assert f'data-testid="player-card" data-card="{rnd.cards[0]}"' in page
    assert 'data-seconds-left="30"' in page
    resumed = Round.objects.get(pk=rnd.pk)
    assert war.timed_out(resumed) is False
    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "surrender"}, **HTMX
    ).content.decode()
    assert 'data-result="surrender"' in body
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.SETTLED


def test_over_http_a_reload_buys_no_time_and_a_late_decision_takes_the_player_off_the_table(
    client, player, table
):
    """Found by the cold attack of issue 44: over HTTP a tie decision was
    accepted after its deadline, for the table page restarted the countdown
    at every load. A reload shows the seconds left; once they run out a
    decision is refused (without htmx too) and the player lands in the
    lobby, the round saved, as over the socket."""
    next_shoe(player, "tie")
    client.post(url("war_deal", table), {"ante": "10", "slip_key": "r"}, **HTMX)
    rnd = Round.objects.get(player=player)
    # 20 of the 30 seconds gone: a reload shows what is left, not 30 again
    # (read against the clock after the page, which a busy machine slows).
    deadline = timezone.now() + dt.timedelta(seconds=10)
    Round.objects.filter(pk=rnd.pk).update(decision_deadline=deadline)
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    left = (deadline - timezone.now()).total_seconds()
    shown = int(re.search(r'data-seconds-left="(\d+)"', page).group(1))
    assert round(left) <= shown <= 10, (shown, left)
    assert Round.objects.get(pk=rnd.pk).decision_deadline == deadline
    # The deadline (and its grace) passed: a decision posted without htmx.
    Round.objects.filter(pk=rnd.pk).update(
        decision_deadline=timezone.now() - war.DECISION_GRACE - dt.timedelta(seconds=1)
    )
    before = snapshot(player)
    response = client.post(url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **EN)
    assert response.status_code == 302
    assert response["Location"] == url("war_timed_out", table)
    lobby = client.get(response["Location"], follow=True, **EN).content.decode()
    assert "Time ran out for your war decision" in lobby
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.OPEN
    assert snapshot(player) == before


def test_a_double_deal_is_charged_once(client, player, table):
    next_shoe(player, "lose")
    for _ in range(2):
        client.post(url("war_deal", table), {"ante": "10", "slip_key": "same"}, **HTMX)
    assert Round.objects.filter(player=player).count() == 1
    assert LedgerEntry.objects.filter(wallet__user=player, kind="bet").count() == 1


def test_the_rules_page_shows_the_paytable_and_the_exact_edges(client, player, table):
    body = client.get(url("war_rules", table), **EN).content.decode()
    edges = exact_edge(6, decimal_pays(table.current_version.pays))
    for fraction in edges.values():
        assert f"{fraction.numerator}/{fraction.denominator}" in body
        assert f"{float(fraction) * 100:.4f}%" in body
    assert "2.8771%" in body  # going to war, 6 decks: the textbook 2.88%
    assert "10 to 1" in body
    assert table.get_absolute_url() in body


def test_the_table_needs_a_login(client, table):
    response = client.get(table.get_absolute_url())
    assert response.status_code == 302


def test_without_javascript_a_deal_reloads_the_table_with_its_result(client, player, table):
    next_shoe(player, "lose")
    response = client.post(url("war_deal", table), {"ante": "10", "slip_key": "plain"}, **EN)
    rnd = Round.objects.get(player=player)
    assert response.status_code == 302
    assert response["Location"] == f"{table.get_absolute_url()}?round={rnd.pk}"
    body = client.get(response["Location"], **EN).content.decode()
    assert 'data-result="lose"' in body
    refused = client.post(url("war_deal", table), {"ante": "9999", "slip_key": "x"}, **EN)
    assert refused.status_code == 302
    page = client.get(refused["Location"], **EN).content.decode()
    assert "The maximum bet on ANTE is 5,000 chips." in page


def test_a_tie_keeps_the_stakes_on_their_spots_and_pays_the_tie_bonus_there(client, player, table):
    next_shoe(player, "war_win")
    body = client.post(
        url("war_deal", table), {"ante": "10", "tie_bet": "1", "slip_key": "spots"}, **HTMX
    ).content.decode()
    assert 'data-testid="ante-amount">10<' in body
    assert 'data-testid="tie-amount">1<' in body
    assert 'data-testid="raise-amount"><' in body
    assert 'data-testid="result-tie" data-outcome="won">WON +10<' in body
    assert 'data-testid="result-ante"' not in body
    rnd = Round.objects.get(player=player)
    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "war"}, **HTMX
    ).content.decode()
    assert 'data-testid="raise-amount">10<' in body
    assert 'data-testid="result-ante" data-outcome="push">PUSH<' in body
    assert 'data-testid="result-raise" data-outcome="won">WON +10<' in body
    # The three burnt cards are drawn face down, their faces never sent.
    burns = body.split('data-testid="burns"')[1].split('class="war-row')[0]
    assert burns.count('data-testid="burn-card"') == 3
    assert burns.count("face-down") == 3 and "data-card=" not in burns


def test_a_surrender_shows_half_the_ante_back_on_its_spot(client, player, table):
    next_shoe(player, "surrender")
    client.post(url("war_deal", table), {"ante": "25", "slip_key": "half"}, **HTMX)
    rnd = Round.objects.get(player=player)
    body = client.post(
        url("war_decide", table), {"round_id": rnd.pk, "decision": "surrender"}, **HTMX
    ).content.decode()
    assert 'data-testid="result-ante" data-outcome="half">HALF BACK 12.50<' in body


def pin_for(user, pin: str = "1234") -> None:
    account.set_pin(user=user, password="pw-Secret-123", new_pin=pin)


def test_the_menu_sets_the_personal_max_bet_with_the_pin_and_the_table_follows(
    client, player, table
):
    pin_for(player)
    response = client.post(
        url("war_menu_max_bet", table), {"max_bet": "100", "pin": "1234"}, **HTMX
    )
    body = response.content.decode()
    assert "Your personal max bet is now 100 chips per round, in every game." in body
    assert Profile.objects.get(user=player).personal_max_bet == 10_000
    # The table's limits come along, out of band: MAX BET is now the player's.
    assert 'id="war-limits"' in body and 'hx-swap-oob="true"' in body
    assert 'data-testid="round-max">100<' in body
    assert 'data-round-max="10000"' in body
    # Once a week: a second change is refused with the date it is allowed again.
    body = client.post(
        url("war_menu_max_bet", table), {"max_bet": "50", "pin": "1234"}, **HTMX
    ).content.decode()
    assert "You can change your max bet again from" in body
    assert Profile.objects.get(user=player).personal_max_bet == 10_000


def test_the_menu_refuses_a_max_bet_without_the_pin_or_with_a_wrong_one(client, player, table):
    body = client.post(url("war_menu_max_bet", table), {"max_bet": "100"}, **HTMX).content.decode()
    assert "Enter your PIN to confirm the change." in body
    body = client.post(
        url("war_menu_max_bet", table), {"max_bet": "100", "pin": "1234"}, **HTMX
    ).content.decode()
    assert "Set a PIN first." in body
    pin_for(player)
    body = client.post(
        url("war_menu_max_bet", table), {"max_bet": "100", "pin": "9999"}, **HTMX
    ).content.decode()
    assert "The PIN is not correct." in body
    assert Profile.objects.get(user=player).personal_max_bet is None
    page = client.get(table.get_absolute_url(), **EN).content.decode()
    assert 'data-testid="round-max">10,500<' in page


def test_the_menu_saves_the_settings_for_every_game(client, player, table):
    body = client.post(
        url("war_menu_settings", table), {"sound": "1", "fast_play": "1"}, **HTMX
    ).content.decode()
    assert 'data-testid="settings-saved"' in body
    profile = Profile.objects.get(user=player)
    assert (profile.sound, profile.effects, profile.music, profile.fast_play) == (
        True,
        False,
        False,
        True,
    )


def test_the_menu_history_lists_the_players_rounds_at_this_table(
    client, player, make_player, table
):
    other = make_player(chips=100)
    for i, who in enumerate((player, player, other)):
        next_shoe(who, "lose")
        war.deal(user=who, table=table, ante=500, tie_bet=0, slip_key=f"h{i}")
    body = client.get(url("war_menu_history", table), **HTMX).content.decode()
    mine = Round.objects.filter(player=player).order_by("-id")
    assert body.count('data-testid="game-history-row"') == 2
    for rnd in mine:
        assert f'href="{reverse("history_round", args=[rnd.pk])}"' in body
    assert "Dealer wins" in body and "-5" in body


def test_the_menu_bet_options_say_when_the_max_bet_can_change_again(client, player, table):
    body = client.get(url("war_menu_bet_options", table), **HTMX).content.decode()
    assert 'data-testid="max-bet-no-pin"' in body
    pin_for(player)
    body = client.get(url("war_menu_bet_options", table), **HTMX).content.decode()
    assert 'data-testid="menu-max-bet-form"' in body
    # Changed a minute ago: the form waits for the next Friday 00:00 in New York.
    changed = timezone.now() - dt.timedelta(minutes=1)
    Profile.objects.filter(user=player).update(max_bet_changed_at=changed)
    body = client.get(url("war_menu_bet_options", table), **HTMX).content.decode()
    assert 'data-testid="menu-max-bet-form"' not in body
    allowed = account.next_change_allowed(changed).astimezone(account.WEEK_ZONE)
    assert allowed.strftime("%a %Y-%m-%d 00:00").startswith("Fri")
    assert allowed.strftime("%a %Y-%m-%d 00:00") in body


def test_a_deal_from_a_page_showing_an_older_paytable_takes_nothing_and_redraws_it(
    client, player, table
):
    """The operator lowers the tie bonus between the page's load and DEAL:
    the DEAL is not settled at payouts the player never saw. Nothing is
    taken; the page is drawn again with the new paytable and says why."""
    shown = re.search(
        r'name="table_version" value="(\d+)"',
        client.get(table.get_absolute_url(), **EN).content.decode(),
    ).group(1)
    before = table_snapshot(table)
    table.pays = {**table.pays, "tie_bet": "3"}  # 2 to 1, not 10 to 1
    save_table(table=table, actor=None, before=before)
    rows, balance = LedgerEntry.objects.count(), Wallet.objects.get(user=player).balance
    fields = {"ante": "10", "tie_bet": "5", "slip_key": "stale", "table_version": shown}
    response = client.post(url("war_deal", table), fields, **HTMX)
    assert response["HX-Redirect"].endswith(f"{table.get_absolute_url()}?terms=changed")
    assert not Round.objects.filter(player=player).exists()
    assert LedgerEntry.objects.count() == rows
    assert Wallet.objects.get(user=player).balance == balance
    page = client.get(response["HX-Redirect"], **EN).content.decode()
    assert "paytable or limits changed: check the new payouts and bet again" in page
    assert "2 to 1" in page
    new = re.search(r'name="table_version" value="(\d+)"', page).group(1)
    assert new != shown
    fields = {**fields, "slip_key": "fresh", "table_version": new}
    client.post(url("war_deal", table), fields, **HTMX)
    assert Round.objects.get(player=player).version.number == int(new)
