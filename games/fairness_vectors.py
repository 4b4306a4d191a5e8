"""The three worked test vectors of the provably fair shuffle, in one place.

The "Provably fair" page (games/views/fair.py) prints them, and the tests
check them against the Python verifier (``python -m games.verify``), the
JavaScript one the round page runs (static/js/verify.js) and the standalone
snippet the round page offers (templates/fair/verify_snippet.py). They were
produced by::

    python -m games.verify --json --server-seed 0001...1f --client-seed "player seed" \\
        --nonce 3 --game baccarat --decks 8

and so on for the others; a change to the shuffle that moves one card fails
the tests. Pure data (no Django), like the core it describes.
"""

from __future__ import annotations

from typing import Any

VECTORS: tuple[dict[str, Any], ...] = (
    {
        "name": "Baccarat, 8 decks",
        "game": "baccarat",
        "decks": 8,
        "server_seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "client_seed": "player seed",
        "nonce": 3,
        "server_seed_hash": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        "first_cards": ["JH", "JS", "QD", "5S", "5C", "5S", "QH", "QH", "JH", "JD", "4D", "2D"],
        "dealt": ["JH", "JS", "QD", "5S", "5C", "5S"],
        "result": "player",
    },
    {
        "name": "Baccarat, 1 deck, a client seed outside ASCII",
        "game": "baccarat",
        "decks": 1,
        "server_seed": "b637e2903992f35fd93131fbf5e9da7bfbe2dba3c291efce5d8e8de9e5ec2493",
        "client_seed": "ラッキー7",
        "nonce": 41,
        "server_seed_hash": "4bc0989ad3aa99fdf7334de42f1877e3d521224eacf721613fb5a35d331be497",
        "first_cards": ["TC", "TH", "2H", "9H", "QH", "8H", "TD", "QS", "4D", "TS", "QD", "5C"],
        "dealt": ["TC", "TH", "2H", "9H"],
        "result": "banker",
    },
    {
        "name": "Casino War, 6 decks, a tie taken to war",
        "game": "war",
        "decks": 6,
        "server_seed": "420e9bf0e6d0f28ffd499ff10b4d11e4526796ca6c95c5b3adde8e7057912ab6",
        "client_seed": "a1b2c3d4e5f60718",
        "nonce": 0,
        "decision": "war",
        "server_seed_hash": "1719643945c1795054126a643273daf43211975a65098e0fb95b6d9f4b298e13",
        "first_cards": ["6C", "6S", "7S", "3S", "AS", "5S", "2C", "KD", "JS", "QD", "4H", "5D"],
        "dealt": ["6C", "6S", "7S", "3S", "AS", "5S", "2C"],
        "result": "war_win",
    },
)

# The first vector worked through its first block and first three draws.
FIRST_STEPS: dict[str, Any] = {
    "message": "player seed:3:0",
    "message_hex": "706c6179657220736565643a333a30",
    "block_hex": "157befcfdc1c59f316140b6c56c74e17cc1379aa280fe499aa7b6049b7704829",
    "words": [
        360443855,
        3692845555,
        370412396,
        1455902231,
        3423828394,
        672130201,
        2860212297,
        3077589033,
    ],
    # (i, n = i + 1, u, limit, j = u % n): no word is rejected here.
    "draws": [
        (415, 416, 360443855, 4294967040, 239),
        (414, 415, 3692845555, 4294966970, 10),
        (413, 414, 370412396, 4294967238, 386),
    ],
}

# The second vector's first HMAC message: the client seed goes in as UTF-8.
UTF8_MESSAGE = {"message": "ラッキー7:41:0", "message_hex": "e383a9e38383e382ade383bc373a34313a30"}
