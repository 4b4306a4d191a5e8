"""A stored round checked against its seeds, in words for the round's page.

The check itself is the pure ``games.verify.check_round``, the same code the
standalone verifier ships with: this module only hands it the stored round
and writes each difference it finds as a sentence in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from games.display import format_chips
from games.labels import AREA_LABELS, WAR_DECISION_LABELS
from games.models import Game, Round
from games.selectors.round_facts import result_code
from games.verify import Difference, StoredRound, check_round


@dataclass
class Verification:
    """The round re-derived from its seeds: ``differences`` empty means it matches."""

    differences: list[str]
    derived_cards: list[str]
    derived_hash: str
    derived_result: str

    @property
    def matches(self) -> bool:
        return not self.differences


def verify_round(rnd: Round) -> Verification:
    """Recompute the round from the revealed server seed, client seed and nonce.

    The shoe is ``shuffle(new_shoe(decks), FairRng(seed, client seed, nonce))``
    (``games.verify.derive_shoe``); the coup or war is played from it with the
    pure rules and compared with every stored card and result.  The caller
    must not call this for an open round (its seed is still secret).
    """
    check = check_round(stored_round(rnd))
    return Verification(
        [describe(d) for d in check.differences],
        check.derived_cards,
        check.derived_hash,
        check.derived_result,
    )


def stored_round(rnd: Round) -> StoredRound:
    """The round's stored facts, as ``check_round`` compares them."""
    detail = rnd.detail if isinstance(rnd.detail, dict) else {}
    baccarat = rnd.game == Game.BACCARAT
    return StoredRound(
        game=rnd.game,
        server_seed=rnd.server_seed,
        server_seed_hash=rnd.server_seed_hash,
        client_seed=rnd.client_seed,
        nonce=rnd.nonce,
        decks=rnd.version.decks,
        pays=rnd.version.pays or {},
        bets=rnd.bets or {},
        returns=rnd.returns or {},
        cards=[str(c) for c in (rnd.cards or [])],
        result=result_code(rnd),
        void=rnd.status == Round.Status.VOID,
        decision=None if baccarat else detail.get("decision") or None,
        player_total=detail.get("player_total") if baccarat else None,
        banker_total=detail.get("banker_total") if baccarat else None,
        natural=detail.get("natural") if baccarat else None,
        player_pair=rnd.player_pair if baccarat else None,
        banker_pair=rnd.banker_pair if baccarat else None,
    )


def _fact_names() -> dict[str, str]:
    return {
        "winner": _("winner"),
        "player_total": _("Player total"),
        "banker_total": _("Banker total"),
        "natural": _("natural"),
        "player_pair": _("PLAYER PAIR"),
        "banker_pair": _("BANKER PAIR"),
        "result": _("result"),
        "decision": _("tie decision"),
        "card_count": _("number of cards"),
    }


def describe(difference: Difference) -> str:
    """One difference as the round's page says it.

    The kinds the browser's verifier also names are said in its words (the
    same messages, ``games.presenters.fair.verifier_labels``)."""
    d = difference
    area = AREA_LABELS.get(str(d.where), d.where)
    if d.what == "server_seed":
        if not d.stored:
            return _("the server seed is missing")
        return _("the server seed is not hexadecimal")
    if d.what == "server_seed_hash":
        if not d.stored:
            return _("the commitment hash is missing")
        return _(
            "server seed hash: committed %(stored)s, but the revealed seed hashes to %(derived)s"
        ) % {"stored": d.stored, "derived": d.derived}
    if d.what == "client_seed":
        return _("the client seed is missing")
    if d.what == "game":
        return _("%(stored)s is not a game this verifier knows") % {"stored": _show(d.stored)}
    if d.what == "nonce":
        return _("the nonce %(stored)s is not a whole number") % {"stored": _show(d.stored)}
    if d.what == "decks":
        return _("the number of decks %(stored)s is not 1 to 8") % {"stored": _show(d.stored)}
    if d.what == "decision_untied":
        return _("tie decision: %(stored)s stored, but the first cards do not tie") % {
            "stored": _decision(d.stored)
        }
    if d.what == "raise":
        return _("raise: %(stored)s staked, the tie decision %(decision)s needs %(derived)s") % {
            "stored": format_chips(d.stored),
            "decision": _decision(d.where),
            "derived": format_chips(d.derived),
        }
    if d.what == "area":
        return _("%(area)s is not a bet area of this game") % {"area": area}
    if d.what == "stake":
        return _("the stake on %(area)s is not a whole number of units (%(stored)s)") % {
            "area": area,
            "stored": _show(d.stored),
        }
    if d.what == "pay_unknown":
        return _("the paytable names %(area)s, which is no pay of this game") % {"area": area}
    if d.what == "pay":
        return _("the paytable has no usable multiplier for %(area)s (%(stored)s)") % {
            "area": area,
            "stored": _show(d.stored),
        }
    if d.what == "return":
        # A stored return that is no whole number is shown as it was stored.
        stored = format_chips(d.stored) if isinstance(d.stored, int) else _show(d.stored)
        return _("return on %(area)s: stored %(stored)s, derived %(derived)s") % {
            "area": area,
            "stored": stored,
            "derived": format_chips(d.derived),
        }
    if d.what == "card":
        return _("card %(n)s: stored %(stored)s, derived %(derived)s") % {
            "n": d.where,
            "stored": d.stored,
            "derived": d.derived,
        }
    # A tie stored without a usable decision: any of the two would have done.
    derived = _("war or surrender") if d.what == "decision" else d.derived
    return _("%(what)s: stored %(stored)s, derived %(derived)s") % {
        "what": _fact_names().get(d.what, d.what),
        "stored": _show(d.stored),
        "derived": _show(derived),
    }


def _decision(value: object) -> str:
    """A tie decision as the table's buttons name it ("—": none)."""
    if not value:
        return "—"
    return str(WAR_DECISION_LABELS.get(str(value), value))


def _show(value: object) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)
