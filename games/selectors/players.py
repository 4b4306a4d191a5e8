"""Reads of the signed-in player's own rows: wallet and profile.

Views and presenters ask for them explicitly (``account_for``, ``wallet_for``,
``profile_for``); nothing is cached on ``request.user``. A table screen needs
both, so ``account_for`` reads them in one query. Every user has both from
the moment it is made (``services.wallet.open_new_users_account``): a read
never opens an account.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from games.models import Profile, Wallet


@dataclass(frozen=True)
class Account:
    wallet: Wallet
    profile: Profile

    @property
    def balance(self) -> int:
        return self.wallet.balance


def account_for(user: User) -> Account:
    """The player's wallet and profile, in one query."""
    wallet = Wallet.objects.select_related("user__profile").get(user=user)
    return Account(wallet, wallet.user.profile)


def wallet_for(user: User) -> Wallet:
    return Wallet.objects.get(user=user)


def profile_for(user: User) -> Profile:
    return Profile.objects.get(user=user)


def is_demo(user: User) -> bool:
    """Whether the player plays on a demo account (its rounds count apart)."""
    return bool(Profile.objects.filter(user=user).values_list("demo", flat=True).first())
