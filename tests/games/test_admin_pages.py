"""Every page of the operator console opens for the roles that see it.

For each model on the admin site (``admin.site._registry``: the project's and
the libraries'), the operator and the support roles load its list and the
change page of its rows, wherever the role may view the model, on a site
where play has happened: a round of each game, an operator's credit, a demo,
play-safe settings, and a player whose seeds no key of the site opens any
more (the site restarted with a new secret key over the same database: the
profile list answered 500 for it).
"""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from games.models import Profile, Round, Table
from games.services import baccarat as baccarat_service
from games.services import demo, play_safe
from games.services import war as war_service
from games.services.operator import do_adjustments
from games.services.staff import OPERATOR, SUPPORT

User = get_user_model()
CHIP = 100


def play_a_round_of_each_game(player) -> None:
    baccarat_service.play(
        user=player,
        table=Table.objects.get(slug="baccarat-classic"),
        bets={"player": 10 * CHIP},
        slip_key="b1",
    )
    war_service.play(
        user=player, table=Table.objects.get(slug="casino-war"), ante=10 * CHIP, tie_bet=0,
        slip_key="w1",
    )  # fmt: skip


@pytest.fixture
def played_site(make_player, settings):
    """A site after some play: rounds of both games, a demo, play-safe
    settings; and a player whose seeds were sealed under a key the site no
    longer holds (the site restarted with a new secret key over the same
    database: that player cannot play, and the console must still open)."""
    call_command("setup_casino", verbosity=0)
    settings.CASINO_SEED_KEYS = [Fernet.generate_key().decode()]
    play_a_round_of_each_game(make_player("keyless", chips=1_000))
    settings.CASINO_SEED_KEYS = []
    player = make_player("alice", chips=1_000)
    play_a_round_of_each_game(player)
    play_safe.set_loss_limit(user=player, period="day", amount=500 * CHIP)
    play_safe.take_break(user=make_player("bob"), length="24h")
    demo.start_demo()
    operator = User.objects.create_superuser("boss", None, None)
    do_adjustments(
        wallet_ids=[player.wallet.pk], amount=50 * CHIP, reason="goodwill", actor=operator
    )


def staff_in(role: str):
    user = User.objects.create_user(f"{role.lower()}-1", is_staff=True)
    user.groups.set([Group.objects.get(name=role)])
    return user


def pages(user) -> list[str]:
    """The list and every row's change page of each model ``user`` may view."""
    request = RequestFactory().get("/")
    request.user = user
    urls = []
    for model, model_admin in admin.site._registry.items():
        if not model_admin.has_view_or_change_permission(request):
            continue
        info = (model._meta.app_label, model._meta.model_name)
        urls.append(reverse("admin:{}_{}_changelist".format(*info)))
        for pk in model._default_manager.values_list("pk", flat=True)[:20]:
            urls.append(reverse("admin:{}_{}_change".format(*info), args=[pk]))
    return urls


@pytest.mark.parametrize("role", [OPERATOR, SUPPORT])
def test_every_admin_page_a_role_sees_opens(played_site, role):
    user = staff_in(role)
    client = Client(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
    client.force_login(user)
    seen = pages(user)
    assert "/admin/games/profile/" in seen and "/admin/games/round/" in seen
    answers = {url: client.get(url).status_code for url in seen}
    assert {url: status for url, status in answers.items() if status != 200} == {}


def test_a_seed_no_key_opens_is_named_so_on_its_pages(played_site, client):
    client.force_login(staff_in(SUPPORT))
    keyless = Profile.objects.filter(user__username="keyless").values_list("pk", flat=True).get()
    page = client.get(reverse("admin:games_profile_change", args=[keyless])).content.decode()
    assert "Sealed under a key this site no longer holds" in page
    settled = Round.objects.filter(player__username="keyless", status=Round.Status.SETTLED)
    page = client.get(
        reverse("admin:games_round_change", args=[settled.values_list("pk", flat=True)[0]])
    ).content.decode()
    assert "Sealed under a key this site no longer holds" in page
