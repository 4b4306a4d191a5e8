"""What the "Provably fair" page and a round's VERIFY show: the test vectors,
the data the browser's verifier (static/js/verify.js) reads, and the
standalone Python snippet, rendered from ``fair/verify_snippet.txt`` so the
page and the tests hold the very same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.fairness_vectors import FIRST_STEPS, UTF8_MESSAGE, VECTORS
from games.labels import WAR_DECISION_LABELS, WAR_RESULT_LABELS, WINNER_LABELS
from games.models import Round
from games.selectors.round_report import RoundReport

SNIPPET_TEMPLATE = "fair/verify_snippet.txt"


def snippet_text(
    *,
    server_seed: str,
    server_seed_hash: str,
    client_seed: str,
    nonce: int,
    decks: int,
    cards: Sequence[str],
) -> str:
    """A Python 3 program (standard library only) that re-derives the shoe
    and compares it with ``cards``; it prints each card and exits 0 when
    everything matches, 1 otherwise."""
    return render_to_string(
        SNIPPET_TEMPLATE,
        {
            "server_seed": server_seed,
            "server_seed_hash": server_seed_hash,
            "client_seed": client_seed,
            "nonce": int(nonce),
            "decks": int(decks),
            "cards": [str(c) for c in cards],
        },
    )


def round_snippet(rnd: Round) -> str:
    return snippet_text(
        server_seed=rnd.server_seed,
        server_seed_hash=rnd.server_seed_hash,
        client_seed=rnd.client_seed,
        nonce=rnd.nonce,
        decks=rnd.version.decks,
        cards=rnd.cards or [],
    )


def round_verify_data(report: RoundReport) -> dict[str, Any]:
    """What the browser's VERIFY needs: the revealed seeds, the dealt cards
    (with their owners, for the reader) and the words it shows."""
    rnd = report.round
    return {
        "server_seed": rnd.server_seed,
        "server_seed_hash": rnd.server_seed_hash,
        "client_seed": rnd.client_seed,
        "nonce": str(rnd.nonce),
        "decks": rnd.version.decks,
        "cards": [str(c) for c in (rnd.cards or [])],
        "owners": [str(c.owner_label) for c in report.cards],
        "labels": {
            "working": _("Shuffling a fresh shoe in your browser…"),
            "matches": _("Matches"),
            "mismatch": _("Does not match"),
            "hash": _("SHA-256 of the revealed server seed:"),
            "dealt": _("dealt"),
            "derived": _("derived"),
            "note": _(
                "Checked in your browser with WebCrypto (HMAC-SHA256, SHA-256): "
                "nothing was sent to the server."
            ),
        },
    }


# The vectors' names, marked for translation here (games/fairness_vectors.py
# is pure data); fair_context translates each when the page is drawn.
VECTOR_NAMES = (
    gettext_noop("Baccarat, 8 decks"),
    gettext_noop("Baccarat, 1 deck, a client seed outside ASCII"),
    gettext_noop("Casino War, 6 decks, a tie taken to war"),
)


RESULT_LABELS = {"baccarat": WINNER_LABELS, "war": WAR_RESULT_LABELS}


def fair_context() -> dict[str, Any]:
    vectors = []
    for i, vector in enumerate(VECTORS, start=1):
        snippet = snippet_text(
            server_seed=vector["server_seed"],
            server_seed_hash=vector["server_seed_hash"],
            client_seed=vector["client_seed"],
            nonce=vector["nonce"],
            decks=vector["decks"],
            cards=vector["first_cards"],
        )
        vectors.append(
            {
                "n": i,
                "script_id": f"vector-{i}",
                **vector,
                "name": _(vector["name"]),
                "result_label": str(RESULT_LABELS[vector["game"]][vector["result"]]),
                "decision_label": str(WAR_DECISION_LABELS.get(vector.get("decision") or "", "")),
                "snippet": snippet,
            }
        )
    return {"vectors": vectors, "steps": FIRST_STEPS, "utf8": UTF8_MESSAGE}
