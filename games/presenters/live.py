"""A live table on screen: its state rendered once per event, table and
language, and sent to every socket at the table through one channel-layer
group (``services.live.live_group``); each player's own figures (their
stake, what it returned, their balance) go as a small message of their own
(``services.live.seat_group``).

``tick`` is the dealer: one pass over the live tables, moving each on
(``services.live.advance``) and sending its state whenever a step was taken
and while bets are open whenever the share of stakes moved (the countdown
runs in the browser, on the server's clock the state carries). It runs
on a thread in each serving process that has CASINO_LIVE_DEALER set
(``make run``), or as ``manage.py live_dealer`` (the cluster); several at
once deal each coup once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import socket
import threading
import time
import uuid
from typing import Any

import structlog
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import close_old_connections
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.baccarat.rules import AREAS
from games.display import format_chips
from games.errors import GameError
from games.labels import AREA_LABELS
from games.models import Coup, Profile, Round, Shoe, ShoeSeed, Table, TableVersion
from games.presenters import live_squeeze as squeeze
from games.presenters.baccarat.answers import rebet_for
from games.presenters.baccarat.contexts import terms_context
from games.presenters.baccarat.roads import RoadsView
from games.presenters.common import card_view, chip_views
from games.selectors.live import LiveView, Seat, live_view, seat
from games.selectors.roads import CARD_SECONDS, result_shown_at
from games.services import bets, live
from games.services.push import send_now
from games.services.rounds import Placed

TEMPLATE = "baccarat/live.html"
FAILED = gettext_lazy("The bet could not be placed. Nothing was taken.")

log = structlog.stdlib.get_logger(__name__)


def _hand(codes: list[str], *, fresh: bool, first: float) -> list[dict[str, Any]]:
    """A hand's cards; just dealt, each slides in at its turn (Player, Banker, ...)."""
    if not fresh:
        return [card_view(code) for code in codes]
    return [
        card_view(code, deal_delay=f"{first + i * 2 * CARD_SECONDS:.2f}")
        for i, code in enumerate(codes)
    ]


def announced(view: LiveView) -> bool:
    """Whether the last coup's result is out: not while its cards are still
    sliding in. Until then no screen shows its totals, its winner or its
    winners (nor its mark on the roads: ``live_view`` leaves it out),
    however it came to the table (the deal's state, a page loaded or a
    socket joined meanwhile)."""
    landed = result_shown_at(view.last) if view.last is not None else None
    return landed is None or view.now >= landed


def state_context(view: LiveView, *, fresh: bool = False) -> dict[str, Any]:
    """What templates/baccarat/live.html#state draws. ``fresh``: the coup
    was just dealt, so its cards slide in one after the other; its result
    follows in the dealer's next state once they are in place (``announced``)."""
    last = view.last
    board: dict[str, Any] = {}
    out = announced(view)
    if last is not None:
        detail = last.detail
        board = {
            "player": _hand(list(detail.get("player", [])), fresh=fresh, first=0.0),
            "banker": _hand(list(detail.get("banker", [])), fresh=fresh, first=CARD_SECONDS),
            "player_total": detail.get("player_total") if out else "",
            "banker_total": detail.get("banker_total") if out else "",
            "winner": last.winner if out else "",
            "number": last.number,
            # The server's deal time (ms since the epoch): bench/live.py
            # times each socket's copy of the cards from it.
            "dealt_at_ms": int(last.dealt_at.timestamp() * 1000) if last.dealt_at else 0,
        }
    coup = view.coup
    return {
        "table": view.table,
        "live": view,
        "coup": coup,
        "closes_at_ms": int(coup.closes_at.timestamp() * 1000) if coup is not None else 0,
        "now_ms": int(view.now.timestamp() * 1000),
        "board": board,
        "shares": [(area, AREA_LABELS[area], view.shares.get(area, 0)) for area in AREAS],
        "winners": [(name, format_chips(net)) for name, net in view.winners] if out else [],
        "roads": RoadsView(view.roads),
        "fresh": fresh,
        "void": coup is not None and coup.status == Coup.Status.VOID,
        **squeeze.state_context(view),
    }


def state_html(view: LiveView, *, fresh: bool = False) -> str:
    return render_to_string(f"{TEMPLATE}#state", state_context(view, fresh=fresh))


def broadcast(view: LiveView, *, fresh: bool = False) -> None:
    """The table's state, rendered once per language, to every socket at it."""
    html = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            html[code] = state_html(view, fresh=fresh)
    event = {"type": "live.state", "html": html, "peel": squeeze.peel_turn(view.coup)}
    send_now(live.live_group(view.table), event)


def stake_lines(stake: dict[str, int]) -> list[tuple[str, str]]:
    """The player's bet on the coup taking bets, area by area."""
    return [(str(AREA_LABELS[a]), format_chips(stake[a])) for a in AREAS if stake.get(a)]


def seat_context(mine: Seat) -> dict[str, Any]:
    """The player's own part of the table: their bet on the coup taking bets
    and their last settled one."""
    return {"my_stake": stake_lines(mine.stake), "my_last": live.last_coup(mine.last)}


def page_context(
    *, user: User, table: Table, version: TableVersion, profile: Profile, balance: int
) -> dict[str, Any]:
    """The whole live table screen: the table's state and the player's seat and slip."""
    view = live_view(table)
    limits = bets.baccarat_limits(user=user, version=version, profile=profile, chips=table.chips)
    mine = seat(user=user, table=table, coup=view.coup)
    finished = (
        Shoe.objects.filter(table=table, ended_at__isnull=False)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return {
        **state_context(view),
        **terms_context(version, limits, balance),
        **seat_context(mine),
        **squeeze.seat_context(user),
        "version": version,
        "balance": balance,
        "chips": chip_views(table.chips),
        "rebet": rebet_for(limits, balance, mine.last.bets if mine.last else None),
        "last_shoe": finished,
    }


def placed_answer(*, placed: Placed) -> str:
    """BET's answer: the slip is spent; the note, the stake and the balance,
    all from the round in hand (a player has one round a coup; placing it
    settled nothing, so their last settled coup stands as shown)."""
    rnd = placed.round
    context = {
        "table": rnd.table,
        "balance": placed.balance,
        "placed_coup": rnd.detail.get("coup"),
        # Read only for a new shoe's first coup, where the bet committed a seed.
        "committed_shoe": rnd.coup.shoe.number if rnd.detail.get("seed") and rnd.coup else None,
        "my_stake": stake_lines(rnd.bets if rnd.status == Round.Status.OPEN else {}),
    }
    return render_to_string(f"{TEMPLATE}#placed", context)


def refused_answer(exc: GameError | str) -> str:
    """A refused BET: the reason under the slip; nothing was taken."""
    return render_to_string(
        f"{TEMPLATE}#refused", {"refusal": exc.message if isinstance(exc, GameError) else exc}
    )


def revealed_answer(mine: ShoeSeed) -> str:
    """A seed revealed: a line under the slip says it counts."""
    notice = _("Your seed is revealed: it goes into the shuffle of shoe %(shoe)s.") % {
        "shoe": mine.shoe.number
    }
    return render_to_string(f"{TEMPLATE}#refused", {"notice": notice})


def staked_answer(*, balance: int, stake: dict[str, int]) -> str:
    """The player's stake and balance, for their other tabs at the table
    when they bet in one (services.live.LiveDealer.pushes)."""
    return render_to_string(
        f"{TEMPLATE}#staked", {"balance": balance, "my_stake": stake_lines(stake)}
    )


def settled_answer(*, balance: int, last: dict[str, Any] | None) -> str:
    """The player's seat and balance once the deal settled (or refunded)
    their bet, from the dealer's message alone (services.live._tell_player):
    no bet is open on the table then."""
    return render_to_string(f"{TEMPLATE}#settled", {"balance": balance, "my_last": last})


# The stakes' shares and the players move with every bet: they go out at
# most every SHARES_SECONDS. Sent every second, they were most of the states
# a table sends and of its socket workers' CPU (bench/live.py, 1,000 players).
SHARES_SECONDS = 2


@dataclasses.dataclass(frozen=True)
class Shown:
    """What a table's last state showed, and when it went out."""

    step: tuple[Any, ...]  # coup, status, seeds revealed, result out: sent at once when they change
    stakes: tuple[Any, ...]  # the shares and the players
    at: dt.datetime


# The countdown runs in the browser, so a second with nothing new sends nothing.
_shown: dict[int, Shown] = {}


def _recent(elapsed: dt.timedelta) -> bool:
    """Within SHARES_SECONDS of the last state (a clock set back is not)."""
    return dt.timedelta(0) <= elapsed < dt.timedelta(seconds=SHARES_SECONDS)


def tick(*, now: dt.datetime | None = None) -> dt.datetime | None:
    """One pass of the dealer over every open live table: its state goes
    out after each step, and while bets are open when the stakes moved
    (every ``SHARES_SECONDS`` at most). A deal sends its cards first; once
    they are in place on the screens the result goes out (``announced``)
    and the coup's bets are settled, each player hearing their own figures
    as theirs is: no balance, road or winner gives the result away while
    the cards are still coming. Returns when a result is next due, for the
    dealer to pass again then rather than at its next whole second."""
    moment = now or timezone.now()
    due: dt.datetime | None = None
    for table in live.tables_to_deal():
        step = live.advance(table, now=now)
        view = live_view(table, now=now)
        coup = view.coup
        out = announced(view)
        shown = Shown(
            step=(coup.pk if coup else None, coup.status if coup else "", view.revealed, out),
            stakes=(view.staked, view.players),
            at=moment,
        )
        last = _shown.get(table.pk)
        if (
            step.did
            or last is None
            or last.step != shown.step
            or (last.stakes != shown.stakes and not _recent(moment - last.at))
        ):
            _shown[table.pk] = shown
            broadcast(view, fresh=step.did == "dealt")
        if out and coup is not None and coup.status == Coup.Status.DEALT:
            # The result is out: now the bets (none left after the first pass).
            live.settle_coup(coup, now=now)
        elif not out and view.last is not None:
            shown_at = result_shown_at(view.last)
            if shown_at is not None and (due is None or shown_at < due):
                due = shown_at
    return due


class DealerLease:
    """Which dealer deals: the one holding a key in the cache the serving
    processes share (Redis in the cluster, the process's own memory with
    ``make run``). The holder renews it on every pass; a dealer that stops
    (killed, hung) lets it lapse within ``SECONDS``, well inside a betting
    window, and a standby takes it. Two dealers at once could only ever
    repeat a broadcast: every step is decided under the table's row lock
    (``services.live.advance``), so a coup is dealt once whatever happens."""

    KEY = "live-dealer-lease"
    SECONDS = 5

    def __init__(self) -> None:
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def held(self) -> bool:
        """Take the lease if it is free, renew it if it is ours."""
        if cache.add(self.KEY, self.me, self.SECONDS):
            return True
        if cache.get(self.KEY) != self.me:
            return False
        cache.set(self.KEY, self.me, self.SECONDS)
        return True


def deal_forever(stop: threading.Event | None = None) -> None:
    """``tick`` on every second, and when a result is due, until ``stop``
    is set, while this dealer holds the lease (a standby otherwise)."""
    stop = stop or threading.Event()
    lease = DealerLease()
    while not stop.is_set():
        due = None
        try:
            if lease.held():
                due = tick()
        except Exception:  # a pass that failed is tried again on the next; the reason is logged
            log.exception("live_dealer_failed")
        finally:
            close_old_connections()
        wait = 1.0 - time.time() % 1.0
        if due is not None:  # a result shows the moment the last card is down
            wait = min(wait, max(0.0, (due - timezone.now()).total_seconds()))
        stop.wait(wait)


_started = threading.Lock()
_thread: threading.Thread | None = None


def start_in_process() -> None:
    """The dealer on a thread of this serving process (CASINO_LIVE_DEALER)."""
    global _thread
    if not settings.CASINO_LIVE_DEALER or _thread is not None:
        return
    with _started:
        if _thread is None:
            _thread = threading.Thread(target=deal_forever, name="live-dealer", daemon=True)
            _thread.start()
