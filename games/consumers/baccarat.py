"""The Baccarat table's websocket: BET, and the round shown card by card.

With JavaScript on, the table's BET is a message on this socket
(``{"action": "bet", ...}``: the slip's fields, as the HTTP BET posts them).
The consumer runs the same pipeline as the HTTP endpoint
(``games.services.baccarat.play`` -> ``rounds.place_round``), answers with
the same fragments (``presenters.baccarat.placed_answer`` /
``refused_answer``), then sends the reveal from the round it holds: no
second read of the round, no trip through the channel layer to itself. The
player's other sockets at the table (a second tab) still get the round as a
push (``round.reveal``), and so does this socket for a round placed over
HTTP (a page without a socket, or another tab's BET). The consumer holds no
game logic. docs/reveal.md describes the messages, steps and pauses.

A socket that drops (a worker restarts, the network blinks, the page is
reloaded) is opened again by the page's ws extension. On connect the
consumer goes on with the player's latest round at this table if no socket
finished showing it (games/selectors/reveal.py: cache marks of the last
step sent, noted as the reveal starts and when a socket closes before the
result, and of the result shown, kept ``CASINO_REVEAL_RESUME_SECONDS``):
the steps already sent come again at once, then the reveal goes on where
it was, a squeeze the player had not finished offered again. Nothing the
player has not seen is skipped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, cast

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User
from django.http import Http404
from django.utils import translation

from games.amounts import slip_stakes, table_version
from games.baccarat.rules import AREAS
from games.consumers.language import scope_language
from games.consumers.limits import MessageBudget, over_budget, read_message, text_field
from games.consumers.session import SessionBoundSocket
from games.consumers.threads import in_thread
from games.errors import GameError
from games.models import Game, Profile, Table
from games.presenters import baccarat as presenter
from games.presenters.baccarat import CLIENT_ACTIONS, Pause, RevealStep
from games.presenters.common import truthy
from games.selectors.reveal import Progress, reveal_progress, revealed_round, unshown_round
from games.selectors.tables import baccarat_table
from games.services import baccarat as service
from games.services import bets, metrics
from games.services import squeeze as squeeze_service
from games.services.baccarat import SIDES, reveal_group, squeeze_side
from games.services.reveal_marks import (
    mark_shown,
    note_progress,
    others_open,
    socket_closed,
    socket_opened,
)

logger = logging.getLogger(__name__)

PEEL_TIMEOUT = 600.0  # seconds a peel waits for the player before the reveal goes on


@dataclass(frozen=True)
class Queued:
    """A round for this socket to show: its squeezed side, the last step a
    socket already sent (None: from the deal), when BET reached the server
    (a time.time(), for the BET-to-result metric) and, for a round this
    socket placed, its steps already rendered."""

    round_id: int
    squeeze: str | None
    progress: int | None
    bet_at: float | None
    steps: list[RevealStep] | None = None


@dataclass(frozen=True)
class BetAnswer:
    """What the socket sends back for a BET, and what it shows next."""

    html: str
    round_id: int | None = None
    squeeze: str | None = None
    steps: list[RevealStep] | None = None  # None for a refusal or a replayed slip
    session_over: bool = False


def _wake(waker: asyncio.Future[None]) -> None:
    if not waker.done():
        waker.set_result(None)


class BaccaratConsumer(SessionBoundSocket, AsyncWebsocketConsumer):
    """One browser tab at one Baccarat table."""

    counted_open = False  # in the player's count of sockets at this table
    # (round id, last step sent, squeezed side) of a reveal under way
    showing: tuple[int, int, str | None] | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.user = cast(User, user)  # AuthMiddleware's lazy user, authenticated above
        self.slug = self.scope["url_route"]["kwargs"]["slug"]
        self.fast = False
        self.language = scope_language(dict(self.scope))
        self.group = reveal_group(user.pk)
        self.budget = MessageBudget.from_settings()
        self.rounds: asyncio.Queue[Queued] = asyncio.Queue()
        self.worker: asyncio.Task[None] | None = None
        # The timed pause under way, woken early when the speed changes.
        self.pause_waker: asyncio.Future[None] | None = None
        self.client_event = asyncio.Event()
        # (action, slot) the current step waits for, e.g. ("peel_start", "p2").
        self.waiting: tuple[str, str] | None = None
        self.known: set[int] = set()  # rounds queued or resumed on this socket
        await self.channel_layer.group_add(self.group, self.channel_name)
        # One trip to the sockets' thread (where BETs queue under load: the
        # handshake must not wait there twice): the table, the fast play
        # setting and a reveal to resume, looked up once in the group and
        # before the page can BET on this socket (a round committed later
        # comes as a push).
        arrival = await self._arrival()
        if arrival is None:  # no such table, or no profile
            await self.close()
            return
        self.fast, unshown = arrival
        await self.accept()
        self.counted_open = True
        await socket_opened(self.user.pk, self.slug)
        if unshown is not None:
            await self._resume(*unshown)

    async def _resume(self, round_id: int, progress: Progress | None) -> None:
        """Show a round whose reveal no socket finished: one cut off midway
        from its deal, the steps already sent at once, then the rest as
        usual; one never started (its page shows it settled), its result."""
        if round_id in self.known:
            return
        self.known.add(round_id)
        if progress is None:
            html = await self._result_html(round_id)
            if html:
                await self.send(text_data=html)
                await asyncio.shield(mark_shown(round_id))
            return
        self._show(Queued(round_id, progress.squeeze, progress.step, None))

    async def _note_unfinished(self) -> None:
        """A reveal cut off before its result (the tab closed or reloaded,
        the network dropped): note its last step sent, so the next socket
        goes on from there."""
        showing, self.showing = self.showing, None
        if showing is not None:
            await asyncio.shield(note_progress(*showing))

    def _show(self, item: Queued) -> None:
        self.rounds.put_nowait(item)
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._reveal_rounds())

    async def disconnect(self, code: int) -> None:
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.cancel()
        await self._note_unfinished()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.counted_open:
            self.counted_open = False
            await asyncio.shield(socket_closed(self.user.pk, self.slug))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = read_message(text_data)
        if message is None:
            return
        action = message.get("action")
        if await over_budget(
            self, self.budget, presenter.refused_answer if action == "bet" else None
        ):
            return
        if action == "bet":
            await self._bet(message)
        elif action == "speed":
            await self._set_speed(truthy(message.get("fast")))
        elif action in ("peel_start", "continue"):
            self._client_action(action, message.get("slot"))

    def _client_action(self, action: str, slot: Any) -> None:
        """End the pause that waits for this action (for this card, when the
        browser names one); anything else is stale and ignored."""
        if self.waiting is None:
            return
        wanted, wanted_slot = self.waiting
        if action != wanted or (slot not in (None, "") and str(slot) != wanted_slot):
            return
        self.client_event.set()

    # --- BET ----------------------------------------------------------------

    async def _bet(self, message: dict[str, Any]) -> None:
        bet_at = time.time()
        answer = await self._play(message)
        if answer.session_over:
            await self.session_end()
            return
        if answer.round_id is not None and answer.steps is None:
            # A slip key sent again (a double tap, a BET resent after a
            # dropped socket): the round it made, not a second one; its reveal
            # goes on if no socket finished it.
            await self.send(text_data=answer.html)
            unshown = await self._unshown_reveal()
            if unshown is not None and unshown[0] == answer.round_id:
                await self._resume(*unshown)
            return
        if answer.round_id is not None:
            # Known before this handler returns: a push of the same round (the
            # player has another tab) is then ignored here.
            self.known.add(answer.round_id)
        await self.send(text_data=answer.html)
        if answer.round_id is not None:
            self._show(Queued(answer.round_id, answer.squeeze, None, bet_at, answer.steps))

    @in_thread
    def _play(self, message: dict[str, Any]) -> BetAnswer:
        """The pipeline, as the HTTP BET runs it, and the reveal's steps
        rendered from the round it returns."""
        session = self.fresh_session()
        if session is None:
            return BetAnswer("", session_over=True)
        with translation.override(self.language):
            try:
                visit = text_field(message, "squeeze_visit")
                wish = squeeze_service.wish(
                    session=session,
                    cookies=self.scope.get("cookies") or {},
                    table=self.table,
                    visit=visit,
                )
                placed = service.play(
                    user=self.user,
                    table=self.table,  # read again in the round's own transaction
                    bets=slip_stakes(message, AREAS),
                    slip_key=text_field(message, "slip_key"),
                    shown_version=table_version(message),
                    squeeze=wish,
                    notify_sockets=others_open(self.user.pk, self.slug),
                )
            except GameError as exc:
                return BetAnswer(presenter.refused_answer(exc))
            except Exception:
                # Everything after the debit ran in one transaction, now rolled back.
                logger.exception("BET failed at table %s", self.slug)
                return BetAnswer(presenter.refused_answer(str(presenter.FAILED)))
            rnd = placed.round
            table = rnd.table  # as the round read it
            limits = bets.baccarat_limits(
                user=self.user, version=rnd.version, profile=placed.profile, chips=table.chips
            )
            html = presenter.placed_answer(
                table=table, placed=placed, wish=wish, visit=visit, limits=limits
            )
            if placed.replayed:
                return BetAnswer(html, rnd.pk)
            side = squeeze_side(stakes=rnd.bets, threshold=rnd.version.squeeze_threshold, wish=wish)
            steps = presenter.reveal_steps(rnd, table=table, squeeze=side, limits=limits)
            return BetAnswer(html, rnd.pk, side, steps)

    # --- events from the group -------------------------------------------

    async def round_reveal(self, event: dict[str, Any]) -> None:
        if event.get("table") != self.slug:
            return  # a round at another table of the same player
        round_id = int(event["round_id"])
        if round_id in self.known:
            return  # placed or resumed on this socket, or a push sent again after an error
        self.known.add(round_id)
        squeeze = event.get("squeeze")
        bet_at = event.get("bet_at")
        bet_at = float(bet_at) if isinstance(bet_at, int | float) else None
        self._show(Queued(round_id, squeeze if squeeze in SIDES else None, None, bet_at))

    async def speed_changed(self, event: dict[str, Any]) -> None:
        """The player changed the fast play setting (in any tab)."""
        await self._set_speed(bool(event.get("fast")))

    # --- the reveal --------------------------------------------------------

    async def _reveal_rounds(self) -> None:
        """Show queued rounds one after another (a second tab may BET meanwhile)."""
        while not self.rounds.empty():
            item = await self.rounds.get()
            round_id, squeeze, bet_at = item.round_id, item.squeeze, item.bet_at
            steps = item.steps
            if steps is None:
                try:
                    steps = await self._steps(round_id, squeeze)
                except Exception:
                    logger.exception("could not render the reveal of round %s", round_id)
                    continue
            if not steps:  # not this player's Baccarat round, or not visible to this read
                logger.warning("round %s has no reveal for player %s", round_id, self.user.pk)
            # A resumed reveal: what a socket already sent comes back at once.
            start = presenter.resume_point(steps, item.progress) if item.progress is not None else 0
            for index, step in enumerate(steps):
                if index < start:
                    await self.send(text_data=step.html)
                    continue
                if step.name != "result":
                    # The cache hears of the reveal once, as it starts (a
                    # process that dies then costs a replay from there, never
                    # a skip); how far it got is kept here and noted when
                    # the socket closes before the result (_note_unfinished).
                    if index == start:
                        await asyncio.shield(note_progress(round_id, index, squeeze))
                    self.showing = (round_id, index, squeeze)
                else:
                    self.showing = None
                action = CLIENT_ACTIONS.get(step.pause)
                if action is not None:
                    # Armed before the send: the answer may come back at once.
                    self.waiting = (action, step.slot)
                    self.client_event.clear()
                await self.send(text_data=step.html)
                if bet_at is not None:  # the reveal's first fragment is out
                    metrics.result_sent(Game.BACCARAT, bet_at)
                    bet_at = None
                if step.name == "result":
                    # Shielded: a tab closed right after the result must not
                    # cancel the mark, or its next socket would show it again.
                    await asyncio.shield(mark_shown(round_id))
                await self._pause(step.pause)
                self.waiting = None

    async def _pause(self, pause: Pause) -> None:
        if pause is Pause.NONE:
            return
        if pause in CLIENT_ACTIONS:
            try:
                await asyncio.wait_for(self.client_event.wait(), PEEL_TIMEOUT)
            except TimeoutError:
                logger.info("no answer from the player: the reveal goes on")
            return
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            delay = settings.CASINO_REVEAL_FAST_DELAY if self.fast else settings.CASINO_REVEAL_DELAY
            remaining = started + delay - loop.time()
            if remaining <= 0:
                return
            # A timer on a future, not wait_for on an event: a pause ran at
            # every card, and the timeout's exceptions cost it three times
            # the CPU (14 against 4.6 us).
            self.pause_waker = waker = loop.create_future()
            timer = loop.call_later(remaining, _wake, waker)
            try:
                await waker
            finally:
                timer.cancel()
                self.pause_waker = None

    async def _set_speed(self, fast: bool) -> None:
        self.fast = fast
        if self.pause_waker is not None:
            _wake(self.pause_waker)  # the pause under way takes the new speed
        html = await in_thread(self._render)("speed", {"fast": fast})
        await self.send(text_data=html)

    # --- database and templates (in a worker thread) -----------------------

    def _render(self, name: str, context: dict[str, Any]) -> str:
        with translation.override(self.language):
            return presenter.fragment(name, context)

    @in_thread
    def _arrival(self) -> tuple[bool, tuple[int, Progress | None] | None] | None:
        """(fast play, the reveal to resume) for a socket opening; None when
        the table or the player's profile does not exist."""
        try:
            # Names the table for the rounds (each reads its row again).
            self.table: Table = baccarat_table(self.slug)
        except Http404:
            return None
        fast = Profile.objects.filter(user=self.user).values_list("fast_play", flat=True).first()
        if fast is None:
            return None
        try:
            unshown = self._unshown()
        except Exception:
            logger.exception("could not resume the reveal for player %s", self.user.pk)
            unshown = None
        return fast, unshown

    def _unshown(self) -> tuple[int, Progress | None] | None:
        rnd = unshown_round(self.user, self.slug)
        if rnd is None:
            return None
        return rnd.pk, reveal_progress(rnd.pk)

    _unshown_reveal = in_thread(_unshown)

    @in_thread
    def _result_html(self, round_id: int) -> str:
        rnd = revealed_round(self.user, round_id)
        if rnd is None:
            return ""
        with translation.override(self.language):
            return presenter.result_step(rnd, table=rnd.table).html

    @in_thread
    def _steps(self, round_id: int, squeeze: str | None = None) -> list[RevealStep]:
        rnd = revealed_round(self.user, round_id)
        if rnd is None:
            return []
        with translation.override(self.language):
            return presenter.reveal_steps(rnd, table=rnd.table, squeeze=squeeze)
