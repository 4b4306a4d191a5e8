"""What every game's round needs before its cards: the table open, the
version it is played under, the player's seeds, its number and its limits.

These run inside the round's transaction (``transaction.atomic``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Max
from django.utils.translation import gettext as _

from games.errors import TableClosed
from games.models import Profile, Round, Table, TableVersion, Wallet


@dataclass(frozen=True)
class Seeds:
    server_seed: str  # hex; revealed on the round page once the round is over
    server_seed_hash: str  # what the player saw before betting
    client_seed: str
    nonce: int

    @property
    def server_seed_bytes(self) -> bytes:
        return bytes.fromhex(self.server_seed)


def require_open(table: Table) -> None:
    if not table.enabled:
        raise TableClosed(_("This table is closed. Please choose another table in the lobby."))


def current_version(table: Table) -> TableVersion:
    """The version a round starting now is played under (already loaded when
    the table was read with ``select_related("current_version")``)."""
    if table.current_version_id is None:
        from games.services.tables import snapshot_version

        return snapshot_version(table=table)
    if Table.current_version.is_cached(table):
        return table.current_version
    return TableVersion.objects.get(pk=table.current_version_id)


def lock_wallet(user: AbstractBaseUser) -> Wallet:
    """The player's wallet, locked for the rest of the transaction
    (a no-op on SQLite, whose IMMEDIATE transactions already serialise writers)."""
    return Wallet.objects.select_for_update().get(user=user)


def lock_profile(user: AbstractBaseUser) -> Profile:
    """The player's profile (seeds, personal limit), locked for the rest of
    the transaction. Rounds take it after the wallet, always in that order."""
    return Profile.objects.select_for_update().get(user=user)


def remember(
    user: AbstractBaseUser, *, wallet: Wallet | None = None, profile: Profile | None = None
) -> None:
    """Keep the rows a round's transaction locked and changed on ``user``, as
    ``user.wallet`` (with the posted balance) and ``user.profile`` (with the
    next seed), so that the answer to the request shows them without reading
    them again. Called at the end of the round's transaction."""
    if wallet is not None:
        user.wallet = wallet
    if profile is not None:
        user.profile = profile


def player_rows(user: AbstractBaseUser) -> tuple[Wallet, Profile]:
    """The player's wallet and profile as this request has them: read with
    the user when the request began (``casino.auth``), or as the request's
    round left them (``remember``). An account made outside sign-up
    (``createsuperuser``) gets its wallet and profile here."""
    try:
        return user.wallet, user.profile
    except (Wallet.DoesNotExist, Profile.DoesNotExist):
        from games.services.wallet import open_account

        wallet = open_account(user=user)
        profile = Profile.objects.get(user=user)
        remember(user, wallet=wallet, profile=profile)
        return wallet, profile


def take_seeds(profile: Profile) -> Seeds:
    """Use the committed server seed for this round and commit the next one.

    ``profile`` is the player's, locked (``lock_profile``). The player saw
    ``sha256(next_server_seed)`` before betting; after this call the profile
    holds a fresh seed (and its hash is what the table shows for the next
    round) and the nonce has moved on by one.
    """
    from games.cards import server_seed_hash
    from games.services.wallet import new_server_seed_hex

    seeds = Seeds(
        server_seed=profile.next_server_seed,
        server_seed_hash=server_seed_hash(bytes.fromhex(profile.next_server_seed)),
        client_seed=profile.client_seed,
        nonce=profile.nonce,
    )
    profile.next_server_seed = new_server_seed_hex()
    profile.nonce += 1
    Profile.objects.filter(pk=profile.pk).update(
        next_server_seed=profile.next_server_seed, nonce=profile.nonce
    )
    return seeds


def next_seq(user: AbstractBaseUser, table: Table) -> int:
    """The player's next round number at this table (an index lookup)."""
    last = Round.objects.filter(player=user, table=table).aggregate(m=Max("seq"))["m"]
    return (last or 0) + 1


def round_max_bet(
    user: AbstractBaseUser, version: TableVersion, profile: Profile | None = None
) -> tuple[int, bool]:
    """The most the player may stake in one round here, and whether it is
    their personal limit (lower than the table's) that sets it. ``profile``,
    when the caller has the player's profile already, saves reading it."""
    if profile is not None:
        personal = profile.personal_max_bet
    else:
        personal = Profile.objects.values_list("personal_max_bet", flat=True).get(user=user)
    if personal is not None and personal < version.max_bet:
        return personal, True
    return version.max_bet, False
