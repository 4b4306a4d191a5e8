"""Reads behind the history pages: a player's rounds, one round laid out for
its page and replay, and the round's shuffle re-derived from its seeds.

Paging is by keyset (``id`` cursors on the ``(player, -id)`` indexes), never
``OFFSET``/``COUNT(*)``, so the first page costs the same for a player with a
hundred rounds as for one with a hundred thousand.  The filter summary is an
aggregate over the matching rows; the page loads it in its own request so it
never holds up the list.
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.cards import Card, server_seed_hash
from games.labels import AREA_LABELS, WAR_RESULT_LABELS, WINNER_LABELS
from games.models import UNITS_PER_CHIP, Game, Round, Table
from games.verify import derive_shoe, seed_bytes

PER_PAGE = 25

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
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


# --- filters and the list ------------------------------------------------------


@dataclass(frozen=True)
class HistoryFilter:
    """What the player narrowed the list to; empty fields do not filter."""

    game: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    outcome: str = ""

    def apply(self, rounds: QuerySet[Round]) -> QuerySet[Round]:
        if self.game:
            rounds = rounds.filter(game=self.game)
        # Dates are whole days in the site's time zone, both ends included.
        if self.date_from:
            rounds = rounds.filter(created_at__gte=_day_start(self.date_from))
        if self.date_to:
            rounds = rounds.filter(created_at__lt=_day_start(self.date_to + dt.timedelta(days=1)))
        if self.outcome:
            # A void round was refunded: whatever its cards said, it neither
            # won nor lost.
            rounds = rounds.filter(outcome=self.outcome).exclude(status=Round.Status.VOID)
        return rounds

    def params(self) -> dict[str, str]:
        """The filter as query parameters (for cursors, the summary and the CSV)."""
        out = {}
        if self.game:
            out["game"] = self.game
        if self.date_from:
            out["date_from"] = self.date_from.isoformat()
        if self.date_to:
            out["date_to"] = self.date_to.isoformat()
        if self.outcome:
            out["result"] = self.outcome
        return out


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def player_rounds(*, player_id: int, filters: HistoryFilter) -> QuerySet[Round]:
    return filters.apply(Round.objects.filter(player_id=player_id))


@dataclass
class HistoryPage:
    rounds: list[Round]
    newer: int | None  # pass as ?after= to see the newer page
    older: int | None  # pass as ?before= to see the older page

    @property
    def is_first(self) -> bool:
        return self.newer is None


def history_page(
    *,
    player_id: int,
    filters: HistoryFilter,
    before: int | None = None,
    after: int | None = None,
    per_page: int = PER_PAGE,
) -> HistoryPage:
    """One page of the player's rounds, newest first, by keyset on ``id``.

    ``before`` shows the rounds older than that id, ``after`` the ones newer.
    One ``LIMIT per_page + 1`` query on the player's index, plus at most one
    ``EXISTS`` when a cursor is given: nothing here grows with the history.
    """
    rounds = player_rounds(player_id=player_id, filters=filters)
    if after is not None:
        rows = list(rounds.filter(id__gt=after).order_by("id")[: per_page + 1])
        if len(rows) <= per_page:
            # Reached the newest rounds: show the first page whole rather than
            # a short page (new rounds may have arrived meanwhile).
            return history_page(player_id=player_id, filters=filters, per_page=per_page)
        rows = rows[:per_page][::-1]
        older = rows[-1].id if rounds.filter(id__lt=rows[-1].id).exists() else None
        page = HistoryPage(rows, newer=rows[0].id, older=older)
    else:
        older_q = rounds if before is None else rounds.filter(id__lt=before)
        rows = list(older_q.order_by("-id")[: per_page + 1])
        has_older = len(rows) > per_page
        rows = rows[:per_page]
        newer = None
        if before is not None and rounds.filter(id__gte=before).exists():
            # ?after=X lists ids above X: the page just above this one.
            newer = rows[0].id if rows else before - 1
        page = HistoryPage(rows, newer=newer, older=rows[-1].id if has_older else None)
    _attach_tables(page.rounds)
    return page


def _attach_tables(rounds: Sequence[Round]) -> None:
    """Fill ``round.table`` from one small lookup instead of a join, so the
    database walks the round index alone (tables are few)."""
    ids = {r.table_id for r in rounds}
    tables = Table.objects.in_bulk(ids) if ids else {}
    for r in rounds:
        r.table = tables[r.table_id]


@dataclass(frozen=True)
class HistorySummary:
    rounds: int
    total_bet: int
    total_return: int

    @property
    def net(self) -> int:
        return self.total_return - self.total_bet


def history_summary(*, player_id: int, filters: HistoryFilter) -> HistorySummary:
    """Rounds, total bet, total returned for the filter: one aggregate query.

    Void rounds count as rounds but not as money: every bet in them was
    refunded.  An open round counts what it has taken and returned so far."""
    counted = ~Q(status=Round.Status.VOID)
    agg = player_rounds(player_id=player_id, filters=filters).aggregate(
        n=Count("id"),
        bet=Sum("total_bet", filter=counted),
        ret=Sum("total_return", filter=counted),
    )
    return HistorySummary(agg["n"] or 0, agg["bet"] or 0, agg["ret"] or 0)


def is_open(rnd: Round) -> bool:
    """An open round (a war waiting for the tie decision) keeps its seed and
    its undealt cards secret: revealing them would tell the player what war
    would bring."""
    return rnd.status == Round.Status.OPEN


def result_code(rnd: Round) -> str:
    """``player``/``banker``/``tie`` for baccarat, the war result for war."""
    if rnd.game == Game.WAR:
        return str((rnd.detail or {}).get("result") or rnd.winner or "")
    return rnd.winner or str((rnd.detail or {}).get("winner") or "")


def result_label(rnd: Round) -> str:
    if rnd.status == Round.Status.VOID:
        return str(Round.Status.VOID.label)
    if is_open(rnd):
        return str(Round.Status.OPEN.label)
    code = result_code(rnd)
    labels = WAR_RESULT_LABELS if rnd.game == Game.WAR else WINNER_LABELS
    return str(labels.get(code, code))


def shown_cards(rnd: Round) -> list[str]:
    """The cards a viewer may see: an open war round shows only the two dealt."""
    cards = [str(c) for c in (rnd.cards or [])]
    return cards[:2] if is_open(rnd) else cards


# --- one round, laid out -------------------------------------------------------


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
    rank = "10" if card.rank == "T" else card.rank
    return rank, SUIT_SYMBOLS[card.suit], card.suit in "HD"


def _baccarat_owners(cards: Sequence[str], detail: Mapping[str, Any]) -> list[str]:
    """P, B, P, B, then the Player's third card if the Player drew, then the Banker's."""
    player_n = len(detail.get("player") or [])
    if not player_n:
        from games.baccarat.rules import play_coup

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
    from games.baccarat.rules import points

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
    for card in dealt:
        hands.setdefault(card.owner, []).append(card)

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
            (str(AREA_LABELS.get(area, area)), f"x{multiplier}")
            for area, multiplier in (rnd.version.pays or {}).items()
        ],
        result=result_label(rnd),
        revealed=not open_round,
        flags=flags,
        hands=hands,
        **report_kwargs,
    )


def _tied(a: str, b: str) -> bool:
    from games.war.rules import rank_value

    ca, cb = _parse(a), _parse(b)
    return ca is not None and cb is not None and rank_value(ca) == rank_value(cb)


# --- verification --------------------------------------------------------------


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


def _differ(name: str, stored: object, derived: object) -> str:
    return _("%(what)s: stored %(stored)s, derived %(derived)s") % {
        "what": name,
        "stored": _show(stored),
        "derived": _show(derived),
    }


def _show(value: object) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)


def _decimal_pays(pays: Mapping[str, Any]) -> dict[str, Decimal]:
    out = {}
    for area, value in (pays or {}).items():
        try:
            out[area] = Decimal(str(value))
        except InvalidOperation:
            continue
    return out


def verify_round(rnd: Round) -> Verification:
    """Recompute the round from the revealed server seed, client seed and nonce.

    The shoe is ``shuffle(new_shoe(decks), FairRng(seed, client seed, nonce))``
    (``games.verify.derive_shoe``); the coup or war is played from it with the
    pure rules and compared with every stored card and result.  The caller
    must not call this for an open round (its seed is still secret).
    """
    differences: list[str] = []
    try:
        seed = seed_bytes(rnd.server_seed)
    except ValueError:
        return Verification([_("the server seed is not hexadecimal")], [], "", "")
    derived_hash = server_seed_hash(seed)
    if derived_hash != rnd.server_seed_hash:
        differences.append(
            _("server seed hash: committed %(stored)s, but the revealed seed hashes to %(derived)s")
            % {"stored": rnd.server_seed_hash or "—", "derived": derived_hash}
        )
    shoe = derive_shoe(rnd.server_seed, rnd.client_seed, rnd.nonce, rnd.version.decks)
    detail = rnd.detail if isinstance(rnd.detail, dict) else {}
    void = rnd.status == Round.Status.VOID
    stored_cards = [str(c) for c in (rnd.cards or [])]
    derived_result = ""

    if rnd.game == Game.BACCARAT:
        from games.baccarat.rules import play_coup, settle

        coup = play_coup(shoe)
        expected = [str(c) for c in coup.cards_in_deal_order]
        derived_result = coup.winner
        if not void:
            checks = [
                (_("winner"), result_code(rnd), coup.winner),
                (_("Player total"), detail.get("player_total"), coup.player_total),
                (_("Banker total"), detail.get("banker_total"), coup.banker_total),
                (_("natural"), detail.get("natural"), coup.natural),
                (_("PLAYER PAIR"), rnd.player_pair, coup.player_pair),
                (_("BANKER PAIR"), rnd.banker_pair, coup.banker_pair),
            ]
            for name, stored, derived in checks:
                if stored is not None and stored != derived:
                    differences.append(_differ(name, stored, derived))
            try:
                derived_returns = settle(coup, rnd.bets or {}, _decimal_pays(rnd.version.pays))
            except (ValueError, KeyError, TypeError):
                derived_returns = None
            differences += _compare_returns(rnd.returns or {}, derived_returns)
    else:
        from games.war.rules import play_war, settle_war

        decision = detail.get("decision") or None
        try:
            war = play_war(shoe, decision)
        except ValueError:
            war = None
            differences.append(_differ(_("tie decision"), decision, _("war or surrender")))
        expected = [str(c) for c in shoe[:2]]
        if war is not None:
            derived_result = war.result
            if war.decision == "war":
                expected = [str(c) for c in shoe[:7]]
            if not void:
                stored_result = result_code(rnd)
                if stored_result and stored_result != war.result:
                    differences.append(_differ(_("result"), stored_result, war.result))
                bets = rnd.bets or {}
                try:
                    derived_returns = settle_war(
                        war,
                        int(bets.get("ante", 0)),
                        int(bets.get("tie_bet", 0)),
                        _decimal_pays(rnd.version.pays),
                    )
                except (ValueError, KeyError, TypeError):
                    derived_returns = None
                differences += _compare_returns(rnd.returns or {}, derived_returns)

    # A void round may have stopped part-way: its cards are a prefix of the deal.
    if void:
        expected = expected[: len(stored_cards)]
    for i, (stored, derived) in enumerate(zip(stored_cards, expected, strict=False), start=1):
        if stored != derived:
            differences.append(
                _("card %(n)s: stored %(stored)s, derived %(derived)s")
                % {"n": i, "stored": stored, "derived": derived}
            )
    if len(stored_cards) != len(expected):
        differences.append(_differ(_("number of cards"), len(stored_cards), len(expected)))
    return Verification(differences, expected, derived_hash, derived_result)


def _compare_returns(stored: Mapping[str, Any], derived: Mapping[str, int] | None) -> list[str]:
    if derived is None:
        return [_("the bets could not be settled again with this paytable")]
    out = []
    areas = [a for a in stored] + [a for a, v in derived.items() if v and a not in stored]
    for area in areas:
        s, d = int(stored.get(area, 0) or 0), int(derived.get(area, 0))
        if s != d:
            out.append(
                _("return on %(area)s: stored %(stored)s, derived %(derived)s")
                % {
                    "area": AREA_LABELS.get(area, area),
                    "stored": _chips(s),
                    "derived": _chips(d),
                }
            )
    return out


def _chips(units: int) -> str:
    from games.display import format_chips

    return format_chips(units)


# --- CSV ------------------------------------------------------------------------

CSV_COLUMNS = (
    "id",
    "time",
    "player",
    "game",
    "table",
    "version",
    "status",
    "bets",
    "returns",
    "total_bet",
    "total_return",
    "net",
    "outcome",
    "result",
    "cards",
    "server_seed_hash",
    "server_seed",
    "client_seed",
    "nonce",
)


def _plain_chips(units: int) -> str:
    """Chips without thousands separators, for spreadsheets: 1234 or 1234.5."""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(int(units)), UNITS_PER_CHIP)
    text = str(whole) + (f".{frac:02d}".rstrip("0") if frac else "")
    return sign + text


def _areas(amounts: Mapping[str, Any]) -> str:
    return ";".join(f"{area}={_plain_chips(int(v))}" for area, v in (amounts or {}).items())


def _cell(text: str) -> str:
    """Keep a spreadsheet from reading player-chosen text as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_rows(rounds: QuerySet[Round]) -> Iterator[list[str]]:
    """The export's rows (header first), streamed in id order, newest first.

    Amounts are in chips; an open round's server seed and undealt cards stay
    out, as on its page.
    """
    yield list(CSV_COLUMNS)
    qs = rounds.select_related("player", "table", "version").order_by("-id")
    for rnd in qs.iterator(chunk_size=2000):
        revealed = not is_open(rnd)
        yield [
            str(rnd.pk),
            rnd.created_at.astimezone(dt.UTC).isoformat(),
            _cell(rnd.player.get_username()),
            rnd.game,
            rnd.table.slug,
            str(rnd.version.number),
            rnd.status,
            _areas(rnd.bets),
            _areas(rnd.returns) if revealed else "",
            _plain_chips(rnd.total_bet),
            _plain_chips(rnd.total_return),
            _plain_chips(rnd.net),
            rnd.outcome,
            result_code(rnd) if revealed else "",
            " ".join(shown_cards(rnd)),
            rnd.server_seed_hash,
            rnd.server_seed if revealed else "",
            _cell(rnd.client_seed),
            str(rnd.nonce),
        ]
