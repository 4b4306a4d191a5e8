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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from games.baccarat.rules import AREAS as BACCARAT_AREAS
from games.baccarat.rules import Coup, play_coup, settle
from games.cards import Card, FairRng, new_shoe, server_seed_hash, shuffle
from games.presets import DEFAULT_DECKS
from games.war.rules import DEFAULT_PAYS, WarRound, first_cards_tied, play_war, settle_war

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

GAMES: tuple[str, ...] = ("baccarat", "war")
MAX_DECKS = 8  # the tables' own limit (a database constraint)
WAR_BETS: tuple[str, ...] = ("ante", "tie_bet", "raise")
# The pays a War result multiplies the ante by (``settle_war``); a surrender
# gives half the ante back and a loss nothing, with no multiplier.
WAR_PAYS_MULTIPLIED: dict[str, list[str]] = {
    "win": ["ante"],
    "war_win": ["raise"],
    "war_tie": ["raise", "war_tie_bonus"],
    "surrender": [],
    "lose": [],
    "war_lose": [],
}
# A multiplier's exponent beyond this is no paytable's (the browser's
# verifier refuses it too), and would overflow the exact product.
MAX_PAY_EXPONENT = 100


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

    ``what`` names the fact.  The round's inputs, each of which stops the
    check: "server_seed" (missing or not hexadecimal), "game" (not one of
    ``GAMES``), "client_seed" (missing), "nonce" (not a whole number),
    "decks" (not 1 to 8).  The
    commitment: "server_seed_hash" (``stored`` empty when none was stored).
    The deal: "winner", "player_total", "banker_total", "natural",
    "player_pair", "banker_pair", "result" (War), "decision" (a tie stored
    without a usable decision), "decision_untied" (a decision stored though
    the first cards did not tie).  The money, ``where`` the bet area or pay:
    "area" (no bet area of the game), "stake" (not a whole number of units),
    "pay_unknown" (a War pay the game does not have), "pay" (a multiplier the
    round needs is no number), "raise" (the War raise staked; ``where`` is
    the tie decision that needs ``derived``, "" without a tie), "return".
    The cards: "card" (``where`` is its 1-based position) and "card_count".
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

    As strict as the round page's two verifiers (static/js/verify.js and the
    Python snippet, templates/fair/verify_snippet.txt): differences come in
    the order a reader checks them: the seed's hash, the round's inputs, the
    result and the facts of the deal, the money, then card by card.  The
    caller must not check an open round (its seed is still secret).
    """
    seed_hex = stored.server_seed
    if not isinstance(seed_hex, str) or not seed_hex.strip():
        return RoundCheck([Difference("server_seed", seed_hex)], [], "", "")
    try:
        seed = seed_bytes(seed_hex)
    except ValueError:
        return RoundCheck([Difference("server_seed", seed_hex)], [], "", "")
    differences: list[Difference] = []
    derived_hash = server_seed_hash(seed)
    if derived_hash != stored.server_seed_hash:
        differences.append(Difference("server_seed_hash", stored.server_seed_hash, derived_hash))
    # Inputs no table could have dealt from: nothing to shuffle.
    unusable = _unusable_input(stored)
    if unusable is not None:
        return RoundCheck([*differences, unusable], [], derived_hash, "")
    shoe = derive_shoe(seed_hex, stored.client_seed, stored.nonce, stored.decks)
    if stored.game == "baccarat":
        expected, derived_result, found = _check_coup(stored, shoe)
    else:
        expected, derived_result, found = _check_war(stored, shoe)
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


def _unusable_input(stored: StoredRound) -> Difference | None:
    if stored.game not in GAMES:
        return Difference("game", stored.game)
    if not isinstance(stored.client_seed, str):
        return Difference("client_seed", stored.client_seed)
    if not _is_units(stored.nonce):
        return Difference("nonce", stored.nonce)
    if not _is_units(stored.decks) or not 1 <= stored.decks <= MAX_DECKS:
        return Difference("decks", stored.decks)
    return None


def _is_units(value: object) -> bool:
    """A whole number of at least 0 (a stake, a nonce): not a bool, a float or text."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_coup(
    stored: StoredRound, shoe: Sequence[Card]
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
    bets = stored.bets or {}
    bad_bets = _bad_bets(bets, BACCARAT_AREAS)
    found += bad_bets
    if bad_bets:
        return expected, coup.winner, found
    won = {"player": False, "banker": False, "tie": False, coup.winner: True}
    won |= {"player_pair": coup.player_pair, "banker_pair": coup.banker_pair}
    needed = [area for area, stake in bets.items() if stake and won[area]]
    pays, bad_pays = _multipliers(stored.pays or {}, BACCARAT_AREAS, needed)
    found += bad_pays
    if not bad_pays:
        found += _check_returns(stored.returns or {}, settle(coup, bets, pays))
    return expected, coup.winner, found


def _check_war(
    stored: StoredRound, shoe: Sequence[Card]
) -> tuple[list[str], str, list[Difference]]:
    expected = [str(c) for c in shoe[:2]]
    tied = first_cards_tied(shoe)
    decision = stored.decision or None
    found = []
    if not tied and decision is not None and not stored.void:
        found.append(Difference("decision_untied", decision))
    try:
        war = play_war(shoe, decision)
    except ValueError:
        # The player's choice is not in the seeds: without it the round
        # cannot be played on, and a void round may have ended waiting for it.
        return expected, "", [] if stored.void else [Difference("decision", decision)]
    if war.decision == "war":
        expected = [str(c) for c in shoe[:7]]
    if stored.void:
        return expected, war.result, []
    if stored.result is not None and stored.result != war.result:
        found.append(Difference("result", stored.result, war.result))
    bets = stored.bets or {}
    bad = _bad_bets(bets, WAR_BETS)
    # A pay the stored paytable leaves out is the game's default; one it
    # names must be one of the game's own.
    table: dict[str, Any] = dict(DEFAULT_PAYS)
    for key, value in (stored.pays or {}).items():
        if key in DEFAULT_PAYS:
            table[key] = value
        else:
            bad.append(Difference("pay_unknown", where=key))
    found += bad
    if bad:
        return expected, war.result, found
    ante, tie_bet, raised = (int(bets.get(area, 0)) for area in ("ante", "tie_bet", "raise"))
    # The raise is the ante again, staked only by going to war.
    raise_needed = ante if war.decision == "war" else 0
    if raised != raise_needed:
        found.append(Difference("raise", raised, raise_needed, where=war.decision or ""))
    needed = WAR_PAYS_MULTIPLIED[war.result] if ante else []
    if war.tied and tie_bet:
        needed = [*needed, "tie_bet"]
    pays, bad_pays = _multipliers(table, DEFAULT_PAYS, needed)
    found += bad_pays
    if not bad_pays:
        found += _check_returns(stored.returns or {}, settle_war(war, ante, tie_bet, pays))
    return expected, war.result, found


def _bad_bets(bets: Mapping[str, Any], areas: Collection[str]) -> list[Difference]:
    """A bet on no area of the game, or a stake that is no whole number of units."""
    out = []
    for area, stake in bets.items():
        if area not in areas:
            out.append(Difference("area", where=area))
        elif not _is_units(stake):
            out.append(Difference("stake", stake, where=area))
    return out


def _multipliers(
    pays: Mapping[str, Any], areas: Collection[str], needed: Collection[str]
) -> tuple[dict[str, Decimal], list[Difference]]:
    """The paytable as the core's ``settle`` takes it, and a difference for
    each multiplier ``needed`` (a winning stake's) that is no finite number.

    A multiplier no stake is multiplied by cannot change a return (the two
    verifiers do not read it either): 0 stands in for it when it is unusable.
    """
    out: dict[str, Decimal] = {}
    bad = []
    for area in areas:
        multiplier = _multiplier(pays.get(area))
        if multiplier is None and area in needed:
            bad.append(Difference("pay", pays.get(area), where=area))
        out[area] = Decimal(0) if multiplier is None else multiplier
    return out, bad


def _multiplier(value: object) -> Decimal | None:
    """A stored multiplier as the exact Decimal ``games.money`` pays with, or
    None when it is none (missing, a bool, text that is no number, NaN, ∞,
    an exponent no paytable has)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        multiplier = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        return None
    if not multiplier.is_finite() or abs(multiplier.adjusted()) > MAX_PAY_EXPONENT:
        return None
    return multiplier


def _check_returns(stored: Mapping[str, Any], derived: Mapping[str, int]) -> list[Difference]:
    out = []
    areas = [*stored, *(a for a, v in derived.items() if v and a not in stored)]
    for area in areas:
        was, back = _stored_units(stored.get(area)), int(derived.get(area, 0))
        if was != back:
            out.append(Difference("return", stored.get(area) if was is None else was, back, area))
    return out


def _stored_units(value: object) -> int | None:
    """A stored return as whole units (missing or empty: 0; None: no whole number)."""
    if value in (None, False, 0, ""):
        return 0
    if isinstance(value, int | str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


# --- the command line -----------------------------------------------------------


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
