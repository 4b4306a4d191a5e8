"""Staff cannot read a hidden column through the admin's URL filters.

A changelist applied any lookup on its model's own fields that the URL
named, so a support account allowed to view profiles recovered a player's
PIN hash one character at a time (``?pin_hash__regex=^argon2...``, counting
the rows left), and from it the PIN offline. Every list now filters by its
own filters only (casino/admin_lookups.py), the libraries' lists included.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from casino.admin_lookups import listed_lookups
from games.services.account import set_pin
from tests.security.totp import enrolled
from tests.stored_results import settled_coup

User = get_user_model()
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def support(db) -> Client:
    call_command("setup_casino", verbosity=0)
    user = User.objects.create_user("support1", password="x", is_staff=True)
    user.groups.add(Group.objects.get(name="Support"))
    client = Client()
    client.force_login(user)
    return client


def rows(response) -> int:
    return response.context["cl"].result_count


def test_a_pin_hash_cannot_be_guessed_through_the_profile_list(support, make_player):
    alice = make_player("alice")
    set_pin(user=alice, password="pw-Secret-123", new_pin="482913")
    url = reverse("admin:games_profile_changelist")
    assert rows(support.get(url, **EN)) >= 1, "support reads the profile list"
    for guess in ("pin_hash__startswith=argon2", "pin_hash__regex=.", "pin_hash__gt="):
        response = support.get(f"{url}?{guess}", **EN)
        assert response.status_code == 400, guess
        assert b"argon2" not in response.content


def test_the_lists_own_filters_still_filter(support, make_player):
    settled_coup(make_player("alice"), bets={"banker": 1_000}, client_seed="lucky")
    url = reverse("admin:games_round_changelist")
    assert rows(support.get(f"{url}?game__exact=baccarat", **EN)) == 1
    assert rows(support.get(f"{url}?game__exact=war", **EN)) == 0


@pytest.mark.parametrize(
    "model_admin", list(admin.site._registry.values()), ids=lambda a: a.model._meta.label
)
def test_no_list_filters_by_a_field_it_does_not_offer(model_admin, admin_user):
    """Every registered list, the libraries' too (django-otp's device keys),
    refuses a lookup on any field its own filters do not name."""
    enrolled(admin_user)
    client = Client()
    client.force_login(admin_user)
    opts = model_admin.model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    offered = listed_lookups(model_admin, None)
    hidden = [
        f.name
        for f in opts.concrete_fields
        if not f.is_relation and f.name not in offered and not f.primary_key
    ]
    assert hidden, "each model has a field its list does not filter by"
    for name in hidden:
        response = client.get(f"{url}?{name}__startswith=a", **EN)
        assert response.status_code in (302, 400), (name, response.status_code)
        if response.status_code == 302:  # Django's own "incorrect lookup" answer
            assert response["Location"].endswith("?e=1"), name
