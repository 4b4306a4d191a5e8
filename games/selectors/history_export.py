"""The history exports as CSV rows, streamed, one spreadsheet-safe line per
round: a player's rounds (filtered as on the list), and the operators' floor
export (every player's rounds for a date range, one table or all).

Both go through ``csv_rows``, so they have the same columns and the same
formula guard (``spreadsheet_text``), and a round reads the same in either.
Rows are read with ``QuerySet.iterator(chunk_size=...)``: memory stays flat
however many rounds the range holds. An open round's server seed, returns,
result and undealt cards stay out, as on its page.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import string
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from django.db.models import QuerySet
from django.utils import timezone

from games.display import UNITS_PER_CHIP
from games.models import Round, Table
from games.selectors.demo import real_rounds
from games.selectors.round_facts import is_open, result_code, shown_cards

CHUNK_SIZE = 2000  # rounds per database fetch
ROWS_PER_CHUNK = 250  # CSV lines per streamed chunk

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


# What makes a spreadsheet read a cell as a formula: = + - @, and ; (a
# spreadsheet whose list separator is ; splits a comma-separated line at
# every ; and reads what follows as a new cell). The full-width (＝＋－＠；)
# and small forms fold to these under NFKC and are guarded too, for any
# spreadsheet that folds them the same way.
FORMULA_STARTS = frozenset("=+-@;")
# Where a spreadsheet may start a new cell inside ours: at a ; (above) or a
# tab (a file opened as tab-separated text). Only the ones followed by
# something other than a letter or a digit need a look.
_CELL_BREAK = re.compile(r"[;\t](?![A-Za-z0-9])")
# A first character that can never start a formula: the common case, decided
# without asking unicodedata.
_PLAIN_STARTS = frozenset(string.ascii_letters + string.digits)


def _unseen(char: str) -> bool:
    """A space of any width (U+3000 too), a control (tab, CR, LF) or an
    invisible format character (U+202E, U+200B...)."""
    return unicodedata.category(char)[0] in "CZ"


def _formula_at(text: str, start: int) -> bool:
    """Whether ``text`` from ``start`` on, past any unseen characters, starts
    with a formula character: spreadsheets trim or skip those first."""
    for char in text[start:]:
        if not _unseen(char):
            return unicodedata.normalize("NFKC", char)[:1] in FORMULA_STARTS
    return False


def _guard_break(match: re.Match[str]) -> str:
    return match.group() + ("'" if _formula_at(match.string, match.end()) else "")


def spreadsheet_text(text: str) -> str:
    """Text a spreadsheet shows as written, never runs as a formula.

    A cell that starts with a formula character (``FORMULA_STARTS`` or a
    form of one), or with anything unseen at all, gets a single quote in
    front: "=1+1" becomes "'=1+1", " =1" becomes "' =1". Where a ; or a tab
    inside it could start a new cell, that cell is guarded the same way
    ("a;=1" becomes "a;'=1"). A reader of the file sees the quote.

    The site's own numbers (amounts, ids, nonces) do not come through here:
    a net of -100 stays the number -100, where a quote would turn it into
    text that a SUM skips. Every text column does, so a column added later
    is guarded without anyone remembering to.
    """
    inner = _CELL_BREAK.sub(_guard_break, text)
    first = text[:1]
    if not first or first in _PLAIN_STARTS:
        return inner
    return "'" + inner if _unseen(first) or _formula_at(text, 0) else inner


# Read as plain values, not model instances: a round's row needs none of the
# table's or version's JSON, and skipping four model instances per row is most
# of what keeps 100,000 rounds under ten seconds.
_FIELDS = (
    "pk",
    "created_at",
    "player__username",
    "game",
    "table__slug",
    "version__number",
    "status",
    "bets",
    "returns",
    "total_bet",
    "total_return",
    "outcome",
    "cards",
    "detail",
    "winner",
    "server_seed_hash",
    "server_seed",
    "client_seed",
    "nonce",
)


@dataclass(slots=True)
class _Facts:
    """The part of a round ``games.selectors.round_facts`` reads."""

    status: str
    game: str
    detail: dict[str, Any]
    winner: str
    cards: list[str]


def csv_rows(rounds: QuerySet[Round]) -> Iterator[list[str]]:
    """The export's rows (header first), streamed in id order, newest first.

    Amounts are in chips, written as plain numbers; every text cell goes
    through ``spreadsheet_text``. An open round's server seed and undealt
    cards stay out, as on its page.
    """
    guard = spreadsheet_text
    yield list(CSV_COLUMNS)
    qs = rounds.order_by("-id").values_list(*_FIELDS)
    for (
        pk,
        created_at,
        username,
        game,
        table_slug,
        version_number,
        status,
        bets,
        returns,
        total_bet,
        total_return,
        outcome,
        cards,
        detail,
        winner,
        seed_hash,
        server_seed,
        client_seed,
        nonce,
    ) in qs.iterator(chunk_size=CHUNK_SIZE):
        # round_facts takes a Round; it reads only these attributes.
        facts = cast(Round, _Facts(status, game, detail, winner, cards))
        revealed = not is_open(facts)
        yield [
            str(pk),
            guard(created_at.astimezone(dt.UTC).isoformat()),
            guard(username),
            guard(game),
            guard(table_slug),
            str(version_number),
            guard(status),
            guard(_areas(bets)),
            guard(_areas(returns)) if revealed else "",
            _plain_chips(total_bet),
            _plain_chips(total_return),
            _plain_chips(total_return - total_bet),
            guard(outcome),
            guard(result_code(facts)) if revealed else "",
            guard(" ".join(shown_cards(facts))),
            guard(seed_hash),
            guard(server_seed) if revealed else "",
            guard(client_seed),
            str(nonce),
        ]


class _Line:
    """csv.writer wants a file; this one keeps what it is given."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, value: str) -> None:
        self.parts.append(value)

    def take(self) -> str:
        text, self.parts = "".join(self.parts), []
        return text


def csv_chunks(rounds: QuerySet[Round], *, rows_per_chunk: int = ROWS_PER_CHUNK) -> Iterator[str]:
    """``csv_rows`` written as CSV text for a StreamingHttpResponse: the
    header alone first (the download starts before a round is read), then a
    few hundred lines per chunk, so the response machinery runs per chunk,
    not per line."""
    out = _Line()
    writer = csv.writer(out)
    rows = csv_rows(rounds)
    writer.writerow(next(rows))
    yield out.take()
    for n, row in enumerate(rows, start=1):
        writer.writerow(row)
        if n % rows_per_chunk == 0:
            yield out.take()
    rest = out.take()
    if rest:
        yield rest


@dataclass(frozen=True)
class FloorFilter:
    """The floor export's range: whole days in the site's time zone, both
    ends included; ``table`` None means every table."""

    date_from: dt.date
    date_to: dt.date
    table: Table | None = None


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def floor_rounds(filters: FloorFilter) -> QuerySet[Round]:
    """Every real player's rounds started in the range (on the table, if one
    is given); demo accounts' rounds are not the floor's."""
    rounds = real_rounds(Round.objects.filter(created_at__gte=_day_start(filters.date_from)))
    if filters.date_to < dt.date.max:
        end = _day_start(filters.date_to + dt.timedelta(days=1))
        rounds = rounds.filter(created_at__lt=end)
    if filters.table is not None:
        rounds = rounds.filter(table=filters.table)
    return rounds
