"""The history exports as CSV rows, streamed, one spreadsheet-safe line per
round: a player's rounds (filtered as on the list), and the operators' floor
export (every player's rounds for a date range, one table or all).

Both go through ``csv_rows``, so they have the same columns and the same
formula guard, and a round reads the same in either. Rows are read with
``QuerySet.iterator(chunk_size=...)``: memory stays flat however many rounds
the range holds. An open round's server seed, returns, result and undealt
cards stay out, as on its page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from games.display import UNITS_PER_CHIP
from games.models import Round, Table
from games.selectors.round_facts import is_open, result_code, shown_cards

CHUNK_SIZE = 2000

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
    for rnd in qs.iterator(chunk_size=CHUNK_SIZE):
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
    """Every player's rounds started in the range (on the table, if one is given)."""
    rounds = Round.objects.filter(created_at__gte=_day_start(filters.date_from))
    if filters.date_to < dt.date.max:
        end = _day_start(filters.date_to + dt.timedelta(days=1))
        rounds = rounds.filter(created_at__lt=end)
    if filters.table is not None:
        rounds = rounds.filter(table=filters.table)
    return rounds
