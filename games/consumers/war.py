"""The Casino War table's socket: DEAL and the tie decision, and the
decision's time limit.

With JavaScript on, DEAL and WAR / SURRENDER are messages on this socket
(``{"action": "deal", "slip_key", "ante", "tie_bet"}``,
``{"action": "decide", "round_id", "decision"}``). The consumer runs the
same services as the HTTP endpoints (``war.play``, ``war.decide``) and
answers with the same fragment (``war/table.html#update``, each part
swapped by id), or the message region with the refusal. A decision too late
closes the socket with ``TIMEOUT_CLOSE_CODE``, as below.

The deadline lives on the round in the database (the server is the authority
on it). While a player's round at this table waits for a decision, the
consumer sleeps until the deadline, checks the database again and, if the
round is still waiting and the deadline has passed, closes the socket with
code ``TIMEOUT_CLOSE_CODE``: the page then takes the player to the table's
timed-out address, which lands them in the lobby with a message. The round
stays saved; coming back to the table restarts the countdown
(``games.services.war.resume``).

The services send ``war.update`` to the player's group whenever a waiting
round opens, restarts its countdown or is settled, and the consumer re-reads
the deadline. It holds no game logic.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, cast

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import User
from django.http import Http404
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.amounts import bet_amount, table_version
from games.consumers.language import scope_language
from games.consumers.limits import MessageBudget, over_budget, read_message, text_field
from games.consumers.session import SessionBoundSocket
from games.consumers.threads import in_thread
from games.errors import GameError
from games.models import Table
from games.presenters import war as presenter
from games.presenters.refusals import play_safe_refusal
from games.selectors import war as war_selectors
from games.selectors.players import profile_for
from games.selectors.tables import war_table
from games.services import bets
from games.services import war as war_service

logger = logging.getLogger(__name__)


TIMEOUT_CLOSE_CODE = 4000
# The DEAL came from a page showing an older paytable or limits: the page
# draws itself again with the ones in force (?terms=changed says why).
TERMS_CHANGED_CLOSE_CODE = 4002
UNAUTHENTICATED_CLOSE_CODE = 4001


@in_thread
def _deadline(user_id: int, slug: str) -> dt.datetime | None:
    return war_selectors.decision_deadline(user_id=user_id, table_slug=slug)


@in_thread
def _war_table(slug: str) -> Table | None:
    try:
        return war_table(slug)
    except Http404:
        return None


@dataclass(frozen=True)
class Answer:
    html: str = ""
    timed_out: bool = False  # the decision came after its deadline
    terms_changed: bool = False  # the page showed an older paytable or limits
    session_over: bool = False


def _round_id(raw: Any) -> int | None:
    text = str(raw) if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    return int(text) if text.isascii() and text.isdigit() and len(text) < 19 else None


class WarConsumer(SessionBoundSocket, AsyncWebsocketConsumer):
    """One browser tab at one War table, for the logged-in player only."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED_CLOSE_CODE)
            return
        self.user_id: int = user.pk
        self.user = cast(User, user)  # AuthMiddleware's lazy user, authenticated above
        self.language = scope_language(dict(self.scope))
        self.budget = MessageBudget.from_settings()
        self.slug: str = self.scope["url_route"]["kwargs"]["slug"]
        # Names the table for DEAL (each round reads its row again).
        table = await _war_table(self.slug)
        if table is None:
            await self.close()  # no such War table (a Baccarat table's name, say)
            return
        self.table: Table = table
        self.group: str = war_service.group_name(user.pk)
        self.timer: asyncio.Task | None = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._watch()

    async def disconnect(self, code: int) -> None:
        timer = getattr(self, "timer", None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = read_message(text_data)
        if message is None or message.get("action") not in ("deal", "decide"):
            return
        if await over_budget(self, self.budget, presenter.refused_answer):
            return
        answer = await self._act(message)
        if answer.session_over:
            await self.session_end()
        elif answer.timed_out:
            await self.close(code=TIMEOUT_CLOSE_CODE)
        elif answer.terms_changed:
            await self.close(code=TERMS_CHANGED_CLOSE_CODE)
        else:
            await self.send(text_data=answer.html)

    @in_thread
    def _act(self, message: dict[str, Any]) -> Answer:
        """DEAL or the decision, through the services the HTTP endpoints call,
        and the same fragment back."""
        if self.fresh_session() is None:
            return Answer(session_over=True)
        with translation.override(self.language):
            try:
                if message["action"] == "deal":
                    placed = war_service.play(
                        user=self.user,
                        table=self.table,  # read again in the round's own transaction
                        ante=bet_amount(message.get("ante")),
                        tie_bet=bet_amount(message.get("tie_bet")),
                        slip_key=text_field(message, "slip_key"),
                        shown_version=table_version(message),
                    )
                    rnd, balance, profile, fresh_from = (
                        placed.round,
                        placed.balance,
                        placed.profile,
                        0,
                    )
                    table = rnd.table  # as the round read it
                else:
                    table = war_table(self.slug)
                    round_id = _round_id(message.get("round_id"))
                    if round_id is None:
                        raise GameError(_("There is no such round."), code="missing")
                    rnd = war_service.decide(
                        user=self.user,
                        round_id=round_id,
                        decision=text_field(message, "decision"),
                    )
                    # The decision settled the round: its balance after is the wallet's.
                    balance = rnd.balance_after if rnd.balance_after is not None else 0
                    profile, fresh_from = profile_for(self.user), 2
            except GameError as exc:
                if exc.code == "timeout":
                    return Answer(timed_out=True)
                if isinstance(exc, bets.TableChanged):
                    return Answer(terms_changed=True)
                return Answer(presenter.refused_answer(exc.message) + play_safe_refusal(exc))
            except Exception:
                # Everything ran in one transaction, now rolled back.
                logger.exception("%s failed at table %s", message["action"], self.slug)
                return Answer(
                    presenter.refused_answer(
                        _(
                            "Something went wrong while dealing. "
                            "The round was cancelled and nothing was taken."
                        )
                    )
                )
            return Answer(
                presenter.update_answer(
                    user=self.user,
                    table=table,
                    rnd=rnd,
                    balance=balance,
                    profile=profile,
                    fresh_from=fresh_from,
                )
            )

    async def war_update(self, event: dict) -> None:
        if event.get("slug") == self.slug:
            await self._watch()

    async def _watch(self) -> None:
        """(Re)start the timer for the waiting round's deadline, if any."""
        current = asyncio.current_task()
        if self.timer is not None and self.timer is not current:
            self.timer.cancel()
        self.timer = None
        deadline = await _deadline(self.user_id, self.slug)
        if deadline is not None:
            self.timer = asyncio.create_task(self._expire_at(deadline))

    async def _expire_at(self, deadline: dt.datetime) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            wait = (deadline + war_service.DECISION_GRACE - timezone.now()).total_seconds()
            await asyncio.sleep(max(0.0, wait))
            latest = await _deadline(self.user_id, self.slug)
            if latest is None:
                return  # decided in time
            if latest + war_service.DECISION_GRACE > timezone.now():
                # The countdown was restarted (the player came back in
                # another tab): wait for the new deadline.
                self.timer = asyncio.create_task(self._expire_at(latest))
                return
            await self.close(code=TIMEOUT_CLOSE_CODE)
