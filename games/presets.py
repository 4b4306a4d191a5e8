"""The SPEC's table presets (SPEC sections 3 and 5): Baccarat Social (seed 000),
Baccarat Classic (seed 001) and Casino War (seed 004), defined once.

Pure core (no Django).  The rules modules take their default paytables from
here, the table service and the data migration create the tables from
``PRESETS``, and the operator console offers them as "start from preset".
Multipliers are strings, as a table stores them (JSON); ``games.money.
decimal_pays`` makes them Decimals.  Limits and amounts are minor units
(1 chip = 100 units).
"""

from __future__ import annotations

from typing import Any

from games.money import UNITS_PER_CHIP, chip_units

# Total-return multipliers (stake included), in the order they are shown.
SOCIAL_PAYS: dict[str, str] = {
    "player": "2",
    "banker": "1.95",
    "tie": "8",
    "player_pair": "10",
    "banker_pair": "10",
}
CLASSIC_PAYS: dict[str, str] = {
    "player": "2",
    "banker": "1.95",
    "tie": "9",
    "player_pair": "12",
    "banker_pair": "12",
}
# "war_tie_bonus" is an extra multiple of the ante when the war ties: 0 is off.
WAR_PAYS: dict[str, str] = {"ante": "2", "raise": "2", "tie_bet": "11", "war_tie_bonus": "0"}

# The areas a player stakes on, each with its own MIN and MAX. A war's raise
# is not one: it always equals the ante.
BACCARAT_AREAS: tuple[str, ...] = tuple(CLASSIC_PAYS)
WAR_AREAS: tuple[str, ...] = ("ante", "tie_bet")


def _limits(**areas: tuple[float, int]) -> dict[str, dict[str, int]]:
    """Limits given in chips (cents allowed), stored in units."""
    return {
        area: {"min": chip_units(lo), "max": chip_units(hi)} for area, (lo, hi) in areas.items()
    }


SOCIAL: dict[str, Any] = {
    "game": "baccarat",
    "name": "Baccarat Social",
    "slug": "baccarat-social",
    "position": 1,
    "decks": 1,
    # Up to the PLAYER/BANKER maximum in one chip; the squeeze's 1,000 in one.
    "chips": [1, 5, 25, 100, 500, 1_000, 5_000],
    "pays": SOCIAL_PAYS,
    "limits": _limits(
        player=(1, 5_000),
        banker=(1, 5_000),
        tie=(1, 500),
        player_pair=(1, 500),
        banker_pair=(1, 500),
    ),
    # The most a legal slip can hold: PLAYER (or BANKER) 5,000 + TIE 500 + both PAIRS 500.
    "max_bet": 6_500 * UNITS_PER_CHIP,
    "squeeze_threshold": 1_000 * UNITS_PER_CHIP,
    "decision_timeout": 30,
}
CLASSIC: dict[str, Any] = {
    "game": "baccarat",
    "name": "Baccarat Classic",
    "slug": "baccarat-classic",
    "position": 2,
    "decks": 8,
    # Cent bets, as seed 001 takes euro cents: 0.10 up on PLAYER and BANKER;
    # up to the 20,000 maximum in two chips, the squeeze's 5,000 in one.
    "chips": [0.1, 0.5, 1, 5, 25, 100, 500, 1_000, 5_000, 10_000],
    "pays": CLASSIC_PAYS,
    "limits": _limits(
        player=(0.1, 20_000),
        banker=(0.1, 20_000),
        tie=(10, 2_000),
        player_pair=(10, 2_000),
        banker_pair=(10, 2_000),
    ),
    "max_bet": 25_000 * UNITS_PER_CHIP,
    "squeeze_threshold": 5_000 * UNITS_PER_CHIP,
    "decision_timeout": 30,
}
# One shoe dealt on the server's clock to every player at the table
# (games/services/live.py): the Classic paytable and limits.
LIVE: dict[str, Any] = {
    **CLASSIC,
    "name": "Baccarat Live",
    "slug": "baccarat-live",
    "position": 4,
    "live": True,
    "betting_seconds": 15,
}
WAR: dict[str, Any] = {
    "game": "war",
    "name": "Casino War",
    "slug": "casino-war",
    "position": 3,
    "decks": 6,
    # Up to the ANTE maximum in one chip.
    "chips": [1, 5, 25, 100, 500, 1_000, 5_000],
    "pays": WAR_PAYS,
    "limits": _limits(ante=(5, 5_000), tie_bet=(1, 500)),
    # The MAX BET holds a war's raise too: the top ANTE can still go to war.
    "max_bet": 10_500 * UNITS_PER_CHIP,
    "squeeze_threshold": 0,
    "decision_timeout": 30,
}

# The most chip values a table's rack holds (the operator's form refuses
# more): one of the chip set's 12 colours each, and a rack a phone scrolls
# through in a press or two.
MOST_CHIPS = 12

# The names Japanese pages show for them, as the Japanese rule pages call the
# games (Table.name_ja; kept apart from the presets, which data migrations
# read as they stood then).
PRESET_NAMES_JA: dict[str, str] = {
    "baccarat-social": "バカラ ソーシャル",
    "baccarat-classic": "バカラ クラシック",
    "casino-war": "カジノ ワー",
    "baccarat-live": "バカラ ライブ",
}

# Every preset table, in lobby order: the keyword arguments of a new Table.
PRESETS: list[dict[str, Any]] = [SOCIAL, CLASSIC, WAR, LIVE]
# The presets by the short name the operator console uses ("?preset=classic").
TABLE_PRESETS: dict[str, dict[str, Any]] = {"social": SOCIAL, "classic": CLASSIC, "war": WAR}
# Their paytables, per game, for "start from preset" in the table form.
PAY_PRESETS: dict[str, dict[str, dict[str, str]]] = {
    "baccarat": {"social": SOCIAL_PAYS, "classic": CLASSIC_PAYS},
    "war": {"war": WAR_PAYS},
}
# The shoe a game deals from when nothing else says (the verifier's default).
DEFAULT_DECKS: dict[str, int] = {"baccarat": CLASSIC["decks"], "war": WAR["decks"]}


def reachable_max_bet(game: str, limits: dict[str, dict[str, int]]) -> int:
    """The most one legal slip can hold under these limits (units): a MAX BET
    above it could never be reached. Baccarat takes PLAYER or BANKER (never
    both) with TIE and both PAIRs; War takes the ANTE and the TIE BONUS, and
    the MAX BET bounds the raise a war stakes too (SPEC section 5), so the
    top ANTE needs room for twice itself."""

    def most(area: str) -> int:
        return int((limits.get(area) or {}).get("max") or 0)

    if game == "war":
        return 2 * most("ante") + most("tie_bet")
    return (
        max(most("player"), most("banker"))
        + most("tie")
        + most("player_pair")
        + most("banker_pair")
    )
