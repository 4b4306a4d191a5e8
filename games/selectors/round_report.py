"""One round laid out for its page and its replay: every card in deal order
with its owner and the running totals, the bets with what each gave back, the
paytable it was played under and the verifier's command line.

Everything comes from the stored round alone (its cards, bets, returns and
version); an open war round shows only what its player has seen.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.baccarat.rules import play_coup, points
from games.cards import Card
from games.display import is_red, rank_label, suit_symbol
from games.labels import AREA_LABELS
from games.models import Game, Round
from games.selectors.round_facts import is_open, result_code, result_label, shown_cards
from games.war.rules import rank_value

OWNER_LABELS = {
    "player": gettext_lazy("Player"),
    "banker": gettext_lazy("Banker"),
    "dealer": gettext_lazy("Dealer"),
    "burn": gettext_lazy("Burn"),
    "war_player": gettext_lazy("Player (war)"),
    "war_dealer": gettext_lazy("Dealer (war)"),
}
# Where a war round's cards come from, by deal position (SPEC 8: player,
# dealer, then on war three burns, player, dealer).
WAR_OWNERS = ("player", "dealer", "burn", "burn", "burn", "war_player", "war_dealer")


@dataclass(frozen=True)
class DealtCard:
    position: int  # 1-based, in deal order
    code: str  # "TH"
    rank: str  # "10"
    suit: str  # "♥"
    red: bool
    owner: str  # player | banker | dealer | burn | war_player | war_dealer
    owner_label: str
    player_total: int | None = None  # baccarat: each side's total once this card is open
    banker_total: int | None = None


@dataclass(frozen=True)
class BetLine:
    area: str
    label: str
    stake: int
    returned: int | None  # None while the round is open

    @property
    def net(self) -> int | None:
        return None if self.returned is None else self.returned - self.stake


@dataclass
class RoundReport:
    round: Round
    cards: list[DealtCard]
    bets: list[BetLine]
    pays: list[tuple[str, str]]  # (area label, "x1.95")
    result: str
    revealed: bool  # the server seed may be shown
    flags: list[str] = field(default_factory=list)  # natural, pairs, tie...
    player_total: int | None = None
    banker_total: int | None = None
    decision: str = ""
    hands: dict[str, list[DealtCard]] = field(default_factory=dict)

    @property
    def total_returned(self) -> int | None:
        """What the round gave back: its bets when void (refunded), nothing
        final while it is open."""
        rnd = self.round
        if rnd.status == Round.Status.VOID:
            return rnd.total_bet
        return None if is_open(rnd) else rnd.total_return

    @property
    def net(self) -> int | None:
        back = self.total_returned
        return None if back is None else back - self.round.total_bet

    @property
    def replay(self) -> dict[str, Any]:
        """What static/js/replay.js needs to deal the cards again."""
        return {
            "game": self.round.game,
            "delay_ms": round(settings.CASINO_REVEAL_DELAY * 1000),
            "fast_delay_ms": round(settings.CASINO_REVEAL_FAST_DELAY * 1000),
            "result": self.result,
            "cards": [
                {
                    "code": c.code,
                    "rank": c.rank,
                    "suit": c.suit,
                    "red": c.red,
                    "owner": c.owner,
                    "label": c.owner_label,
                    "player_total": c.player_total,
                    "banker_total": c.banker_total,
                }
                for c in self.cards
            ],
        }

    @property
    def verify_command(self) -> str:
        """The standalone verifier's command line for this round."""
        rnd = self.round
        parts = [
            "python -m games.verify",
            f"--server-seed {rnd.server_seed}",
            f"--client-seed {shlex.quote(rnd.client_seed)}",
            f"--nonce {rnd.nonce}",
            f"--game {rnd.game}",
            f"--decks {rnd.version.decks}",
        ]
        if self.decision:
            parts.append(f"--decision {self.decision}")
        return " ".join(parts)


def _parse(code: str) -> Card | None:
    try:
        return Card.parse(code)
    except (ValueError, AttributeError):
        return None


def _face(code: str) -> tuple[str, str, bool]:
    card = _parse(code)
    if card is None:
        return code, "", False
    return rank_label(card.rank), suit_symbol(card.suit), is_red(card.suit)


def _baccarat_owners(cards: Sequence[str], detail: Mapping[str, Any]) -> list[str]:
    """P, B, P, B, then the Player's third card if the Player drew, then the Banker's."""
    player_n = len(detail.get("player") or [])
    if not player_n:
        parsed = [_parse(c) for c in cards]
        try:
            player_n = len(play_coup([c for c in parsed if c is not None]).player)
        except ValueError:
            player_n = 2
    owners = ["player", "banker", "player", "banker"]
    owners += ["player"] * max(player_n - 2, 0)
    return (owners + ["banker"] * len(cards))[: len(cards)]


def round_report(rnd: Round) -> RoundReport:
    """Everything the round page shows, from the stored round alone."""
    detail = rnd.detail if isinstance(rnd.detail, dict) else {}
    codes = shown_cards(rnd)
    open_round = is_open(rnd)
    dealt: list[DealtCard] = []
    flags: list[str] = []
    report_kwargs: dict[str, Any] = {}
    if rnd.game == Game.BACCARAT:
        owners = _baccarat_owners(codes, detail)
        totals = {"player": 0, "banker": 0}
        for i, (code, owner) in enumerate(zip(codes, owners, strict=True), start=1):
            card = _parse(code)
            if card is not None:
                totals[owner] = (totals[owner] + points(card)) % 10
            rank, suit, red = _face(code)
            dealt.append(
                DealtCard(
                    i,
                    code,
                    rank,
                    suit,
                    red,
                    owner,
                    str(OWNER_LABELS[owner]),
                    totals["player"],
                    totals["banker"],
                )
            )
        report_kwargs["player_total"] = detail.get("player_total", totals["player"])
        report_kwargs["banker_total"] = detail.get("banker_total", totals["banker"])
        if rnd.status != Round.Status.VOID and codes:
            if detail.get("natural"):
                flags.append(_("Natural"))
            if rnd.player_pair:
                flags.append(str(AREA_LABELS["player_pair"]))
            if rnd.banker_pair:
                flags.append(str(AREA_LABELS["banker_pair"]))
            if result_code(rnd) == "tie":
                flags.append(str(AREA_LABELS["tie"]))
    else:
        for i, code in enumerate(codes, start=1):
            owner = WAR_OWNERS[i - 1] if i <= len(WAR_OWNERS) else "burn"
            rank, suit, red = _face(code)
            dealt.append(DealtCard(i, code, rank, suit, red, owner, str(OWNER_LABELS[owner])))
        decision = str(detail.get("decision") or "")
        report_kwargs["decision"] = "" if open_round else decision
        if len(codes) >= 2 and _tied(codes[0], codes[1]):
            flags.append(_("Tie on the first cards"))
        if decision == "war" and not open_round:
            flags.append(_("Went to war"))
        elif decision == "surrender" and not open_round:
            flags.append(_("Surrendered"))

    hands: dict[str, list[DealtCard]] = {}
    for dealt_card in dealt:
        hands.setdefault(dealt_card.owner, []).append(dealt_card)

    returns = rnd.returns or {}
    void = rnd.status == Round.Status.VOID

    def returned(area: str, stake: int) -> int | None:
        if void:
            return stake  # refunded
        if open_round:
            # Only what is settled already (a war's tie bet, paid at the deal).
            return int(returns[area]) if area in returns else None
        return int(returns.get(area, 0))

    bets = [
        BetLine(area, str(AREA_LABELS.get(area, area)), int(stake), returned(area, int(stake)))
        for area, stake in (rnd.bets or {}).items()
    ]
    # A war's raise is bet at the decision; it may only appear in returns.
    for area, back in returns.items():
        if area not in (rnd.bets or {}) and not open_round and not void and back:
            bets.append(BetLine(area, str(AREA_LABELS.get(area, area)), 0, int(back)))

    return RoundReport(
        round=rnd,
        cards=dealt,
        bets=bets,
        pays=[
            (str(AREA_LABELS.get(area, area)), f"×{multiplier}")
            for area, multiplier in (rnd.version.pays or {}).items()
        ],
        result=result_label(rnd),
        # A live table's bet holds no seed: its shoe is published whole when it ends.
        revealed=not open_round and rnd.coup_id is None,
        flags=flags,
        hands=hands,
        **report_kwargs,
    )


def _tied(a: str, b: str) -> bool:
    ca, cb = _parse(a), _parse(b)
    return ca is not None and cb is not None and rank_value(ca) == rank_value(cb)


def visible_round(*, viewer: User, pk: int) -> Round | None:
    """One round as ``viewer`` may see it: their own, or anyone's for staff."""
    rounds = Round.objects.select_related("table", "version", "player")
    if not viewer.is_staff:
        rounds = rounds.filter(player=viewer)
    return rounds.filter(pk=pk).first()
