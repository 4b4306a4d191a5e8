"""What "Game history", the one history panel of both tables
(templates/games/table_history.html), shows of each round: its number at the
table, result, net and time, and the link to its round page.

It shows the last ``selectors.table_history.HISTORY_SHOWN`` (20) rounds at
either table: a shoe's worth of play at a glance, as many as fit a phone's
dialog with one scroll, where 10 hid a War session's previous shoe; older
rounds are one link away in the full history.

Results are worded as on every history screen (``round_facts.result_label``);
a void round was refunded, so its net is 0, and a round still open has none.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from django.urls import reverse

from games.models import Round
from games.selectors.round_facts import result_code, result_label


@dataclass(frozen=True)
class HistoryRow:
    id: int
    seq: int
    result: str  # "BANKER WINS", "Void (refunded)", ...
    winner: str  # player / banker / tie, or War's result (the mark's colour); "" when void or open
    player_pair: bool
    banker_pair: bool
    status: str
    net: int | None  # units; None while the round is open
    played_at: dt.datetime
    url: str


def history_rows(rounds: Sequence[Round]) -> list[HistoryRow]:
    rows = []
    for rnd in rounds:
        settled = rnd.status == Round.Status.SETTLED
        if settled:
            net: int | None = rnd.total_return - rnd.total_bet
        else:
            net = 0 if rnd.status == Round.Status.VOID else None
        rows.append(
            HistoryRow(
                id=rnd.pk,
                seq=rnd.seq,
                result=result_label(rnd),
                winner=result_code(rnd) if settled else "",
                player_pair=rnd.player_pair,
                banker_pair=rnd.banker_pair,
                status=rnd.status,
                net=net,
                played_at=rnd.created_at,
                url=reverse("history_round", args=[rnd.pk]),
            )
        )
    return rows
