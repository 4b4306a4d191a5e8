"""Reads of the signed-in player's own rows: wallet and profile.

Views and presenters ask for them explicitly (``account_for``, ``wallet_for``,
``profile_for``); nothing is cached on ``request.user``. A table screen needs
both, so ``account_for`` reads them in one query. An account made outside
sign-up (``createsuperuser``) gets its wallet, profile and starting chips on
its first read.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from games.models import Profile, Wallet
from games.services.wallet import open_account


@dataclass(frozen=True)
class Account:
    wallet: Wallet
    profile: Profile

    @property
    def balance(self) -> int:
        return self.wallet.balance


def account_for(user: User) -> Account:
    """The player's wallet and profile, in one query."""
    wallet = Wallet.objects.select_related("user__profile").filter(user=user).first()
    if wallet is None or not hasattr(wallet.user, "profile"):
        wallet = open_account(user=user)
        return Account(wallet, Profile.objects.get(user=user))
    return Account(wallet, wallet.user.profile)


def wallet_for(user: User) -> Wallet:
    wallet = Wallet.objects.filter(user=user).first()
    return wallet if wallet is not None else open_account(user=user)


def profile_for(user: User) -> Profile:
    profile = Profile.objects.filter(user=user).first()
    if profile is None:
        open_account(user=user)
        profile = Profile.objects.get(user=user)
    return profile


def is_demo(user: User) -> bool:
    """Whether the player plays on a demo account (its rounds count apart)."""
    return bool(Profile.objects.filter(user=user).values_list("demo", flat=True).first())
