"""Standalone shuffle verifier: re-derive a round's shoe from its revealed seeds.

Pure core (no Django), so a player can run it without the site::

    python -m games.verify --server-seed HEX --client-seed TEXT --nonce N \\
        --game baccarat --decks 8
    python -m games.verify --server-seed HEX --client-seed TEXT --nonce N \\
        --game war --decks 6 --decision war

It prints the SHA-256 of the server seed (compare it with the hash shown
before the round), the first 12 cards of the shuffled shoe and the round's
result.  The shoe is ``shuffle(new_shoe(decks), FairRng(seed, client, nonce))``
(see ``games.cards`` for the exact algorithm).  The site's round page checks
a stored round with ``check_round``: the same shoe, the same rules, every
stored card, result and return compared, each disagreement named.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from games.baccarat.rules import Coup, play_coup, settle
from games.cards import Card, FairRng, new_shoe, server_seed_hash, shuffle
from games.money import decimal_pays
from games.presets import DEFAULT_DECKS
from games.war.rules import WarRound, first_cards_tied, play_war, settle_war

SHOWN_CARDS = 12


def seed_bytes(server_seed_hex: str) -> bytes:
    """The server seed as bytes, from its hex form (as revealed after the round)."""
    try:
        return bytes.fromhex(server_seed_hex.strip())
    except ValueError:
        raise ValueError("the server seed must be written in hexadecimal") from None


def derive_shoe(server_seed_hex: str, client_seed: str, nonce: int, decks: int) -> list[Card]:
    """The round's shuffled shoe, rebuilt from the revealed server seed."""
    rng = FairRng(seed_bytes(server_seed_hex), client_seed, nonce)
    return shuffle(new_shoe(decks), rng)


def replay_baccarat(server_seed_hex: str, client_seed: str, nonce: int, decks: int) -> Coup:
    """The coup dealt from the derived shoe."""
    return play_coup(derive_shoe(server_seed_hex, client_seed, nonce, decks))


def replay_war(
    server_seed_hex: str, client_seed: str, nonce: int, decks: int, decision: str | None = None
) -> WarRound:
    """The war round dealt from the derived shoe (a tie needs ``decision``)."""
    return play_war(derive_shoe(server_seed_hex, client_seed, nonce, decks), decision)


# --- checking a stored round -------------------------------------------------


@dataclass(frozen=True)
class StoredRound:
    """A round as the site stored it, in plain values: what ``check_round``
    compares with the round dealt again from the seeds."""

    game: str  # "baccarat" | "war"
    server_seed: str  # hex, as revealed
    server_seed_hash: str  # as committed before the round
    client_seed: str
    nonce: int
    decks: int
    pays: Mapping[str, Any]  # the round's paytable, as stored
    bets: Mapping[str, Any]  # stakes in units, as stored (checked, not trusted)
    returns: Mapping[str, Any]
    cards: Sequence[str]  # in deal order
    result: str  # baccarat: the winner; war: the result ("" when none is stored)
    void: bool = False  # refunded: its cards may stop part-way, its money is not checked
    decision: str | None = None  # war: the tie decision
    # Baccarat facts; None when the round did not store them (not checked).
    player_total: int | None = None
    banker_total: int | None = None
    natural: bool | None = None
    player_pair: bool | None = None
    banker_pair: bool | None = None


@dataclass(frozen=True)
class Difference:
    """One way the stored round and the derived one disagree.

    ``what`` names the fact: "server_seed" (not hexadecimal), "server_seed_hash",
    "winner", "player_total", "banker_total", "natural", "player_pair",
    "banker_pair", "decision" (a tie stored without a usable decision),
    "result", "returns" (the bets could not be settled again), "return"
    (``where`` is the area), "card" (``where`` is its 1-based position) and
    "card_count".
    """

    what: str
    stored: Any = None
    derived: Any = None
    where: str | int = ""


@dataclass(frozen=True)
class RoundCheck:
    """The stored round against the one re-derived from its seeds."""

    differences: list[Difference]
    derived_cards: list[str]
    derived_hash: str
    derived_result: str

    @property
    def matches(self) -> bool:
        return not self.differences


def check_round(stored: StoredRound) -> RoundCheck:
    """Deal the round again from its revealed seeds and compare it with ``stored``.

    Differences come in the order a reader checks them: the seed's hash, the
    result and the facts of the deal, the returns, then card by card.  The
    caller must not check an open round (its seed is still secret).
    """
    try:
        seed = seed_bytes(stored.server_seed)
    except ValueError:
        return RoundCheck([Difference("server_seed")], [], "", "")
    differences: list[Difference] = []
    derived_hash = server_seed_hash(seed)
    if derived_hash != stored.server_seed_hash:
        differences.append(Difference("server_seed_hash", stored.server_seed_hash, derived_hash))
    shoe = derive_shoe(stored.server_seed, stored.client_seed, stored.nonce, stored.decks)
    pays = decimal_pays(stored.pays, skip_invalid=True)
    if stored.game == "baccarat":
        expected, derived_result, found = _check_coup(stored, shoe, pays)
    else:
        expected, derived_result, found = _check_war(stored, shoe, pays)
    differences += found
    cards = [str(c) for c in stored.cards]
    # A void round may have stopped part-way: its cards are a prefix of the deal.
    if stored.void:
        expected = expected[: len(cards)]
    for i, (card, derived) in enumerate(zip(cards, expected, strict=False), start=1):
        if card != derived:
            differences.append(Difference("card", card, derived, where=i))
    if len(cards) != len(expected):
        differences.append(Difference("card_count", len(cards), len(expected)))
    return RoundCheck(differences, expected, derived_hash, derived_result)


def _check_coup(
    stored: StoredRound, shoe: Sequence[Card], pays: Mapping[str, Decimal]
) -> tuple[list[str], str, list[Difference]]:
    coup = play_coup(shoe)
    expected = [str(c) for c in coup.cards_in_deal_order]
    if stored.void:
        return expected, coup.winner, []
    found = [
        Difference(what, was, derived)
        for what, was, derived in (
            ("winner", stored.result, coup.winner),
            ("player_total", stored.player_total, coup.player_total),
            ("banker_total", stored.banker_total, coup.banker_total),
            ("natural", stored.natural, coup.natural),
            ("player_pair", stored.player_pair, coup.player_pair),
            ("banker_pair", stored.banker_pair, coup.banker_pair),
        )
        if was is not None and was != derived
    ]
    try:
        derived_returns = settle(coup, stored.bets or {}, pays)
    except (ValueError, KeyError, TypeError):
        derived_returns = None
    found += _check_returns(stored.returns or {}, derived_returns)
    return expected, coup.winner, found


def _check_war(
    stored: StoredRound, shoe: Sequence[Card], pays: Mapping[str, Decimal]
) -> tuple[list[str], str, list[Difference]]:
    expected = [str(c) for c in shoe[:2]]
    try:
        war = play_war(shoe, stored.decision)
    except ValueError:
        return expected, "", [Difference("decision", stored.decision)]
    if war.decision == "war":
        expected = [str(c) for c in shoe[:7]]
    if stored.void:
        return expected, war.result, []
    found = []
    if stored.result and stored.result != war.result:
        found.append(Difference("result", stored.result, war.result))
    bets = stored.bets or {}
    try:
        derived_returns = settle_war(
            war, int(bets.get("ante", 0)), int(bets.get("tie_bet", 0)), pays
        )
    except (ValueError, KeyError, TypeError):
        derived_returns = None
    found += _check_returns(stored.returns or {}, derived_returns)
    return expected, war.result, found


def _check_returns(
    stored: Mapping[str, Any], derived: Mapping[str, int] | None
) -> list[Difference]:
    if derived is None:
        return [Difference("returns")]
    out = []
    areas = [*stored, *(a for a, v in derived.items() if v and a not in stored)]
    for area in areas:
        was, back = int(stored.get(area, 0) or 0), int(derived.get(area, 0))
        if was != back:
            out.append(Difference("return", was, back, where=area))
    return out


# --- the command line -----------------------------------------------------------


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def report(
    server_seed_hex: str,
    client_seed: str,
    nonce: int,
    game: str,
    decks: int,
    decision: str | None = None,
) -> dict[str, object]:
    """Everything the CLI prints, as a JSON-friendly dict."""
    shoe = derive_shoe(server_seed_hex, client_seed, nonce, decks)
    out: dict[str, object] = {
        "server_seed_hash": server_seed_hash(seed_bytes(server_seed_hex)),
        "client_seed": client_seed,
        "nonce": nonce,
        "game": game,
        "decks": decks,
        "first_cards": [str(c) for c in shoe[:SHOWN_CARDS]],
    }
    if game == "baccarat":
        coup = play_coup(shoe)
        out.update(
            player=[str(c) for c in coup.player],
            banker=[str(c) for c in coup.banker],
            player_total=coup.player_total,
            banker_total=coup.banker_total,
            winner=coup.winner,
            natural=coup.natural,
            player_pair=coup.player_pair,
            banker_pair=coup.banker_pair,
        )
    elif game == "war":
        tied = first_cards_tied(shoe)
        out.update(player_card=str(shoe[0]), dealer_card=str(shoe[1]), tied=tied)
        if tied and decision is None:
            out["result"] = None
            out["note"] = "the first cards tied: pass --decision war or --decision surrender"
        else:
            rnd = play_war(shoe, decision)
            out.update(
                decision=rnd.decision,
                war_player_card=str(rnd.war_player_card) if rnd.war_player_card else None,
                war_dealer_card=str(rnd.war_dealer_card) if rnd.war_dealer_card else None,
                result=rnd.result,
            )
    else:
        raise ValueError(f"unknown game {game!r}; expected 'baccarat' or 'war'")
    return out


def _text(data: dict[str, object]) -> str:
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        elif value is None:
            value = "-"
        lines.append(f"{key}: {value}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.verify",
        description="Re-derive a round's shuffled shoe from its revealed seeds.",
    )
    parser.add_argument("--server-seed", required=True, help="revealed server seed, hex")
    parser.add_argument("--client-seed", required=True, help="your client seed")
    parser.add_argument("--nonce", required=True, type=int, help="round number for this seed")
    parser.add_argument("--game", choices=("baccarat", "war"), default="baccarat")
    parser.add_argument(
        "--decks",
        type=int,
        help=f"decks in the shoe (baccarat {DEFAULT_DECKS['baccarat']}, war {DEFAULT_DECKS['war']})",
    )
    parser.add_argument("--decision", choices=("war", "surrender"), help="war: tie decision")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    decks = args.decks if args.decks is not None else DEFAULT_DECKS[args.game]
    try:
        data = report(
            args.server_seed, args.client_seed, args.nonce, args.game, decks, args.decision
        )
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    print(json.dumps(data) if args.json else _text(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
