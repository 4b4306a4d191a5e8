"""Standalone shuffle verifier: re-derive a round's shoe from its revealed seeds.

Pure core (no Django), so a player can run it without the site::

    python -m games.verify --server-seed HEX --client-seed TEXT --nonce N \\
        --game baccarat --decks 8
    python -m games.verify --server-seed HEX --client-seed TEXT --nonce N \\
        --game war --decks 6 --decision war

It prints the SHA-256 of the server seed (compare it with the hash shown
before the round), the first 12 cards of the shuffled shoe and the round's
result.  The shoe is ``shuffle(new_shoe(decks), FairRng(seed, client, nonce))``
(see ``games.cards`` for the exact algorithm).  The site's round page calls
``derive_shoe`` / ``replay_baccarat`` / ``replay_war`` to check a stored round.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from games.baccarat.rules import Coup, play_coup
from games.cards import Card, FairRng, new_shoe, server_seed_hash, shuffle
from games.war.rules import WarRound, first_cards_tied, play_war

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
    parser.add_argument("--decks", type=int, help="decks in the shoe (baccarat 8, war 6)")
    parser.add_argument("--decision", choices=("war", "surrender"), help="war: tie decision")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    decks = args.decks if args.decks is not None else (8 if args.game == "baccarat" else 6)
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
