"""What the "Provably fair" page and a round's VERIFY show: the test vectors,
the data the browser's verifier (static/js/verify.js) reads, and the
standalone Python snippet, rendered from ``fair/verify_snippet.txt`` so the
page and the tests hold the very same text. Both verifiers replay the whole
round from the same facts (``replay_facts``); only a revealed round's page
(``RoundReport.revealed``) shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.fairness_vectors import FIRST_STEPS, UTF8_MESSAGE, VECTORS
from games.labels import AREA_LABELS, WAR_DECISION_LABELS, WAR_RESULT_LABELS, WINNER_LABELS
from games.models import Round
from games.selectors.round_report import OWNER_LABELS, RoundReport
from games.selectors.round_verification import stored_round

SNIPPET_TEMPLATE = "fair/verify_snippet.txt"


def snippet_text(
    *,
    server_seed: str | None,
    server_seed_hash: str | None,
    client_seed: str | None,
    nonce: int,
    decks: int,
    cards: Sequence[str],
    game: str | None = None,
    pays: Mapping[str, Any] | None = None,
    bets: Mapping[str, Any] | None = None,
    returns: Mapping[str, Any] | None = None,
    result: str | None = None,
    decision: str | None = None,
    player_total: int | None = None,
    banker_total: int | None = None,
    natural: bool | None = None,
    player_pair: bool | None = None,
    banker_pair: bool | None = None,
    void: bool = False,
    log_url: str | None = None,
    log_key: str | None = None,
    log_index: int | None = None,
) -> str:
    """A Python 3 program (standard library only) that replays the round from
    its seeds and compares everything with what is given: the commitment,
    every card, the result and facts of the deal and every bet's return. It
    prints what differs and exits 1, or prints VERIFIED and exits 0. Without
    ``game`` (a test vector of the fairness page) it compares ``cards`` with
    the shoe's first cards. With ``log_url`` it then checks the public log
    at that address: leaf ``log_index`` holds this commitment and nonce, its
    inclusion proof against a checkpoint signed with ``log_key`` (read from
    the log when None), and consistency with the checkpoint it kept last.

    The text is plain text, not HTML: every value a player typed (the client
    seed) is a Python literal in it, and a page must escape it like any text.
    """
    rendered = render_to_string(
        SNIPPET_TEMPLATE,
        {
            "game": game,
            "server_seed": server_seed,
            "server_seed_hash": server_seed_hash,
            "client_seed": client_seed,
            "nonce": int(nonce),
            "decks": int(decks),
            "cards": [str(c) for c in cards],
            "result": result,
            "decision": decision,
            "pays": dict(pays or {}),
            "bets": dict(bets or {}),
            "returns": dict(returns or {}),
            "facts": None
            if game != "baccarat"
            else {
                "player_total": player_total,
                "banker_total": banker_total,
                "natural": natural,
                "player_pair": player_pair,
                "banker_pair": banker_pair,
            },
            "void": bool(void),
            "log_url": log_url,
            "log_key": log_key,
            "log_index": log_index,
        },
    )
    # render_to_string marks its result safe HTML, which a program is not:
    # hand back a plain str, so every template that shows it escapes it.
    return str.__str__(rendered)


def replay_facts(rnd: Round) -> dict[str, Any]:
    """The stored round as both of the player's verifiers replay it (the
    browser's, static/js/verify.js, and the snippet): the same facts the
    server's own check reads (``stored_round``), in JSON's types, the
    paytable's multipliers as strings. The keys of
    tests/fairness/tampered_rounds.json's rounds."""
    stored = stored_round(rnd)
    return {
        "game": stored.game,
        "server_seed": stored.server_seed,
        "server_seed_hash": stored.server_seed_hash,
        "client_seed": stored.client_seed,
        "nonce": stored.nonce,
        "decks": stored.decks,
        "pays": {area: str(multiplier) for area, multiplier in stored.pays.items()},
        "bets": dict(stored.bets),
        "returns": dict(stored.returns),
        "cards": list(stored.cards),
        "result": stored.result,
        "void": stored.void,
        "decision": stored.decision,
        "player_total": stored.player_total,
        "banker_total": stored.banker_total,
        "natural": stored.natural,
        "player_pair": stored.player_pair,
        "banker_pair": stored.banker_pair,
    }


def round_snippet(
    rnd: Round, *, log_url: str | None, log_key: str | None, log_index: int | None
) -> str:
    return snippet_text(**replay_facts(rnd), log_url=log_url, log_key=log_key, log_index=log_index)


def verifier_labels() -> dict[str, Any]:
    """The words static/js/verify.js shows, in the reader's language; each
    difference is a template with %(name)s fields it fills."""
    return {
        "working": _("Shuffling a fresh shoe in your browser…"),
        "matches": _("Matches"),
        "mismatch": _("Does not match"),
        "hash": _("SHA-256 of the revealed server seed:"),
        "dealt": _("dealt"),
        "derived": _("derived"),
        "yes": _("yes"),
        "no": _("no"),
        "note": _(
            "Checked in your browser with WebCrypto (HMAC-SHA256, SHA-256): "
            "nothing was sent to the server."
        ),
        "seen_before": _("This browser was shown this commitment at %(time)s, before the round."),
        "seen_after": _(
            "This browser was first shown this commitment at %(time)s, after the round was "
            "dealt: it cannot tell whether the seed was fixed before your bet."
        ),
        "never_seen": _(
            "This browser was never shown this commitment at a table (another device or "
            "browser, or its storage was cleared): it cannot tell whether the seed was fixed "
            "before your bet."
        ),
        "differences": {
            "hash_missing": _("the commitment hash is missing"),
            "hash": _(
                "the commitment hash %(stored)s is not the SHA-256 of the revealed server seed "
                "(%(derived)s)"
            ),
            "seed_missing": _("the server seed is missing"),
            "seed_hex": _("the server seed is not hexadecimal"),
            "client_seed": _("the client seed is missing"),
            "nonce": _("the nonce %(stored)s is not a whole number"),
            "decks": _("the number of decks %(stored)s is not 1 to 8"),
            "game": _("%(stored)s is not a game this verifier knows"),
            "card": _("card %(n)s (%(owner)s): dealt %(stored)s, the seeds deal %(derived)s"),
            "card_missing": _("card %(n)s (%(owner)s): missing, the seeds deal %(derived)s"),
            "card_extra": _("card %(n)s: dealt %(stored)s, the game deals no such card"),
            "card_count": _("%(stored)s cards dealt, the game needs %(derived)s"),
            "fact": _("%(what)s: stored %(stored)s, the seeds' game gives %(derived)s"),
            "decision_missing": _(
                "tie decision: the first cards tie, and %(stored)s is neither war nor surrender"
            ),
            "decision_untied": _("tie decision: %(stored)s stored, but the first cards do not tie"),
            "raise": _("raise: %(stored)s staked, the tie decision %(decision)s needs %(derived)s"),
            "return": _(
                "return on %(area)s: %(stored)s stored, the seeds' game returns %(derived)s"
            ),
            "pay": _("the paytable has no usable multiplier for %(area)s (%(stored)s)"),
            "pay_unknown": _("the paytable names %(area)s, which is no pay of this game"),
            "stake": _("the stake on %(area)s is not a whole number of units (%(stored)s)"),
            "area": _("%(area)s is not a bet area of this game"),
        },
        "facts": {
            "winner": _("winner"),
            "result": _("result"),
            "player_total": _("Player total"),
            "banker_total": _("Banker total"),
            "natural": _("natural"),
            "player_pair": _("PLAYER PAIR"),
            "banker_pair": _("BANKER PAIR"),
        },
        "log": log_labels(),
        "owners": {owner: str(label) for owner, label in OWNER_LABELS.items()},
        "areas": {area: str(label) for area, label in AREA_LABELS.items()},
    }


def log_labels() -> dict[str, Any]:
    """What static/js/verify.js says of the public log (``verifyLog``): one
    sentence per finding, and each reason a proof was refused in words."""
    return {
        "heading": _("The public log"),
        "log_unreadable": _("The public log could not be read (%(why)s): try again later."),
        "log_pending": _(
            "This round's commitment is not yet in a signed checkpoint of the log (%(size)s "
            "commitments so far): check again in a few seconds."
        ),
        "log_checkpoint": _(
            "The log's newest checkpoint holds %(size)s commitments, signed with the log's key."
        ),
        "log_witnessed": _(
            "Witnesses who cosigned this checkpoint: %(count)s of %(total)s. They saw it "
            "extend the last one they checked. %(names)s"
        ),
        "log_unwitnessed": _(
            "No witness has cosigned this checkpoint yet: witnesses cosign a few seconds "
            "after the log signs."
        ),
        "log_leaf": _("Leaf %(index)s of the log holds this round's commitment and nonce."),
        "log_leaf_other": _(
            "Leaf %(index)s of the log holds another commitment (%(commitment)s, nonce "
            "%(nonce)s) than this round's: the site's pages and its log disagree."
        ),
        "log_included": _(
            "The leaf is in the log's tree of %(size)s commitments, signed with the log's key."
        ),
        "log_refused": _("The log's proof was refused: %(why)s."),
        "log_first": _(
            "This browser had kept no checkpoint of the log; it keeps this one (%(size)s "
            "commitments), and every later one must extend it."
        ),
        "log_consistent": _(
            "The log's tree of %(size)s commitments extends the one this browser kept "
            "(%(old)s): nothing in it was rewritten."
        ),
        "log_fork": _(
            "Warning: the log shown now (%(size)s commitments) does not extend the one this "
            "browser verified before (%(old)s). The site has shown two different histories. "
            "Keep this page and report it."
        ),
        "log_key_changed": _(
            "Warning: the log's key is not the one this browser kept its checkpoint under. "
            "Unless the site announced a new key on its fair page, it is showing another log."
        ),
        "reasons": {
            "network": _("no answer"),
            "base64": _("a value is not base64"),
            "hash_size": _("a hash is not 32 bytes"),
            "key": _("the log's key is malformed"),
            "note": _("the checkpoint is malformed"),
            "unsigned": _("the checkpoint has no signature of the log's key"),
            "signature": _("the log's signature does not verify"),
            "cosignature": _("a witness's cosignature does not verify"),
            "origin": _("the checkpoint is of another log"),
            "size": _("the proof is for another tree size"),
            "index": _("the leaf is not in the tree"),
            "leaf": _("the leaf is not in the log's format"),
            "inclusion": _("the inclusion proof does not lead to the signed root"),
            "inclusion_short": _("the inclusion proof is too short"),
            "inclusion_long": _("the inclusion proof is too long"),
            "consistency": _("the consistency proof does not lead to the newer root"),
            "consistency_short": _("the consistency proof is too short"),
            "consistency_long": _("the consistency proof is too long"),
            "fork": _("the older tree is not the start of the newer one"),
            "smaller": _("the newer tree is smaller than the kept one"),
        },
    }


def round_verify_data(report: RoundReport) -> dict[str, Any]:
    """What the browser's VERIFY needs to replay the round (``replay_facts``),
    when it was dealt (to say whether this browser saw its commitment before)
    and the words it shows. Only a revealed round's page includes it."""
    rnd = report.round
    return {
        **replay_facts(rnd),
        # A string: a nonce past 2**53 would lose digits as a JSON number in JavaScript.
        "nonce": str(rnd.nonce),
        "created_at": rnd.created_at.isoformat(),
        "labels": verifier_labels(),
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
    return {
        "vectors": vectors,
        "steps": FIRST_STEPS,
        "utf8": UTF8_MESSAGE,
        "log_labels": {"log": log_labels()},
    }
