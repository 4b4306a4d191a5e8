"""Every form, fuzzed: garbage gets a clear refusal and moves nothing.

Each test sends requests a player (or an attacker with a player's session)
could send: negative, zero, huge, fractional and non-numeric amounts,
unknown areas and tables, PLAYER with BANKER, missing fields, another
player's ids, replayed and stale slip keys, and no CSRF token. The answer must
be a 4xx or a page/fragment that says what was wrong (never a 500), and the
books (balances, ledger, rounds, seeds) must be exactly as before.

Inputs are built to be invalid (an ``assume`` drops the few a generator could
make valid), so "nothing changed" is the right expectation for every example.
"""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest
from django import forms
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from hypothesis import assume, example, given
from hypothesis import strategies as st

from games.baccarat.rules import AREAS
from games.models import Profile, Round, Table, Wallet
from games.services import account as account_service
from games.services import baccarat as baccarat_service
from games.services import bets
from games.services import war as war_service
from games.services.player_settings import SETTINGS_FIELDS
from games.services.rounds import current_version
from tests.security.conftest import (
    BAD_AMOUNT_TEXT,
    CLIENT_SEED,
    EN,
    FEW,
    FUZZ,
    HTMX,
    SENDABLE,
    assert_no_raw_markup,
    books_unchanged,
    ledger_balances_agree,
    text_of,
    war_seed,
)
from tests.tables import shown_version

pytestmark = pytest.mark.django_db

WAR = "casino-war"
BACCARAT = "baccarat-social"
PASSWORD = "pw-Secret-123"


def seed_next_war_shoe(user, *, tied: bool) -> None:
    Profile.objects.filter(user=user).update(
        next_server_seed=war_seed(tied), client_seed=CLIENT_SEED, nonce=0
    )


_browsers: dict[int | None, Client] = {}


@pytest.fixture(autouse=True)
def _one_browser_per_player_per_test():
    _browsers.clear()
    yield
    _browsers.clear()


def logged_in(user) -> Client:
    """The player's browser, the same one for every example of a test: a new
    test Client loads the middleware again (WhiteNoise rescans the static
    files), which would cost more than the requests."""
    client = _browsers.get(user.pk)
    if client is None:
        client = _browsers[user.pk] = Client()
        client.force_login(user)
    return client


def anonymous() -> Client:
    client = _browsers.get(None)
    if client is None:
        client = _browsers[None] = Client()
    return client


def war_message(html: str) -> str:
    """The text of the War table's message region (empty when it says nothing)."""
    start = html.find('data-testid="war-message"')
    assert start != -1, html[:500]
    return text_of(html[start : html.find("</div>", start)].split(">", 1)[1])


# --- War: DEAL -------------------------------------------------------------------

WAR_BALANCE_CHIPS = 50


def _stake(raw: str | None) -> int | None:
    raw = (raw or "0").strip() or "0"
    try:
        return int(raw)
    except ValueError:
        return None


def plausible_deal(ante: str | None, tie_bet: str | None) -> bool:
    """A DEAL the table could accept from a player holding 50 chips (ante
    5-5,000 raised to 5 when lower, tie bet up to 500): these are not fuzz."""
    a, t = _stake(ante), _stake(tie_bet)
    if a is None or t is None:
        return False
    return a >= 1 and t >= 0 and max(a, 5) + t <= WAR_BALANCE_CHIPS


SOME_STAKE = st.one_of(st.none(), BAD_AMOUNT_TEXT, st.integers(0, 60).map(str))


@pytest.fixture
def war_player(make_player):
    user = make_player(chips=WAR_BALANCE_CHIPS)
    seed_next_war_shoe(user, tied=False)
    return user


@FUZZ
@given(ante=SOME_STAKE, tie_bet=SOME_STAKE, htmx=st.booleans())
@example(ante="-5", tie_bet=None, htmx=True)
@example(ante="2.5", tie_bet="1", htmx=True)
@example(ante="5", tie_bet="-1", htmx=False)
@example(ante="9" * 5000, tie_bet=None, htmx=True)
@example(ante=None, tie_bet=None, htmx=True)
@example(ante="51", tie_bet="0", htmx=True)  # more than the balance
def test_it_refuses_every_malformed_war_deal(war_player, ante, tie_bet, htmx):
    assume(not plausible_deal(ante, tie_bet))
    client = logged_in(war_player)
    data = {"slip_key": uuid.uuid4().hex}
    if ante is not None:
        data["ante"] = ante
    if tie_bet is not None:
        data["tie_bet"] = tie_bet
    with books_unchanged():
        if htmx:
            response = client.post(reverse("war_deal", args=[WAR]), data, **HTMX)
            # 422: an amount that is not one; 200: a rule of the table, in its message region.
            assert response.status_code in (200, 422)
            html = response.content.decode()
            assert 'class="war-message error"' in html
            assert war_message(html)
        else:
            response = client.post(reverse("war_deal", args=[WAR]), data, follow=True, **EN)
            assert response.status_code in (200, 422)
            html = response.content.decode()
            assert 'class="msg error"' in html
    assert_no_raw_markup(html)


# Amounts Python's Decimal or int() would read (full-width and other
# non-ASCII digits, exponents, NaN, infinities, signs, separators) or that
# overflow it, and ones no parser should: each must be refused as not an
# amount, with a client error (422) and a message, on every game's form.
NOT_AN_AMOUNT = st.one_of(
    st.sampled_from(
        [
            "１０",
            "1e999999999",
            "1e3",
            "1E3",
            "NaN",
            "sNaN",
            "Infinity",
            "-inf",
            "-0",
            "+5",
            "-5",
            "1 0",
            "1\t0",
            "1_000",
            "1,000",
            "0x10",
            "٣",
            "²",
            "1.",
            ".5",
            "1.2.3",
            "1.234",
            "9" * 11,
            "9" * 5000,
        ]
    ),
    st.text("０１２３４５６７８９", min_size=1, max_size=6),
    st.text(
        st.characters(categories=["Nd"], exclude_characters="0123456789"), min_size=1, max_size=4
    ),
    st.tuples(st.integers(1, 999), st.integers(-(10**9), 10**9)).map(lambda t: f"{t[0]}e{t[1]}"),
    st.tuples(st.integers(1, 99), st.sampled_from([" ", "\t", "\u3000"]), st.integers(0, 99)).map(
        lambda t: f"{t[0]}{t[1]}{t[2]}"
    ),
    st.integers(10**10, 10**400).map(str),
    st.integers(1, 10**6).map(lambda n: f"-{n}"),
)


@FUZZ
@given(
    amount=NOT_AN_AMOUNT,
    where=st.sampled_from(
        [("war", "ante"), ("war", "tie_bet"), *(("baccarat", area) for area in AREAS)]
    ),
    htmx=st.booleans(),
)
@example(amount="1e999999999", where=("war", "ante"), htmx=True)
@example(amount="1e999999999", where=("baccarat", "player"), htmx=True)
@example(amount="１０", where=("baccarat", "banker"), htmx=False)
@example(amount="Infinity", where=("war", "tie_bet"), htmx=False)
def test_an_amount_that_is_not_one_is_a_client_error_on_every_games_bet(
    war_player, amount, where, htmx
):
    """DEAL and BET refuse an amount that is not ASCII digits with at most
    one decimal point: a 422 with a message (never a 500 or "something went
    wrong while dealing"), no chip moved, no round stored, no shuffle used."""
    game, field = where
    data = {"slip_key": uuid.uuid4().hex, field: amount}
    if game == "war":
        name, slug = "war_deal", WAR
        data.setdefault("ante", "5")
    else:
        name, slug = "baccarat_bet", BACCARAT
    headers = HTMX if htmx else EN
    with books_unchanged():
        response = logged_in(war_player).post(reverse(name, args=[slug]), data, **headers)
    assert response.status_code == 422
    html = response.content.decode()
    assert "written with the digits 0-9" in text_of(html)
    assert "Something went wrong" not in html
    if not htmx:
        assert 'data-testid="refused-message"' in html
    elif game == "war":
        assert "written with the digits 0-9" in war_message(html)
    else:
        assert 'data-testid="slip-error"' in html


STALE_KEYS = st.one_of(
    st.none(),
    st.sampled_from(["", "   ", "\t"]),
    st.text(SENDABLE, min_size=65, max_size=200).filter(lambda k: len(k.strip()) > 64),
    st.just("BACCARAT-ROUND"),  # a key already spent on another game
)


@FEW
@given(slip_key=STALE_KEYS)
def test_it_refuses_a_deal_with_a_missing_or_stale_slip_key(war_player, slip_key):
    baccarat_round = Round.objects.filter(player=war_player, slip_key="BACCARAT-ROUND").first()
    if baccarat_round is None:
        baccarat_service.place_bet(
            user=war_player,
            table=Table.objects.get(slug=BACCARAT),
            bets={"player": 100},
            slip_key="BACCARAT-ROUND",
        )
        seed_next_war_shoe(war_player, tied=False)
    client = logged_in(war_player)
    data = {"ante": "5"}
    if slip_key is not None:
        data["slip_key"] = slip_key
    with books_unchanged():
        response = client.post(reverse("war_deal", args=[WAR]), data, **HTMX)
    assert response.status_code == 200
    assert "This bet slip is not valid" in war_message(response.content.decode())


def test_a_replayed_deal_is_charged_once_whatever_it_says(war_player):
    client = logged_in(war_player)
    first = client.post(reverse("war_deal", args=[WAR]), {"ante": "5", "slip_key": "k1"}, **HTMX)
    assert first.status_code == 200
    rnd = Round.objects.get(player=war_player, slip_key="k1")
    with books_unchanged():
        for ante in ("5", "10", "-5", "abc", "45"):
            again = client.post(
                reverse("war_deal", args=[WAR]), {"ante": ante, "slip_key": "k1"}, **HTMX
            )
            html = again.content.decode()
            if _stake(ante) is not None and _stake(ante) > 0:
                assert f'data-round-id="{rnd.pk}"' in html  # the round it made, again
            else:
                assert again.status_code == 422
                assert "written with the digits 0-9" in war_message(html)
    ledger_balances_agree()


def test_an_unknown_or_baccarat_table_is_not_found_for_war(war_player):
    client = logged_in(war_player)
    with books_unchanged():
        for slug in ("no-such-table", BACCARAT):
            for name in ("war_deal", "war_decide"):
                response = client.post(
                    reverse(name, args=[slug]), {"ante": "5", "slip_key": "x"}, **HTMX
                )
                assert response.status_code == 404


# --- War: the tie decision --------------------------------------------------------


@pytest.fixture
def waiting_rounds(make_player):
    """Two players, each with a tie waiting for WAR or SURRENDER at the War table."""
    table = Table.objects.get(slug=WAR)
    rounds = {}
    for name in ("alice", "bob"):
        user = make_player(name, chips=100)
        seed_next_war_shoe(user, tied=True)
        rounds[name] = war_service.deal(
            user=user, table=table, ante=500, tie_bet=0, slip_key=f"{name}-tie"
        )
        assert rounds[name].status == Round.Status.OPEN
    return rounds["alice"].player, rounds


ROUND_IDS = st.one_of(
    st.none(),
    BAD_AMOUNT_TEXT,
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["bob", "baccarat"]),
)
DECISIONS = st.one_of(
    st.none(),
    st.sampled_from(["", "WAR", "Surrender", " war", "war\x00", "raise", "fold", "tie"]),
    st.text(SENDABLE, max_size=20),
)


@FUZZ
@given(round_id=ROUND_IDS, decision=st.one_of(DECISIONS, st.sampled_from(["war", "surrender"])))
@example(round_id="bob", decision="war")
@example(round_id="baccarat", decision="surrender")
@example(round_id=str(10**30), decision="war")
def test_it_refuses_every_malformed_or_foreign_decision(waiting_rounds, round_id, decision):
    alice, rounds = waiting_rounds
    if round_id == "bob":
        round_id = str(rounds["bob"].pk)  # another player's waiting round
    elif round_id == "baccarat":
        rnd = baccarat_service.place_bet(
            user=alice,
            table=Table.objects.get(slug=BACCARAT),
            bets={"player": 100},
            slip_key=f"bac-{uuid.uuid4().hex}",
        )
        round_id = str(rnd.pk)
    # Alice's own waiting round with a real decision would settle it: not fuzz.
    assume(not (_stake(round_id) == rounds["alice"].pk and decision in ("war", "surrender")))
    client = logged_in(alice)
    data = {}
    if round_id is not None:
        data["round_id"] = round_id
    if decision is not None:
        data["decision"] = decision
    with books_unchanged():
        response = client.post(reverse("war_decide", args=[WAR]), data, **HTMX)
    assert response.status_code == 200
    message = war_message(response.content.decode())
    assert message in (
        "There is no such round.",
        "Choose WAR or SURRENDER.",
    ), message


@FEW
@given(decision=DECISIONS)
def test_it_refuses_a_decision_that_is_neither_war_nor_surrender(waiting_rounds, decision):
    alice, rounds = waiting_rounds
    data = {"round_id": str(rounds["alice"].pk)}
    if decision is not None:
        data["decision"] = decision
    with books_unchanged():
        response = logged_in(alice).post(reverse("war_decide", args=[WAR]), data, **HTMX)
    assert response.status_code == 200
    assert war_message(response.content.decode()) == "Choose WAR or SURRENDER."


def test_a_settled_decision_replayed_is_refused_and_charged_once(waiting_rounds):
    alice, rounds = waiting_rounds
    client = logged_in(alice)
    data = {"round_id": str(rounds["alice"].pk), "decision": "surrender"}
    assert client.post(reverse("war_decide", args=[WAR]), data, **HTMX).status_code == 200
    with books_unchanged():
        for decision in ("surrender", "war"):
            data["decision"] = decision
            again = client.post(reverse("war_decide", args=[WAR]), data, **HTMX)
            assert war_message(again.content.decode()) == "This round is already settled."
    ledger_balances_agree()


@FEW
@given(round_param=st.one_of(BAD_AMOUNT_TEXT, st.sampled_from(["٣", "1" * 40, "theirs"])))
@example(round_param="²")  # a digit to str.isdigit, not to int()
@example(round_param="9" * 30)
@example(round_param="theirs")
def test_the_war_table_never_fails_on_its_round_parameter(war_player, make_player, round_param):
    """``?round=`` shows the player's own finished round; anything else is ignored."""
    theirs = Round.objects.filter(slip_key="theirs").first()
    if theirs is None:
        other = make_player("other", chips=50)
        seed_next_war_shoe(other, tied=False)
        theirs = war_service.deal(
            user=other, table=Table.objects.get(slug=WAR), ante=500, tie_bet=0, slip_key="theirs"
        )
    if round_param == "theirs":
        round_param = str(theirs.pk)
    with books_unchanged():
        response = logged_in(war_player).get(
            reverse("war_table", args=[WAR]), {"round": round_param}, **EN
        )
    assert response.status_code == 200
    assert f'data-round-id="{theirs.pk}"' not in response.content.decode()


# --- Baccarat: the bet slip and BET -----------------------------------------------

BACCARAT_BALANCE_CHIPS = 50
SLIP_AREAS = st.one_of(
    st.sampled_from([*AREAS, "PLAYER", "dragon", "", "<script>alert(1)</script>"]),
    st.text(SENDABLE, max_size=20),
)
SLIP_CHIPS = st.one_of(
    st.sampled_from(["1", "5", "10", "50", "100", "2.5", "0.1"]), BAD_AMOUNT_TEXT
)


@pytest.fixture
def baccarat_player(make_player):
    return make_player(chips=BACCARAT_BALANCE_CHIPS)


@FUZZ
@given(slip=st.dictionaries(SLIP_AREAS, SLIP_CHIPS, min_size=1, max_size=6))
@example(slip={"player": "10", "banker": "10"})
@example(slip={"player": "1e400"})
@example(slip={"tie": "-5", "player": "5"})
def test_a_posted_slip_moves_chips_only_when_it_follows_the_rules(baccarat_player, slip):
    """Whatever slip the browser posts with BET, either it is refused with a
    message and nothing moves, or it is played exactly as the rules allow:
    never PLAYER with BANKER, an area over its MAX, or more than the MAX BET
    or the balance."""
    table = Table.objects.get(slug=BACCARAT)
    version = current_version(table)
    limits = bets.baccarat_limits(user=baccarat_player, version=version)
    client = logged_in(baccarat_player)
    before = Round.objects.filter(player=baccarat_player).count()
    response = client.post(
        reverse("baccarat_bet", args=[BACCARAT]),
        {"slip_key": uuid.uuid4().hex, "table_version": str(version.number), **slip},
        **HTMX,
    )
    # An amount is ASCII digits with at most one decimal point and two decimals.
    sent = [text.strip() for area, text in slip.items() if area in AREAS and text.strip()]
    malformed = any(not re.fullmatch(r"[0-9]{1,10}(\.[0-9]{1,2})?", text) for text in sent)
    assert response.status_code == (422 if malformed else 200)
    html = response.content.decode()
    assert_no_raw_markup(html)
    played = Round.objects.filter(player=baccarat_player).order_by("-id").first()
    if Round.objects.filter(player=baccarat_player).count() == before:
        assert 'data-testid="slip-error"' in html
    else:
        staked = played.bets
        assert not (staked.get("player") and staked.get("banker"))
        for name, amount in staked.items():
            assert name in limits.areas
            low, high = limits.areas[name]
            assert low <= amount <= high and amount % 100 == 0
        assert played.total_bet <= min(limits.max_bet, played.balance_before)
    ledger_balances_agree()


def _units(amount: int) -> int:
    return amount * 100


BAD_SLIPS = st.one_of(
    # PLAYER with BANKER
    st.tuples(st.integers(1, 20), st.integers(1, 20)).map(
        lambda pb: {"player": _units(pb[0]), "banker": _units(pb[1])}
    ),
    # not whole chips
    st.tuples(st.sampled_from(AREAS), st.integers(1, 4_999).filter(lambda n: n % 100)).map(
        lambda a: {a[0]: a[1]}
    ),
    # more than the balance (50 chips), within the area's MAX
    st.tuples(st.sampled_from(["player", "banker"]), st.integers(51, 5_000)).map(
        lambda a: {a[0]: _units(a[1])}
    ),
    # over the area's MAX or any MAX BET
    st.tuples(st.sampled_from(AREAS), st.integers(10_001, 10**15)).map(
        lambda a: {a[0]: _units(a[1])}
    ),
    # nothing a slip can hold: unknown areas, zero, negative, fractions, text, booleans
    st.dictionaries(
        st.one_of(st.sampled_from([*AREAS, "dragon", "PLAYER"]), st.text(SENDABLE, max_size=8)),
        st.one_of(
            st.integers(max_value=0),
            st.floats(allow_nan=False, allow_infinity=False),
            st.text(max_size=5),
            st.just(True),
            st.none(),
        ),
        max_size=4,
    ),
)
BET_SLIP_KEYS = st.one_of(
    st.none(),
    st.just("fresh"),
    st.sampled_from(["", "   ", "\t"]),
    st.text(SENDABLE, min_size=65, max_size=200),
)


@FUZZ
@given(bets=BAD_SLIPS, slip_key=BET_SLIP_KEYS)
@example(bets={"player": 500, "banker": 500}, slip_key=None)
@example(bets={"dragon": 100}, slip_key=None)
@example(bets={"player": 150}, slip_key="fresh")
@example(bets={"player": -100, "tie": 0}, slip_key=None)
@example(bets={"player": 100}, slip_key="x" * 65)
def test_it_refuses_every_bad_slip_at_bet(baccarat_player, bets, slip_key):
    """BET takes the whole slip from the browser; a forged one is checked
    and refused whole, with a message."""
    client = logged_in(baccarat_player)
    data = {area: _chips_text(amount) for area, amount in bets.items()}
    data["table_version"] = shown_version(BACCARAT)
    if slip_key == "fresh":
        data["slip_key"] = uuid.uuid4().hex
    elif slip_key is not None:
        data["slip_key"] = slip_key
    with books_unchanged():
        response = client.post(reverse("baccarat_bet", args=[BACCARAT]), data, **HTMX)
    assert response.status_code in (200, 422)  # 422: an amount that is not one
    html = response.content.decode()
    assert 'data-testid="slip-error"' in html
    assert_no_raw_markup(html)


def _chips_text(units) -> str:
    """A slip amount as a form posts it: units as chips, or anything else as text."""
    if isinstance(units, int) and not isinstance(units, bool):
        return str(Decimal(units) / 100)
    return str(units)


def _slip(**bets: int) -> dict[str, str]:
    """A slip as the page sends it: chips per area, and the table's version it shows."""
    return {
        "table_version": shown_version(BACCARAT),
        **{area: str(chips) for area, chips in bets.items()},
    }


def test_a_replayed_bet_is_charged_once(baccarat_player):
    client = logged_in(baccarat_player)
    first = client.post(
        reverse("baccarat_bet", args=[BACCARAT]), {"slip_key": "once", **_slip(player=5)}, **HTMX
    )
    assert first.status_code == 200
    assert Round.objects.filter(player=baccarat_player, slip_key="once").count() == 1
    with books_unchanged():
        for chips in (5, 10, 1):
            again = client.post(
                reverse("baccarat_bet", args=[BACCARAT]),
                {"slip_key": "once", **_slip(banker=chips)},
                **HTMX,
            )
            assert again.status_code == 200
    ledger_balances_agree()


def test_a_bet_with_a_slip_key_spent_at_war_is_refused_with_a_message(baccarat_player):
    """Found by the sweep: the key of a War round used to return that round
    silently (no message, no reveal)."""
    seed_next_war_shoe(baccarat_player, tied=False)
    war_service.deal(
        user=baccarat_player, table=Table.objects.get(slug=WAR), ante=500, tie_bet=0, slip_key="w"
    )
    client = logged_in(baccarat_player)
    with books_unchanged():
        response = client.post(
            reverse("baccarat_bet", args=[BACCARAT]), {"slip_key": "w", **_slip(player=5)}, **HTMX
        )
    assert response.status_code == 200
    assert 'data-testid="slip-error"' in response.content.decode()


def test_a_bet_at_a_closed_unknown_or_war_table_is_refused(baccarat_player):
    table = Table.objects.get(slug=BACCARAT)
    client = logged_in(baccarat_player)
    with books_unchanged():
        for slug in ("no-such-table", WAR):
            for name in (
                "baccarat_bet",
                "baccarat_client_seed",
                "baccarat_squeeze",
            ):
                response = client.post(reverse(name, args=[slug]), _slip(player=5), **HTMX)
                assert response.status_code == 404
        Table.objects.filter(pk=table.pk).update(enabled=False)
        response = client.post(
            reverse("baccarat_bet", args=[BACCARAT]), {"slip_key": "c", **_slip(player=5)}, **HTMX
        )
        assert "This table is closed" in response.content.decode()
        Table.objects.filter(pk=table.pk).update(enabled=True)


# --- Baccarat: the squeeze toggle and its promo clip -------------------------------

SQUEEZE_ACTIONS = st.one_of(
    st.sampled_from(["toggle", "promo_start", "promo_end", "promo", "unlock", ""]),
    st.text(SENDABLE, max_size=12),
)
VISITS = st.one_of(
    st.none(),
    st.sampled_from(["", "stale", "other-player", "  "]),
    st.text(SENDABLE, max_size=40),
)


def _visit(client: Client) -> str:
    """The visit token of a fresh render of the table screen (a new visit)."""
    html = client.get(reverse("baccarat_table", args=[BACCARAT]), **EN).content.decode()
    return re.search(r'name="squeeze_visit" value="(\w+)"', html).group(1)


def _squeeze_state(client: Client, table: Table) -> dict:
    return client.session.get(f"baccarat:squeeze:{table.pk}") or {}


@FUZZ
@given(
    posts=st.lists(st.tuples(SQUEEZE_ACTIONS, VISITS), min_size=1, max_size=6), htmx=st.booleans()
)
@example(posts=[("promo_start", "stale"), ("promo_end", "stale")], htmx=True)
@example(posts=[("promo_end", "other-player")], htmx=True)
@example(posts=[("promo_start", "current"), ("promo_end", "current")], htmx=True)
def test_a_stale_or_foreign_visit_token_never_unlocks_the_squeeze(
    baccarat_player, make_player, posts, htmx
):
    """The clip unlocks the squeeze only at its end, a clip's length after a
    start in the same visit: an old page's token, another player's, or an
    end straight after the start unlocks nothing (and no chip moves)."""
    table = Table.objects.get(slug=BACCARAT)
    other = get_user_model().objects.filter(username="neighbour").first() or make_player(
        "neighbour", chips=1
    )
    tokens = {"other-player": _visit(logged_in(other))}
    client = logged_in(baccarat_player)
    tokens["stale"] = _visit(client)
    tokens["current"] = _visit(client)  # a new visit
    assert tokens["stale"] and tokens["stale"] != tokens["current"]
    with books_unchanged():
        for action, visit in posts:
            data = {"action": action}
            if visit is not None:
                data["visit"] = tokens.get(visit, visit)
            headers = HTMX if htmx else EN
            response = client.post(reverse("baccarat_squeeze", args=[BACCARAT]), data, **headers)
            assert response.status_code == (200 if htmx else 302)
            if action == "promo_end" and htmx:
                assert 'data-testid="promo-error"' in response.content.decode()
    assert _squeeze_state(client, table).get("promo") is not True


# --- Baccarat: client seed and settings -------------------------------------------

BAD_CLIENT_SEEDS = st.one_of(
    st.none(),
    st.sampled_from(["", "   ", "\t\n"]),
    st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=65, max_size=300),
    st.tuples(st.text(SENDABLE, max_size=10), st.sampled_from(["\x00", "\x07", "\u200b"])).map(
        lambda t: "a" + t[1] + t[0] + "z"
    ),
)


@FUZZ
@given(seed=BAD_CLIENT_SEEDS)
@example(seed="")
@example(seed="x" * 65)
def test_it_refuses_every_bad_client_seed(baccarat_player, seed):
    client = logged_in(baccarat_player)
    data = {} if seed is None else {"client_seed": seed}
    with books_unchanged():
        response = client.post(reverse("baccarat_client_seed", args=[BACCARAT]), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="seed-error"' in html
    assert_no_raw_markup(html)


@FEW
@given(
    data=st.dictionaries(
        st.sampled_from(["field", "value", "sound", "music", "fast_play", "pin", "nonce", "x"]),
        st.one_of(st.text(SENDABLE, max_size=20), BAD_AMOUNT_TEXT),
        max_size=5,
    ),
    htmx=st.booleans(),
)
def test_settings_take_any_post_without_touching_the_books(baccarat_player, data, htmx):
    data.pop("next", None)
    client = logged_in(baccarat_player)
    headers = HTMX if htmx else EN
    with books_unchanged():
        response = client.post(reverse("baccarat_settings"), data, **headers)
    assert response.status_code in (200, 302)
    profile = Profile.objects.get(user=baccarat_player)
    assert all(isinstance(getattr(profile, f), bool) for f in SETTINGS_FIELDS)


def test_the_settings_form_does_not_redirect_off_site(baccarat_player):
    """Found by the sweep: ``next`` was followed unchecked (an open redirect)."""
    client = logged_in(baccarat_player)
    response = client.post(
        reverse("baccarat_settings"), {"sound": "on", "next": "//evil.example/phish"}, **EN
    )
    assert response.status_code == 302
    assert "evil.example" not in response["Location"]


# --- Account: PIN and personal max bet -----------------------------------------------

PIN = "2468"


@pytest.fixture
def pin_player(make_player):
    user = make_player(chips=50)
    account_service.set_pin(user=user, password=PASSWORD, new_pin=PIN)
    return user


def _account_state(user) -> tuple:
    return tuple(
        Profile.objects.filter(user=user).values_list(
            "pin_hash", "personal_max_bet", "max_bet_changed_at"
        )[0]
    )


@FUZZ
@given(
    max_bet=st.one_of(st.none(), BAD_AMOUNT_TEXT, st.integers(1, 10**12).map(str)),
    pin=st.one_of(st.none(), BAD_AMOUNT_TEXT, st.text(SENDABLE, max_size=8)),
)
def test_it_refuses_a_max_bet_change_without_the_right_pin(pin_player, max_bet, pin):
    assume(pin is None or pin.strip() != PIN)
    before = _account_state(pin_player)
    data = {}
    if max_bet is not None:
        data["max_bet"] = max_bet
    if pin is not None:
        data["pin"] = pin
    with books_unchanged():
        response = logged_in(pin_player).post(reverse("account_max_bet"), data, **EN)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="msg error"' in html or "errorlist" in html
    assert_no_raw_markup(html)
    assert _account_state(pin_player) == before


@FUZZ
@given(max_bet=st.one_of(BAD_AMOUNT_TEXT, st.integers(min_value=10_000, max_value=10**30).map(str)))
def test_it_refuses_a_malformed_or_too_high_max_bet_even_with_the_right_pin(pin_player, max_bet):
    """Anything but a whole number of chips under the tables' highest MAX BET
    (25,000 chips) is refused, PIN or not. Empty removes the limit: not fuzz."""
    try:
        value = forms.IntegerField(required=False).clean(max_bet)
    except forms.ValidationError:
        value = 0
    # Empty removes the limit, 1-24,999 chips sets it: those are not fuzz.
    assume(value is not None and not 1 <= value < 25_000)
    before = _account_state(pin_player)
    with books_unchanged():
        response = logged_in(pin_player).post(
            reverse("account_max_bet"), {"max_bet": max_bet, "pin": PIN}, **EN
        )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="msg error"' in html or "errorlist" in html
    assert _account_state(pin_player) == before


@FUZZ
@given(
    password=st.one_of(st.none(), st.text(SENDABLE, max_size=20)),
    current=st.one_of(st.none(), BAD_AMOUNT_TEXT),
    new=st.one_of(st.none(), BAD_AMOUNT_TEXT, st.sampled_from(["1234", "999999"])),
    confirm=st.one_of(st.none(), BAD_AMOUNT_TEXT, st.sampled_from(["1234", "999999"])),
)
def test_it_refuses_a_pin_change_without_the_password_and_current_pin(
    pin_player, password, current, new, confirm
):
    assume(password != PASSWORD)
    before = _account_state(pin_player)
    data = {
        k: v
        for k, v in {
            "password": password,
            "current_pin": current,
            "new_pin": new,
            "confirm_pin": confirm,
        }.items()
        if v is not None
    }
    with books_unchanged():
        response = logged_in(pin_player).post(reverse("account_pin"), data, **EN)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="msg error"' in html or "errorlist" in html
    assert _account_state(pin_player) == before


# --- Top-up, sign-up, log-in ------------------------------------------------------------


@FEW
@given(extra=st.dictionaries(st.text(SENDABLE, max_size=8), BAD_AMOUNT_TEXT, max_size=3))
def test_a_player_with_chips_cannot_top_up(baccarat_player, extra):
    with books_unchanged():
        response = logged_in(baccarat_player).post(reverse("topup"), extra, follow=True, **EN)
    assert response.status_code == 200
    assert "The daily top-up is for players whose balance is zero." in response.content.decode()


def test_the_daily_top_up_replayed_is_paid_once(make_player):
    user = make_player(chips=0)
    client = logged_in(user)
    client.post(reverse("topup"), **EN)
    assert Wallet.objects.get(user=user).balance == 1_000 * 100
    with books_unchanged():
        for _ in range(3):
            response = client.post(reverse("topup"), follow=True, **EN)
            html = response.content.decode()
            assert "The daily top-up is for players whose balance is zero." in html
    ledger_balances_agree()


USERNAMES = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "a b", "<script>alert(1)</script>", "x" * 151, "name\x00"]),
    st.text(SENDABLE, max_size=30),
)


@FUZZ
@given(
    username=st.one_of(USERNAMES, st.just("taken")),
    password=st.one_of(st.none(), st.text(SENDABLE, max_size=30)),
    confirm=st.sampled_from(["differs", "missing"]),
)
def test_it_refuses_every_bad_sign_up_and_opens_no_account(
    make_player, username, password, confirm
):
    """The confirmation never matches (or is missing), or the name is taken:
    each sign-up is refused with the form's errors and no wallet is opened."""
    User = get_user_model()
    if not User.objects.filter(username="taken").exists():
        make_player("taken")
    data = {}
    if username is not None:
        data["username"] = username
    if password is not None:
        data["password1"] = password
        if confirm == "differs":
            data["password2"] = password + "!"
    if username == "taken":
        data["password1"] = data["password2"] = "a-Good-passw0rd-42"
    assume(data)  # an empty POST: see test_an_empty_sign_up_says_what_is_missing
    users = User.objects.count()
    with books_unchanged():
        response = anonymous().post(reverse("signup"), data, **EN)
    assert response.status_code == 200
    html = response.content.decode()
    assert "errorlist" in html
    assert_no_raw_markup(html)
    assert User.objects.count() == users


def test_an_empty_sign_up_says_what_is_missing(db):
    """Found by the sweep: an empty POST is falsy, so the form was unbound
    and said nothing."""
    response = Client().post(reverse("signup"), {}, **EN)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()


@FUZZ
@given(
    username=USERNAMES,
    password=st.one_of(st.none(), st.text(SENDABLE, max_size=30)),
)
def test_it_refuses_every_wrong_log_in(make_player, username, password):
    if not get_user_model().objects.filter(username="known").exists():
        make_player("known")
    assume(password != PASSWORD)
    if username == " ":
        username = "known"  # the right name with a wrong password
    data = {k: v for k, v in {"username": username, "password": password}.items() if v is not None}
    client = anonymous()
    with books_unchanged():
        response = client.post(reverse("login"), data, **EN)
    # A refused log-in shows the form's error; after repeated failures the
    # account is locked for a while (429 with its own page).
    assert response.status_code in (200, 429)
    html = response.content.decode()
    assert "errorlist" in html or "Too many failed log-ins" in html
    assert "_auth_user_id" not in client.session


def test_a_log_in_never_redirects_off_site(make_player):
    make_player("traveller")
    for target in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        response = Client().post(
            reverse("login"),
            {"username": "traveller", "password": PASSWORD, "next": target},
            **EN,
        )
        assert response.status_code == 302
        assert "evil.example" not in response["Location"]
        assert not response["Location"].startswith("javascript")


# --- History: filters and ids ---------------------------------------------------------


HISTORY_PARAMS = st.dictionaries(
    st.sampled_from(["game", "date_from", "date_to", "result", "before", "after", "page", "x"]),
    st.one_of(
        st.sampled_from(
            [
                "baccarat",
                "war",
                "win",
                "poker",
                "0001-01-01",
                "9999-12-31",
                "2024-02-30",
                "2025-13-01",
                "-1",
                "99999999999999999999",
                "²",
                "1e9",
            ]
        ),
        st.dates().map(str),
        BAD_AMOUNT_TEXT,
    ),
    max_size=6,
)


@pytest.fixture
def history_player(make_player):
    user = make_player(chips=50)
    seed_next_war_shoe(user, tied=False)
    war_service.deal(
        user=user, table=Table.objects.get(slug=WAR), ante=500, tie_bet=0, slip_key="h1"
    )
    return user


@FUZZ
@given(params=HISTORY_PARAMS, htmx=st.booleans())
@example(params={"date_to": "9999-12-31"}, htmx=False)
@example(params={"date_from": "0001-01-01", "before": "9" * 30}, htmx=True)
@example(params={"date_from": "2025-02-01", "date_to": "2025-01-01"}, htmx=False)
def test_history_filters_never_fail(history_player, params, htmx):
    client = logged_in(history_player)
    headers = HTMX if htmx else EN
    for name in ("history", "history_summary", "history_export"):
        response = client.get(reverse(name), params, **headers)
        assert response.status_code == 200, (name, params)
        body = (
            b"".join(response.streaming_content) if response.streaming else response.content
        ).decode()
        assert_no_raw_markup(body)


def test_another_players_rounds_and_history_are_not_found(history_player, make_player):
    other = make_player("other", chips=50)
    seed_next_war_shoe(other, tied=False)
    theirs = war_service.deal(
        user=other, table=Table.objects.get(slug=WAR), ante=500, tie_bet=0, slip_key="o1"
    )
    client = logged_in(history_player)
    with books_unchanged():
        for url in (
            reverse("history_round", args=[theirs.pk]),
            reverse("history_round_verify", args=[theirs.pk]),
            reverse("history_player", args=[other.pk]),
            reverse("history_player_summary", args=[other.pk]),
            reverse("history_player_export", args=[other.pk]),
            reverse("history_round", args=[10**30]),
            reverse("history_player_lookup") + "?username=other",
        ):
            assert client.get(url, **EN).status_code == 404, url
        assert client.post(reverse("history_round_verify", args=[theirs.pk])).status_code == 404


# --- CSRF -------------------------------------------------------------------------------


def test_every_form_refuses_a_post_without_a_valid_csrf_token(make_player, pin_player):
    """Without the token (or with another browser's) every POST is a 403 and
    changes nothing, whatever it asks for."""
    user = make_player(chips=0)  # a top-up would be paid if CSRF let it through
    seed_next_war_shoe(user, tied=False)
    other = Client(enforce_csrf_checks=True)
    other.get(reverse("login"))
    foreign_token = other.cookies["csrftoken"].value
    posts = [
        (reverse("war_deal", args=[WAR]), {"ante": "5", "slip_key": "csrf"}),
        (reverse("war_decide", args=[WAR]), {"round_id": "1", "decision": "war"}),
        (reverse("baccarat_bet", args=[BACCARAT]), {"slip_key": "k", "player": "5"}),
        (reverse("baccarat_bet", args=[BACCARAT]), {"slip_key": "csrf"}),
        (reverse("baccarat_client_seed", args=[BACCARAT]), {"client_seed": "mine"}),
        (reverse("baccarat_settings"), {"sound": "on"}),
        (reverse("baccarat_squeeze", args=[BACCARAT]), {"action": "toggle"}),
        (reverse("account_pin"), {"password": PASSWORD, "new_pin": "1357", "confirm_pin": "1357"}),
        (reverse("account_max_bet"), {"max_bet": "10", "pin": PIN}),
        (reverse("topup"), {}),
        (reverse("logout"), {}),
    ]
    for who in (user, pin_player):
        client = Client(enforce_csrf_checks=True)
        client.force_login(who)
        client.get(reverse("lobby"))  # the page sets this browser's CSRF cookie
        assert "csrftoken" in client.cookies
        before = Profile.objects.filter(user=who).values_list(
            "client_seed", "sound", "pin_hash", "personal_max_bet"
        )[0]
        with books_unchanged():
            for url, data in posts:
                for headers in ({}, {"HTTP_X_CSRFTOKEN": foreign_token}, {"HTTP_X_CSRFTOKEN": "x"}):
                    response = client.post(url, data, **headers, **HTMX)
                    assert response.status_code == 403, (url, headers)
                    assert b"CSRF" in response.content
        assert (
            Profile.objects.filter(user=who).values_list(
                "client_seed", "sound", "pin_hash", "personal_max_bet"
            )[0]
            == before
        )
        assert "_auth_user_id" in client.session  # the log-out did not happen either
    # Sign-up and log-in need the token too.
    for url, data in (
        (
            reverse("signup"),
            {"username": "n", "password1": "x-Y-z-123456", "password2": "x-Y-z-123456"},
        ),
        (reverse("login"), {"username": pin_player.username, "password": PASSWORD}),
    ):
        assert Client(enforce_csrf_checks=True).post(url, data).status_code == 403
    assert not get_user_model().objects.filter(username="n").exists()


# --- Regressions found by the sweep ---------------------------------------------------


def test_regression_the_war_table_ignores_a_superscript_round(war_player):
    """``"²".isdigit()`` is true but ``int("²")`` fails: this was a 500."""
    response = logged_in(war_player).get(reverse("war_table", args=[WAR]), {"round": "²"}, **EN)
    assert response.status_code == 200


def test_regression_history_up_to_the_last_day_there_is(history_player):
    """The filter ends at the midnight after ``date_to``; 9999-12-31 has none
    (this was a 500). The last day there is keeps every round."""
    response = logged_in(history_player).get(reverse("history"), {"date_to": "9999-12-31"}, **EN)
    assert response.status_code == 200
    rnd = Round.objects.get(player=history_player)
    assert f'data-testid="history-row" data-round="{rnd.pk}"' in response.content.decode()
