"""The squeeze on the service side: who gets to peel, the navigator's numbers
for positions worked by hand (checked against a brute-force enumeration
written here, independent of the core), a navigator that cannot depend on
the hidden card, a squeeze that never changes a round, and the toggle and
the promo clip's visit read from a session and cookies (as a socket holds
them).

Shoes are chosen, never patched: server seeds are tried with the pure core
until the shuffle deals the wanted coup.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from fractions import Fraction
from functools import cache
from importlib import import_module

import pytest
from django.conf import settings
from django.urls import reverse

from games.baccarat.rules import play_coup
from games.cards import Card
from games.models import Profile, Round, Table, Wallet
from games.presenters import baccarat as presenter
from games.presenters.baccarat import reveal_steps
from games.services import baccarat
from games.services import squeeze as squeeze_service
from games.services.baccarat import SqueezeWish, squeeze_side
from games.verify import derive_shoe
from tests.groups import heard
from tests.seeds import find_seed

CLIENT_SEED = "squeeze-tests"
CHIP = 100
NAVIGATOR = re.compile(r'<section class="navigator.*?</section>', re.S)


# --- who peels ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("stakes", "wish", "side"),
    [
        ({"player": 5_000 * CHIP}, SqueezeWish(on=True), "player"),  # threshold reached
        ({"banker": 4_000 * CHIP, "tie": 1_000 * CHIP}, SqueezeWish(on=True), "banker"),  # total
        ({"player": 4_999 * CHIP}, SqueezeWish(on=True), None),  # one chip short
        ({"player": 10 * CHIP}, SqueezeWish(on=True, promo=True), "player"),  # the clip
        ({"player": 5_000 * CHIP}, SqueezeWish(on=False), None),  # toggled OFF
        ({"player": 5_000 * CHIP}, None, None),
        ({"tie": 2_000 * CHIP, "player_pair": 2_000 * CHIP, "banker_pair": 2_000 * CHIP},
         SqueezeWish(on=True, promo=True), None),  # only TIE / PAIR bets: nothing to peel
    ],
)  # fmt: skip
def test_the_side_peeled_is_the_one_bet_once_unlocked_and_on(stakes, wish, side):
    assert squeeze_side(stakes=stakes, threshold=5_000 * CHIP, wish=wish) == side


# --- the navigator, worked by hand ---------------------------------------------
#
# An enumeration of every way the coup can go on, written from the rules in
# SPEC section 3 (not from games.baccarat.rules): the next card is drawn from
# the unseen cards, by points, each with its count.


def _banker_draws(banker: int, player_third: int | None) -> bool:
    if player_third is None:
        return banker <= 5
    return {
        0: True,
        1: True,
        2: True,
        3: player_third != 8,
        4: 2 <= player_third <= 7,
        5: 4 <= player_third <= 7,
        6: player_third in (6, 7),
        7: False,
    }[banker]


def _draws(unseen: Counter[int]):
    total = sum(unseen.values())
    for value, count in unseen.items():
        if count:
            rest = unseen.copy()
            rest[value] -= 1
            yield Fraction(count, total), value, rest


def winner_chances(player: list[int], banker: list[int], unseen: Counter[int]) -> Counter[str]:
    """P(player / banker / tie wins) from the points dealt so far (in deal order)."""
    out: Counter[str] = Counter()

    def deal(to_player: bool) -> Counter[str]:
        for p, value, rest in _draws(unseen):
            hands = (player + [value], banker) if to_player else (player, banker + [value])
            for k, x in winner_chances(*hands, rest).items():
                out[k] += p * x
        return out

    if len(player) < 2 or len(banker) < 2:  # P1 B1 P2 B2
        return deal(to_player=len(player) <= len(banker))
    pt, bt = sum(player[:2]) % 10, sum(banker[:2]) % 10
    natural = pt >= 8 or bt >= 8
    if not natural:
        if len(player) == 2 and pt <= 5 and len(banker) == 2:
            return deal(to_player=True)
        third = player[2] if len(player) == 3 else None
        if len(banker) == 2 and _banker_draws(bt, third):
            return deal(to_player=False)
    pf, bf = sum(player) % 10, sum(banker) % 10
    return Counter({"player" if pf > bf else "banker" if bf > pf else "tie": Fraction(1)})


def pts(code: str) -> int:
    rank = code[0]
    return 0 if rank in "TJQK" else 1 if rank == "A" else int(rank)


def brute_force_numbers(
    decks: int, player: list[str], banker: list[str], side: str, wanted: str
) -> tuple[int, ...]:
    """The values of ``side``'s next card that give ``wanted`` (chance: player
    wins > 1/2; win: banker wins with certainty)."""
    unseen = Counter({0: 16 * decks, **{v: 4 * decks for v in range(1, 10)}})
    for code in player + banker:
        unseen[pts(code)] -= 1
    hits = []
    for value in range(10):
        if not unseen[value]:
            continue
        rest = unseen.copy()
        rest[value] -= 1
        p = [pts(c) for c in player] + ([value] if side == "player" else [])
        b = [pts(c) for c in banker] + ([value] if side == "banker" else [])
        chances = winner_chances(p, b, rest)
        assert sum(chances.values()) == 1
        if wanted == "chance" and chances["player"] > Fraction(1, 2):
            hits.append(value)
        if wanted == "win" and chances["banker"] == 1:
            hits.append(value)
    return tuple(hits)


def shown(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


@pytest.mark.parametrize("decks", [1, 8])
def test_chance_numbers_for_the_players_second_card_after_a_nine_against_a_king(decks):
    """P1 = 9, B1 = K, the Player's 2nd card is peeled.

    0 (10/J/Q/K): Player 9, a natural; the Banker (K + B2) can only tie, with a
      9. With 8 decks 31 nines are left of 413 cards: P(Player) = 382/413, 92%.
    9: Player 8, a natural; the Banker wins only with a 9 (30 left) and ties
      with an 8 (32): P(Player) = 351/413, 84.99%.
    8: Player 7 stands. The Banker beats it with 8 or 9 (a natural), ties with
      7, loses with 6 (stands), and with 0-5 draws a third card that brings it
      to 7-9 only some of the time: P(Player) is about 61%.
    7: Player 6 stands; the Banker's 6 ties and 7 wins, and the drawing Banker
      gets there more often: 48%, not more than half.
    1-6: Player 0-5 must draw a third card: well under half.
    CHANCE NO. = 0, 8, 9 (the same with 1 deck: 93.9%, 63.4%, 87.8%; a 7 gives 49.6%).
    The navigator shows each chance floored to a whole percent.
    """
    player, banker = ["9C"], ["KH"]
    expected = brute_force_numbers(decks, player, banker, "player", "chance")
    assert expected == (0, 8, 9)
    view = presenter.navigator_view(
        decks=decks,
        player_cards=shown("9C"),
        banker_cards=shown("KH"),
        side="player",
        pair_bet=True,
    )
    assert view.label == "CHANCE NO."
    assert view.numbers == "0 8 9"
    assert [c.points for c in view.cells if c.hit] == [0, 8, 9]
    assert view.pair_ranks == ["9"]  # PAIR WIN NO.: a second 9 makes the PLAYER PAIR
    if decks == 8:
        assert [c.percent for c in view.cells if c.hit] == ["92%", "61%", "84%"]
        assert view.cells[7].percent == "48%"


def test_win_numbers_for_the_bankers_second_card_against_a_player_zero():
    """Player T K = 0 (draws), B1 = 9, the Banker's 2nd card is peeled (8 decks).

    0: Banker 9, a natural: the Player's 0 is beaten before any third card.
    9: Banker 8, a natural: the same.
    8: Banker 7 stands; the Player draws and an 8 or 9 beats 7: not certain.
    1-7: Banker 0-6, and the Player's third card can always win or tie.
    WIN NO. = 0, 9.
    """
    expected = brute_force_numbers(8, ["TH", "KS"], ["9S"], "banker", "win")
    assert expected == (0, 9)
    view = presenter.navigator_view(
        decks=8,
        player_cards=shown("TH KS"),
        banker_cards=shown("9S"),
        side="banker",
        pair_bet=False,
    )
    assert view.label == "WIN NO."
    assert view.numbers == "0 9"
    assert view.pair_ranks is None  # BANKER PAIR not bet: no PAIR WIN NO.
    assert [c.percent for c in view.cells if c.hit] == ["100%", "100%"]


def test_chance_numbers_for_the_players_third_card_against_a_banker_six():
    """Player A 4 = 5 (draws), Banker 6 K = 6, the Player's 3rd card is peeled.

    The Banker on 6 draws only when the Player's third card is a 6 or a 7.
    2, 3, 4: Player 7, 8, 9 against a standing 6: a sure win.
    1: Player 6, Banker stands on 6: a tie.  0, 5, 8, 9: Player 5, 0, 3, 4: lost.
    6: Player 1, the Banker draws and wins unless its card is a 4 (to 0) or
       ties with a 5 (to 1): far under half.  7: Player 2, the Banker loses only
       with a 4 or a 5: far under half.
    CHANCE NO. = 2, 3, 4.
    """
    expected = brute_force_numbers(8, ["AS", "4D"], ["6C", "KH"], "player", "chance")
    assert expected == (2, 3, 4)
    view = presenter.navigator_view(
        decks=8,
        player_cards=shown("AS 4D"),
        banker_cards=shown("6C KH"),
        side="player",
        pair_bet=True,
    )
    assert view.numbers == "2 3 4"
    assert view.card == 3
    assert view.pair_ranks is None  # a third card never makes a pair


def test_a_banker_third_card_with_no_win_number():
    """Player 2 3 + 4 = 9, Banker 3 2 = 5 draws (on a Player 4): nothing beats 9.
    WIN NO. is empty and shown as a dash."""
    assert brute_force_numbers(8, ["2S", "3D", "4C"], ["3H", "2C"], "banker", "win") == ()
    view = presenter.navigator_view(
        decks=8,
        player_cards=shown("2S 3D 4C"),
        banker_cards=shown("3H 2C"),
        side="banker",
        pair_bet=False,
    )
    assert view.numbers == ""
    html = presenter.fragment("navigator", {"nav": view})
    assert 'data-testid="nav-hits">—<' in html


# --- rounds through the service ---------------------------------------------------


def _seed(tag: str, i: int) -> str:
    return hashlib.sha256(f"squeeze-{tag}-{i}".encode()).hexdigest()


@cache
def twin_seeds(decks: int = 1) -> tuple[str, str]:
    """Two shoes whose first Player and Banker cards are the same and whose
    Player 2nd card differs: the same position, another hidden card."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for i in range(20_000):
        seed = _seed("twin", i)
        coup = play_coup(derive_shoe(seed, CLIENT_SEED, 0, decks))
        key = (str(coup.player[0]), str(coup.banker[0]))
        hidden = str(coup.player[1])
        if key in seen and seen[key][1] != hidden:
            return seen[key][0], seed
        seen.setdefault(key, (seed, hidden))
    raise AssertionError("no twin shoes")


@cache
def six_card_seed(decks: int = 8) -> str:

    def six_cards(shoe) -> bool:
        coup = play_coup(shoe)
        return len(coup.player) == 3 and len(coup.banker) == 3

    return find_seed("squeeze-six", CLIENT_SEED, decks, six_cards)


def use_seed(user, seed: str) -> None:
    Profile.objects.filter(user=user).update(
        next_server_seed=seed, client_seed=CLIENT_SEED, nonce=0
    )


@pytest.fixture
def social(db):
    return Table.objects.get(slug="baccarat-social")  # 1 deck; squeeze from 1,000 chips


@pytest.fixture
def classic(db):
    return Table.objects.get(slug="baccarat-classic")  # 8 decks; squeeze from 5,000 chips


def test_the_navigator_sent_is_the_same_whatever_the_hidden_card(make_player, social):
    seed_a, seed_b = twin_seeds()
    rounds = []
    for seed in (seed_a, seed_b):
        user = make_player(chips=1_000)
        use_seed(user, seed)
        rounds.append(
            baccarat.place_bet(
                user=user,
                table=social,
                bets={"player": 10 * CHIP, "player_pair": 5 * CHIP},
                slip_key="twin",
            )
        )
    a, b = rounds
    assert (a.cards[0], a.cards[1]) == (b.cards[0], b.cards[1])  # P1, B1 shown
    assert a.detail["player"][1] != b.detail["player"][1]  # the peeled card
    peel_a, peel_b = (
        next(s for s in reveal_steps(rnd, table=social, squeeze="player") if s.name == "peel")
        for rnd in (a, b)
    )
    nav_a, nav_b = NAVIGATOR.search(peel_a.html).group(), NAVIGATOR.search(peel_b.html).group()
    assert nav_a == nav_b
    assert 'data-testid="nav-pair"' in nav_a  # PLAYER PAIR was bet
    # Everything sent before the peel starts is the same too, but the round's id.
    assert peel_a.html.replace(f'data-peel="{a.pk}-', 'data-peel="#-') == peel_b.html.replace(
        f'data-peel="{b.pk}-', 'data-peel="#-'
    )
    for rnd, html in ((a, peel_a.html), (b, peel_b.html)):
        assert rnd.detail["player"][1] not in html


def test_the_peels_follow_the_deal_and_each_navigator_sees_only_the_cards_before_it(
    make_player, classic
):
    user = make_player(chips=10_000)
    use_seed(user, six_card_seed())
    rnd = baccarat.place_bet(
        user=user, table=classic, bets={"banker": 5_000 * CHIP}, slip_key="six"
    )
    player, banker = rnd.detail["player"], rnd.detail["banker"]
    peels = presenter.squeeze_peels(rnd, "banker")
    assert list(peels) == ["b2", "b3"]
    b2 = presenter.navigator_view(
        decks=8,
        player_cards=shown(" ".join(player[:2])),
        banker_cards=shown(banker[0]),
        side="banker",
        pair_bet=False,
    )
    b3 = presenter.navigator_view(
        decks=8,
        player_cards=shown(" ".join(player)),
        banker_cards=shown(" ".join(banker[:2])),
        side="banker",
        pair_bet=False,
    )
    assert peels["b2"].navigator == b2 and peels["b3"].navigator == b3
    assert presenter.squeeze_peels(rnd, "player") == {}  # the Player's cards were not bet


def test_squeezing_never_changes_the_round(make_player, classic):
    """The same shoe, played with and without the squeeze: the same cards,
    returns and balance, all settled when BET returns (before any peel)."""
    results = []
    for squeeze in (None, SqueezeWish(on=True, promo=True)):
        user = make_player(chips=10_000)
        use_seed(user, six_card_seed())
        rnd = baccarat.place_bet(
            user=user,
            table=classic,
            bets={"player": 5_000 * CHIP, "player_pair": 10 * CHIP},
            slip_key="same",
            squeeze=squeeze,
        )
        assert rnd.status == Round.Status.SETTLED
        assert Wallet.objects.get(user=user).balance == rnd.balance_after
        results.append(rnd)
    plain, squeezed = results
    for field in ("cards", "winner", "returns", "total_return", "balance_after", "detail"):
        assert getattr(plain, field) == getattr(squeezed, field)
    # The squeezed reveal opens the same cards in the same order, only pausing for the peels.
    opened = re.compile(r'id="bac-card-(\w\d)"[^>]*data-card="(\w\w)"')

    def cards(steps):
        return [c for s in steps for c in opened.findall(s.html)]

    steps = reveal_steps(squeezed, table=classic, squeeze="player")
    assert cards(steps) == cards(reveal_steps(plain, table=classic))
    assert [s.name for s in steps].count("peel") == 2  # P2 and P3


@pytest.mark.engines
def test_the_reveal_event_names_the_side_to_squeeze(
    make_player, classic, django_capture_on_commit_callbacks
):

    user = make_player(chips=10_000)
    group = baccarat.reveal_group(user.pk)
    on = SqueezeWish(on=True)
    for key, bets, side in (
        ("a", {"banker": 5_000 * CHIP}, "banker"),
        ("b", {"banker": 100 * CHIP}, None),  # under the threshold
        ("c", {"tie": 1_000 * CHIP, "banker_pair": 1_000 * CHIP}, None),
    ):

        def bet(key: str = key, bets: dict[str, int] = bets) -> Round:
            with django_capture_on_commit_callbacks(execute=True):
                return baccarat.place_bet(
                    user=user, table=classic, bets=bets, slip_key=key, squeeze=on
                )

        rnd, event = heard(group, bet)
        event.pop("bet_at")  # when BET reached the server
        assert event == {
            "type": "round.reveal",
            "round_id": rnd.pk,
            "table": classic.slug,
            "squeeze": side,
        }


# --- the toggle and the clip's visit, from a session and cookies ---------------
#
# The table's socket holds the session and the cookies of the page that opened
# it (scope["session"], scope["cookies"]), not a request: the squeeze's state
# is read from those, and must say what the page's own requests would.


def socket_scope(client) -> tuple:
    """The session and cookies a socket opened by this browser would hold."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}
    return store(session_key=cookies[settings.SESSION_COOKIE_NAME]), cookies


def page_visit(client, table) -> str:
    html = client.get(table.get_absolute_url()).content.decode()
    return re.search(r'name="squeeze_visit" value="(\w+)"', html).group(1)


def test_a_socket_reads_the_squeeze_the_page_unlocked(client, make_player, classic):
    client.force_login(make_player(chips=10_000))
    visit = page_visit(client, classic)
    squeeze_url = reverse("baccarat_squeeze", args=[classic.slug])
    client.post(squeeze_url, {"action": "promo_start", "visit": visit})
    session = client.session  # the clip ran its length: its start is moved back
    session[f"baccarat:squeeze:{classic.pk}"]["promo_started"] -= squeeze_service.PROMO_SECONDS
    session.save()
    client.post(squeeze_url, {"action": "promo_end", "visit": visit})

    session, cookies = socket_scope(client)
    wish = squeeze_service.wish(session=session, cookies=cookies, table=classic, visit=visit)
    assert wish == SqueezeWish(on=True, promo=True)
    # Another page's token, or a socket of the next render of the screen, gets no unlock.
    wish = squeeze_service.wish(session=session, cookies=cookies, table=classic, visit="old")
    assert wish == SqueezeWish(on=True, promo=False)
    page_visit(client, classic)
    session, cookies = socket_scope(client)
    wish = squeeze_service.wish(session=session, cookies=cookies, table=classic, visit=visit)
    assert wish == SqueezeWish(on=True, promo=False)


def test_a_visit_cookie_is_trusted_only_with_its_signature_and_at_its_own_table(classic, social):
    session: dict = {}
    visit = squeeze_service.new_visit()
    signed = squeeze_service.visit_cookie(table=classic, visit=visit)
    watch = {"session": session, "table": classic, "visit": visit}
    squeeze_service.act(cookies={signed.name: signed.value}, action="promo_start", now=0.0, **watch)
    finished = squeeze_service.PROMO_SECONDS
    for forged in (
        visit,  # the token alone, unsigned
        signed.value[:-1] + ("A" if signed.value[-1] != "A" else "B"),  # a signature altered
        squeeze_service.visit_cookie(table=social, visit=visit).value,  # signed for another table
    ):
        answer = squeeze_service.act(
            cookies={signed.name: forged}, action="promo_end", now=finished, **watch
        )
        assert answer.error == "This page is out of date. Reload the table to watch the clip."
        assert answer.wish == SqueezeWish(on=False, promo=False)
    answer = squeeze_service.act(
        cookies={signed.name: signed.value}, action="promo_end", now=finished, **watch
    )
    assert answer.note == "Squeeze unlocked for this visit to the table."
    assert answer.wish == SqueezeWish(on=True, promo=True)


def test_a_clip_ended_before_its_length_unlocks_nothing(classic):
    session: dict = {}
    visit = squeeze_service.new_visit()
    cookie = squeeze_service.visit_cookie(table=classic, visit=visit)
    watch = {"session": session, "cookies": {cookie.name: cookie.value}, "table": classic}
    squeeze_service.act(action="promo_start", visit=visit, now=1000.0, **watch)
    early = 1000.0 + squeeze_service.PROMO_SECONDS - squeeze_service.PROMO_SLACK - 0.5
    answer = squeeze_service.act(action="promo_end", visit=visit, now=early, **watch)
    assert answer.error == "Watch the clip to its end to unlock the squeeze."
    assert answer.wish == SqueezeWish(on=False, promo=False)
    before = dict(session)
    answer = squeeze_service.act(action="rewind", visit=visit, now=early, **watch)
    assert (answer.wish, answer.error, answer.note) == (SqueezeWish(), "", "")
    assert session == before  # an unknown action changes nothing
