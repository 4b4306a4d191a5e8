"""The Baccarat table's websocket: shows a settled round card by card.

The round was decided and paid when BET was pressed; this consumer holds no
game logic. On ``round.reveal`` it reads the stored round, renders its reveal
steps with the presenter's partials and sends them, pausing between steps
(a card's delay, or the player's peel in a squeeze). docs/reveal.md
describes the steps, the pauses and the browser's messages.

A socket that drops (a worker restarts, the network blinks, the page is
reloaded) is opened again by the page's ws extension. On connect the
consumer goes on with the player's latest round at this table if no socket
finished showing it (games/selectors/reveal.py: cache marks of the last
step sent and of the result shown, kept ``CASINO_REVEAL_RESUME_SECONDS``):
the steps already sent come again at once, then the reveal goes on where
it was, a squeeze the player had not finished offered again. Nothing the
player has not seen is skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, cast

import redis.asyncio as aioredis
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection
from django.utils import translation
from django.utils.translation import trans_real

from games.consumers.session import SessionBoundSocket
from games.consumers.threads import in_thread
from games.models import Game, Profile, Round, Table
from games.presenters import baccarat as presenter
from games.presenters.common import truthy
from games.selectors import roads as road_selectors
from games.selectors.reveal import (
    Progress,
    progress_key,
    progress_value,
    reveal_progress,
    shown_key,
    unshown_round,
)
from games.selectors.tables import table_version
from games.services import metrics
from games.services.baccarat import SIDES, reveal_group

logger = logging.getLogger(__name__)

PAIR_AREAS = frozenset({"player_pair", "banker_pair"})
PEEL_TIMEOUT = 600.0  # seconds a peel waits for the player before the reveal goes on
MAX_MESSAGE_CHARS = 4096  # the longest action the table sends is well under 200
# What a reveal reads of its round, every round (with its table's slug; the
# paytable version comes from the process's memo of versions): building and
# reading a round's other columns (seeds, times, the player's row) cost a
# good part of the reveal's CPU for nothing. A field left out here is read by
# a query of its own when used (tests/games/test_reveal_cost.py counts them).
REVEAL_FIELDS = (
    "player_id",
    "table_id",
    "version_id",
    "bets",
    "returns",
    "total_bet",
    "total_return",
    "balance_before",
    "balance_after",
    "outcome",
    "cards",
    "detail",
    "winner",
    "player_pair",
    "banker_pair",
)


class Pause(Enum):
    NONE = "none"
    CARD = "card"
    PEEL = "peel"
    CLIENT = "client"


# What the browser sends to end a pause that waits for the player.
CLIENT_ACTIONS = {Pause.PEEL: "peel_start", Pause.CLIENT: "continue"}


@dataclass(frozen=True)
class RevealStep:
    name: str  # "deal" | "card" | "skip" | "peel" | "peel_face" | "result"
    html: str  # fragments with ids; the ws extension swaps each by id
    pause: Pause = Pause.CARD
    slot: str = ""  # the peeled card's slot, for the steps that wait for the player


def reveal_steps(rnd: Round, *, table: Table, squeeze: str | None = None) -> list[RevealStep]:
    """The reveal of a settled round, in order.

    deal (cards face down, balance after the stakes) -> one step per card in
    deal order (P1, B1, P2, B2, then third cards), each with its side's new
    score -> result (banner, PAYOUT, balance, roads, history). With only
    PAIR bets the cards after the first four are shown at once (seed 000).
    With ``squeeze`` ("player" / "banker") that side's 2nd and 3rd cards are
    peeled by the player (see the module docstring).
    """
    order = presenter.deal_order(rnd)
    steps = [RevealStep("deal", presenter.fragment("step_deal", presenter.deal_context(rnd)))]
    pair_only = bool(rnd.bets) and set(rnd.bets) <= PAIR_AREAS
    peels = {} if pair_only else presenter.squeeze_peels(rnd, squeeze)
    for i, (slot, code) in enumerate(order):
        if pair_only and i == 4:
            # Only PAIRs were bet: they are settled on the first four cards, so
            # the third cards open at once and the result follows with no pause.
            skip = _open_cards(rnd, order[4:], shown=len(order), name="skip")
            steps.append(RevealStep(skip.name, skip.html, Pause.NONE))
            break
        peel = peels.get(slot)
        if peel is not None:
            steps += _peel_steps(rnd, peel, code, shown=i + 1)
        else:
            steps.append(_open_cards(rnd, [(slot, code)], shown=i + 1, name="card"))
    steps.append(result_step(rnd, table=table))
    return steps


def result_step(rnd: Round, *, table: Table) -> RevealStep:
    """The reveal's last step: banner, PAYOUT, balance, roads and history."""
    roads = road_selectors.table_roads(user=rnd.player, table=table)
    context = presenter.result_context(rnd, table=table, roads=roads)
    return RevealStep("result", presenter.fragment("step_result", context), Pause.NONE)


# One asyncio Redis client per event loop (daphne has one): the mark is one
# SET on the loop, with no thread and no new connection per round.
_redis_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
    weakref.WeakKeyDictionary()
)


async def _cache_set(key: str, value: int | str) -> None:
    """Set a reveal mark in the cache, for ``CASINO_REVEAL_RESUME_SECONDS``."""
    ttl = settings.CASINO_REVEAL_RESUME_SECONDS
    if settings.REDIS_URL:
        loop = asyncio.get_running_loop()
        client = _redis_clients.get(loop)
        if client is None:
            client = _redis_clients[loop] = aioredis.from_url(settings.REDIS_URL)
        # The cache's own key, so cache.get reads it (an int is stored as is).
        await client.set(cache.make_key(key), value, ex=ttl)
    else:
        cache.set(key, value, ttl)  # this process's memory: no I/O


async def mark_shown(round_id: int) -> None:
    """Note in the cache that this round's result reached a socket."""
    try:
        await _cache_set(shown_key(round_id), 1)
    except Exception:  # the cache is down: a reconnecting tab shows the result again
        logger.warning("could not mark round %s as shown", round_id, exc_info=True)


async def note_progress(round_id: int, step: int, squeeze: str | None) -> None:
    """Note the last step of this round's reveal sent, so a reloaded page
    goes on from there (and with the same squeeze)."""
    try:
        await _cache_set(progress_key(round_id), progress_value(step, squeeze))
    except Exception:  # the cache is down: a reloaded page shows the reveal from its deal
        logger.warning("could not note the reveal progress of round %s", round_id, exc_info=True)


def resume_point(steps: list[RevealStep], progress: int) -> int:
    """Where a reveal cut off after step ``progress`` goes on: the step after
    it, or, inside a peel the player had not finished, that peel again (the
    squeeze is offered again rather than skipped)."""
    if progress >= len(steps) - 1:
        return len(steps) - 1
    at = progress
    if steps[at].name in ("peel", "peel_face"):
        while at > 0 and steps[at].name != "peel":
            at -= 1
        return at
    return at + 1


@lru_cache(maxsize=1)
def _reveal_select() -> str:
    quote = connection.ops.quote_name
    column = {f.attname: f.column for f in Round._meta.concrete_fields}
    columns = ", ".join(f"r.{quote(column[name])}" for name in REVEAL_FIELDS)
    rounds, tables = quote(Round._meta.db_table), quote(Table._meta.db_table)
    return (
        f"SELECT r.id, {columns}, t.slug AS table_slug "  # noqa: S608 - names are ours
        f"FROM {rounds} r JOIN {tables} t ON t.id = r.table_id "
        "WHERE r.id = %s AND r.player_id = %s AND r.game = %s"
    )


def revealed_round(user: User, round_id: int) -> Round | None:
    """The player's Baccarat round ``round_id`` with what its reveal shows
    (``REVEAL_FIELDS``), or None if it is not theirs.

    One plain SELECT (a raw queryset) at every round of every player: the
    ORM's joined query cost about three times its statement in CPU."""
    raw = Round.objects.raw(_reveal_select(), [round_id, user.pk, Game.BACCARAT])
    rnd = next(iter(raw), None)
    if rnd is None:
        return None
    rnd.player = user  # the filter's player: no second read of the user
    slug = vars(rnd)["table_slug"]  # the query's extra column
    rnd.table = Table.from_db(DEFAULT_DB_ALIAS, ["id", "slug"], [rnd.table_id, slug])
    rnd.version = table_version(rnd.version_id)
    return rnd


def _peel_steps(rnd: Round, peel: presenter.PeelView, code: str, *, shown: int) -> list[RevealStep]:
    """Peel one card: face down with the navigator, then (after ``peel_start``)
    its face, then (after ``continue``) open in its slot as usual."""
    stage = presenter.fragment("step_peel", presenter.peel_context(peel))
    face = presenter.fragment("peel_face", presenter.peel_face_context(peel.slot, code))
    opened = _open_cards(rnd, [(peel.slot, code)], shown=shown, name="card")
    closed = presenter.fragment("squeeze_stage", {"peel": None})
    return [
        RevealStep("peel", stage, Pause.PEEL, peel.slot),
        RevealStep("peel_face", face, Pause.CLIENT, peel.slot),
        RevealStep("card", opened.html + closed, Pause.CARD),
    ]


def _open_cards(rnd: Round, cards: list[tuple[str, str]], *, shown: int, name: str) -> RevealStep:
    """Open ``cards`` and update the score of each side that got one."""
    step = presenter.cards_step(rnd, cards, shown=shown)
    return RevealStep(name, presenter.cards_step_html([step]), Pause.CARD)


def scope_language(scope: dict[str, Any]) -> str:
    """The language the page was rendered in: the language cookie, then
    Accept-Language, then the site default (as LocaleMiddleware decides)."""
    candidates = []
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie:
        candidates.append(cookie)
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _q in trans_real.parse_accept_lang_header(accept) if code != "*"]
    for code in candidates:
        try:
            return trans_real.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


class BaccaratConsumer(SessionBoundSocket, AsyncWebsocketConsumer):
    """One browser tab at one Baccarat table."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.user = cast(User, user)  # AuthMiddleware's lazy user, authenticated above
        self.slug = self.scope["url_route"]["kwargs"]["slug"]
        fast = await self._fast_play()
        if fast is None:  # no such table, or no profile
            await self.close()
            return
        self.fast = fast
        self.language = scope_language(dict(self.scope))
        self.group = reveal_group(user.pk)
        # (round, squeezed side, the last step a socket already sent or None,
        # when BET reached the server: a time.time(), or None).
        self.rounds: asyncio.Queue[tuple[int, str | None, int | None, float | None]] = (
            asyncio.Queue()
        )
        self.worker: asyncio.Task[None] | None = None
        self.speed_event = asyncio.Event()
        self.client_event = asyncio.Event()
        # (action, slot) the current step waits for, e.g. ("peel_start", "p2").
        self.waiting: tuple[str, str] | None = None
        self.known: set[int] = set()  # rounds queued or resumed on this socket
        await self.channel_layer.group_add(self.group, self.channel_name)
        # Looked up once in the group and before the page can BET on this
        # socket: a round committed later comes as a push.
        try:
            unshown = await self._unshown_reveal()
        except Exception:
            logger.exception("could not resume the reveal for player %s", self.user.pk)
            unshown = None
        await self.accept()
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
        await self.rounds.put((round_id, progress.squeeze, progress.step, None))
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._reveal_rounds())

    async def disconnect(self, code: int) -> None:
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The browser sends a few short actions; anything long is not one of
        # them, and deeply nested JSON would exhaust the parser's recursion.
        if not text_data or len(text_data) > MAX_MESSAGE_CHARS:
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            return
        if not isinstance(message, dict):
            return
        action = message.get("action")
        if action == "speed":
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

    # --- events from the group -------------------------------------------

    async def round_reveal(self, event: dict[str, Any]) -> None:
        if event.get("table") != self.slug:
            return  # a round at another table of the same player
        round_id = int(event["round_id"])
        if round_id in self.known:
            return  # resumed on connect, or a push sent again after an error
        self.known.add(round_id)
        squeeze = event.get("squeeze")
        bet_at = event.get("bet_at")
        bet_at = float(bet_at) if isinstance(bet_at, int | float) else None
        await self.rounds.put((round_id, squeeze if squeeze in SIDES else None, None, bet_at))
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._reveal_rounds())

    async def speed_changed(self, event: dict[str, Any]) -> None:
        """The player changed the fast play setting (in any tab)."""
        await self._set_speed(bool(event.get("fast")))

    # --- the reveal --------------------------------------------------------

    async def _reveal_rounds(self) -> None:
        """Show queued rounds one after another (a second tab may BET meanwhile)."""
        while not self.rounds.empty():
            round_id, squeeze, progress, bet_at = await self.rounds.get()
            try:
                steps = await self._steps(round_id, squeeze)
            except Exception:
                logger.exception("could not render the reveal of round %s", round_id)
                continue
            if not steps:  # not this player's Baccarat round, or not visible to this read
                logger.warning("round %s has no reveal for player %s", round_id, self.user.pk)
            # A resumed reveal: what a socket already sent comes back at once.
            start = resume_point(steps, progress) if progress is not None else 0
            for index, step in enumerate(steps):
                if index < start:
                    await self.send(text_data=step.html)
                    continue
                if step.name != "result":
                    await asyncio.shield(note_progress(round_id, index, squeeze))
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
            self.speed_event.clear()
            try:
                await asyncio.wait_for(self.speed_event.wait(), remaining)
            except TimeoutError:
                return

    async def _set_speed(self, fast: bool) -> None:
        self.fast = fast
        self.speed_event.set()
        html = await in_thread(self._render)("speed", {"fast": fast})
        await self.send(text_data=html)

    # --- database and templates (in a worker thread) -----------------------

    def _render(self, name: str, context: dict[str, Any]) -> str:
        with translation.override(self.language):
            return presenter.fragment(name, context)

    @in_thread
    def _fast_play(self) -> bool | None:
        if not Table.objects.filter(slug=self.slug, game=Game.BACCARAT).exists():
            return None
        return Profile.objects.filter(user=self.user).values_list("fast_play", flat=True).first()

    @in_thread
    def _unshown_reveal(self) -> tuple[int, Progress | None] | None:
        rnd = unshown_round(self.user, self.slug)
        if rnd is None:
            return None
        return rnd.pk, reveal_progress(rnd.pk)

    @in_thread
    def _result_html(self, round_id: int) -> str:
        rnd = revealed_round(self.user, round_id)
        if rnd is None:
            return ""
        with translation.override(self.language):
            return result_step(rnd, table=rnd.table).html

    @in_thread
    def _steps(self, round_id: int, squeeze: str | None = None) -> list[RevealStep]:
        rnd = revealed_round(self.user, round_id)
        if rnd is None:
            return []
        with translation.override(self.language):
            return reveal_steps(rnd, table=rnd.table, squeeze=squeeze)
