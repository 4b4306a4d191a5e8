"""Health and metrics endpoints as the load balancer, Prometheus and a
stranger see them: /healthz and /readyz say ok or unavailable and nothing
else, /metrics answers only its token's bearer, and counts the rounds,
chips, refusals, failed logins and ledger audits the services really made.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from channels.layers import channel_layers
from django.core.management import call_command
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from games.errors import BetRefused, GameError
from games.models import Round, Table, Wallet
from games.services import baccarat, demo, war
from tests.games.services.test_war_service import next_shoe
from tests.make_run import free_port

TOKEN = "t" * 40
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def metrics_token(settings):
    settings.CASINO_METRICS_TOKEN = TOKEN


def scrape(client: Client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, by name and labels."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


# --- health -----------------------------------------------------------------


def test_it_answers_healthz_and_readyz_when_everything_is_up(client):
    for url in ("/healthz", "/readyz"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.content == b"ok\n"
        assert response["Content-Type"].startswith("text/plain")


def test_it_is_not_ready_when_redis_is_down_and_says_nothing_of_it(client, settings):
    port = free_port()  # nothing listens there: a real connection refused
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
        }
    }
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.content == b"unavailable\n"
    # The process itself still answers: the supervisor must not restart it.
    assert client.get("/healthz").status_code == 200


def test_it_is_not_ready_when_the_channel_layer_is_down(client, settings):
    port = free_port()
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"]},
        }
    }
    channel_layers.backends.clear()  # made again from the settings above
    try:
        response = client.get("/readyz")
    finally:
        channel_layers.backends.clear()
    assert response.status_code == 503
    assert response.content == b"unavailable\n"


def test_it_is_not_ready_while_a_migration_is_missing(client):
    call_command("migrate", "games", "0007", verbosity=0)
    try:
        assert client.get("/readyz").status_code == 503
    finally:
        call_command("migrate", verbosity=0)
    assert client.get("/readyz").status_code == 200


# --- who may read the metrics ------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        None,
        f"Bearer {TOKEN[:-1]}x",
        f"Bearer {TOKEN}x",
        f"Basic {TOKEN}",
        TOKEN,
        "Bearer ",
    ],
)
def test_it_hides_the_metrics_from_anyone_without_the_token(client, header):
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
    response = client.get("/metrics", **extra)
    assert response.status_code == 404
    assert b"casino_" not in response.content


def test_it_hides_the_metrics_from_everyone_while_no_token_is_set(client, settings):
    settings.CASINO_METRICS_TOKEN = ""
    for header in ("Bearer ", f"Bearer {TOKEN}", "Bearer"):
        assert client.get("/metrics", HTTP_AUTHORIZATION=header).status_code == 404


def test_it_refuses_a_short_token_at_start_up():
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "CASINO_METRICS_TOKEN": "short",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "CASINO_METRICS_TOKEN must be at least 32 characters" in result.stderr


# --- what they count ----------------------------------------------------------


def test_it_counts_rounds_and_chips_played_through_the_services(client, make_player):
    player = make_player(chips=1_000)
    classic = Table.objects.get(slug="baccarat-classic")
    casino_war = Table.objects.get(slug="casino-war")
    before = scrape(client)
    for i in range(3):
        baccarat.place_bet(
            user=player, table=classic, bets={"banker": 1_000, "tie": 1_000}, slip_key=f"b{i}"
        )
    war.deal(user=player, table=casino_war, ante=500, tie_bet=0, slip_key="w0")
    after = scrape(client)

    bac = {"game": "baccarat", "table": "baccarat-classic", "book": "real"}
    rounds = Round.objects.filter(player=player, table=classic)
    assert (
        value(after, "casino_rounds_total", **bac) - value(before, "casino_rounds_total", **bac)
        == 3
    )
    staked = sum(r.total_bet for r in rounds) / 100
    returned = sum(r.total_return for r in rounds) / 100
    assert value(after, "casino_chips_staked_total", **bac) - value(
        before, "casino_chips_staked_total", **bac
    ) == pytest.approx(staked)
    assert value(after, "casino_chips_returned_total", **bac) - value(
        before, "casino_chips_returned_total", **bac
    ) == pytest.approx(returned)

    # The RTP watch saw three BANKER and three TIE bets, with their returns.
    banker = {"game": "baccarat", "table": "baccarat-classic", "area": "banker"}
    assert (
        value(after, "casino_rtp_bets_total", **banker)
        - value(before, "casino_rtp_bets_total", **banker)
        == 3
    )
    banker_back = sum(r.returns["banker"] for r in rounds)
    assert value(after, "casino_rtp_returned_units_total", **banker) - value(
        before, "casino_rtp_returned_units_total", **banker
    ) == pytest.approx(banker_back)
    # 10 chips on BANKER x1.95 are expected to give back about 9.89 chips.
    expected = value(after, "casino_rtp_expected_units_total", **banker) - value(
        before, "casino_rtp_expected_units_total", **banker
    )
    assert expected == pytest.approx(3 * 1_000 * 0.98942, rel=1e-4)

    # War's DEAL answered, and counted BET-to-result.
    assert value(after, "casino_bet_to_result_seconds_count", game="war") > value(
        before, "casino_bet_to_result_seconds_count", game="war"
    )


def test_it_does_not_count_a_refused_bet_as_a_round_but_as_a_refusal(client, make_player):
    player = make_player(chips=5)
    classic = Table.objects.get(slug="baccarat-classic")
    before = scrape(client)
    with pytest.raises(BetRefused):
        baccarat.place_bet(
            user=player, table=classic, bets={"player": 100, "banker": 100}, slip_key="both"
        )
    with pytest.raises(Exception, match="Not enough chips"):
        baccarat.place_bet(user=player, table=classic, bets={"player": 1_000}, slip_key="big")
    after = scrape(client)
    for code in ("both_sides", "balance"):
        labels = {"game": "baccarat", "code": code}
        assert (
            value(after, "casino_refusals_total", **labels)
            - value(before, "casino_refusals_total", **labels)
            == 1
        )
    bac = {"game": "baccarat", "table": "baccarat-classic", "book": "real"}
    assert value(after, "casino_rounds_total", **bac) == value(before, "casino_rounds_total", **bac)


def test_it_counts_failed_logins(client, make_player):
    make_player("somebody")
    before = scrape(client)
    stranger = Client()
    stranger.post("/accounts/login/", {"username": "somebody", "password": "wrong-guess-1"})
    stranger.post("/accounts/login/", {"username": "nobody", "password": "wrong-guess-2"})
    after = scrape(client)
    assert (
        value(after, "casino_login_failures_total") - value(before, "casino_login_failures_total")
        == 2
    )


def test_it_reports_the_last_ledger_audit(client, make_player):
    player = make_player(chips=100)
    call_command("audit_ledger", stdout=io.StringIO())
    samples = scrape(client)
    assert value(samples, "casino_ledger_audit_ok") == 1
    assert value(samples, "casino_ledger_audit_wallets_off") == 0
    assert value(samples, "casino_ledger_audit_timestamp_seconds") > 0

    # A wallet changed behind the ledger's back (no ledger row): the next audit says so.
    Wallet.objects.filter(user=player).update(balance=1)
    with pytest.raises(Exception, match="do not match"):
        call_command("audit_ledger", stdout=io.StringIO(), stderr=io.StringIO())
    samples = scrape(client)
    assert value(samples, "casino_ledger_audit_ok") == 0
    assert value(samples, "casino_ledger_audit_wallets_off") == 1


def test_a_superuser_without_the_token_gets_no_metrics(client, django_user_model):
    """Staff status opens the admin, not the books' figures: only the token does."""
    boss = django_user_model.objects.create_superuser("boss", password="pw-Secret-123")
    client.force_login(boss)
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_it_counts_demo_rounds_apart_from_the_real_books(client):
    visitor = demo.start_demo()
    classic = Table.objects.get(slug="baccarat-classic")
    real = {"game": "baccarat", "table": "baccarat-classic", "book": "real"}
    fake = {**real, "book": "demo"}
    before = scrape(client)
    baccarat.place_bet(user=visitor, table=classic, bets={"player": 1_000}, slip_key="demo")
    after = scrape(client)
    assert (
        value(after, "casino_rounds_total", **fake) - value(before, "casino_rounds_total", **fake)
        == 1
    )
    assert value(after, "casino_chips_staked_total", **fake) - value(
        before, "casino_chips_staked_total", **fake
    ) == pytest.approx(10)
    assert value(after, "casino_rounds_total", **real) == value(
        before, "casino_rounds_total", **real
    )
    assert value(after, "casino_chips_staked_total", **real) == value(
        before, "casino_chips_staked_total", **real
    )


def test_a_war_tie_counts_once_its_decision_settles_it(client, make_player):
    player = make_player(chips=1_000)
    casino_war = Table.objects.get(slug="casino-war")
    labels = {"game": "war", "table": "casino-war", "book": "real"}
    next_shoe(player, "tie")
    before = scrape(client)
    rnd = war.deal(user=player, table=casino_war, ante=1_000, tie_bet=0, slip_key="tie")
    waiting = scrape(client)
    assert value(waiting, "casino_rounds_total", **labels) == value(
        before, "casino_rounds_total", **labels
    )
    war.decide(user=player, round_id=rnd.pk, decision="war")
    after = scrape(client)
    assert (
        value(after, "casino_rounds_total", **labels)
        - value(before, "casino_rounds_total", **labels)
        == 1
    )
    # The ante and the raise.
    assert value(after, "casino_chips_staked_total", **labels) - value(
        before, "casino_chips_staked_total", **labels
    ) == pytest.approx(20)
    # A second decision on the settled round is refused, and counted as such.
    with pytest.raises(GameError):
        war.decide(user=player, round_id=rnd.pk, decision="war")
    refused = {"game": "war", "code": "settled"}
    assert (
        value(scrape(client), "casino_refusals_total", **refused)
        - value(after, "casino_refusals_total", **refused)
        == 1
    )
