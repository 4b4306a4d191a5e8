"""Reads behind the history list: a player's rounds, filtered, a page at a time,
and the filter's totals.

Paging is by keyset (``id`` cursors on the ``(player, -id)`` indexes), never
``OFFSET``/``COUNT(*)``, so the first page costs the same for a player with a
hundred rounds as for one with a hundred thousand.  The filter summary is an
aggregate over the matching rows; the page loads it in its own request so it
never holds up the list.  One round's page is ``round_report``, its check
``round_verification`` and the export ``history_export``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import QuerySet

from games.models import Round, Table
from games.selectors.rollups import history_totals

PER_PAGE = 25


@dataclass(frozen=True)
class HistoryFilter:
    """What the player narrowed the list to; empty fields do not filter."""

    game: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    outcome: str = ""
    # The player's zone: the days are theirs, as their kept day rows'.
    zone: dt.tzinfo = dt.UTC

    def apply(self, rounds: QuerySet[Round]) -> QuerySet[Round]:
        if self.game:
            rounds = rounds.filter(game=self.game)
        # Dates are whole days in the player's time zone, both ends included.
        if self.date_from:
            rounds = rounds.filter(created_at__gte=_day_start(self.date_from, self.zone))
        if self.date_to:
            rounds = rounds.filter(
                created_at__lt=_day_start(self.date_to + dt.timedelta(days=1), self.zone)
            )
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


def _day_start(day: dt.date, zone: dt.tzinfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=zone)


def player_rounds(*, player_id: int, filters: HistoryFilter) -> QuerySet[Round]:
    return filters.apply(Round.objects.filter(player_id=player_id))


@dataclass
class HistoryPage:
    rounds: list[Round]
    newer: int | None  # pass as ?after= to see the newer page
    older: int | None  # pass as ?before= to see the older page


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
    """Rounds, total bet, total returned for the filter, from the player's
    kept day rows (``selectors.rollups``): one query, whatever the history.

    Void rounds count as rounds but not as money: every bet in them was
    refunded.  An open round counts what it has taken and returned so far."""
    totals = history_totals(
        player_id,
        game=filters.game,
        first=filters.date_from,
        end=filters.date_to + dt.timedelta(days=1) if filters.date_to else None,
        result=filters.outcome,
    )
    return HistorySummary(totals.rounds, totals.staked, totals.returned)
