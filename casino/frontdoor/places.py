"""Places on one event loop, and who waits for them: the ``Cap`` of the
credential desk and of the page seats, kept without a thread or a lock."""

from __future__ import annotations

import asyncio
from collections import deque


class Bumped(Exception):
    """Another client's request took this waiting place."""


class Places:
    """``at_once`` places on one event loop, and who waits for them: in
    lanes, the first lane's first, each lane in arrival order, a lane
    holding at most its ``share`` of the places at once (all of them unless
    told). A place is handed straight from who leaves to who waits next, so
    no one overtakes a waiter in between. Nothing here blocks: a wait is a
    future on the loop."""

    def __init__(self, lanes: int = 1) -> None:
        self.inside = 0
        self.at_once = 1
        self.shares: list[int | None] = [None] * lanes
        self.held = [0] * lanes  # places inside, by lane
        self.lanes: list[deque[asyncio.Future[None]]] = [deque() for _ in range(lanes)]

    def waiting(self) -> int:
        return sum(len(lane) for lane in self.lanes)

    def _room(self, lane: int) -> bool:
        share = self.shares[lane]
        return self.inside < self.at_once and (share is None or self.held[lane] < share)

    def full(self, at_once: int, waiting: int, lane: int = 0, share: int | None = None) -> bool:
        """No place for ``lane``, and every waiting place in it taken."""
        self.at_once, self.shares[lane] = at_once, share
        return not self._room(lane) and len(self.lanes[lane]) >= waiting

    async def take(
        self,
        at_once: int,
        lane: int = 0,
        share: int | None = None,
        waiting_as: list[asyncio.Future[None]] | None = None,
    ) -> None:
        """A place, at once or after a wait (``waiting_as``: a list that
        holds the wait's future while it lasts, for ``bump``)."""
        self.at_once, self.shares[lane] = at_once, share
        if self._room(lane):
            self.inside += 1
            self.held[lane] += 1
            return
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lanes[lane].append(place)
        if waiting_as is not None:
            waiting_as.append(place)
        try:
            await place  # who leaves hands a place over, counted for this lane
        except asyncio.CancelledError:
            if place.done() and not place.cancelled() and place.exception() is None:
                self.leave(lane)  # handed a place as it was cancelled: pass it on
            elif place in self.lanes[lane]:
                self.lanes[lane].remove(place)
            raise
        finally:
            if waiting_as is not None and place in waiting_as:
                waiting_as.remove(place)

    def bump(self, lane: int, place: asyncio.Future[None]) -> None:
        """Take a waiting place from its waiter, who gets ``Bumped``."""
        self.lanes[lane].remove(place)
        place.set_exception(Bumped())

    def leave(self, lane: int = 0) -> None:
        """Give this place back, and hand places to whoever waits next and
        has room."""
        self.inside -= 1
        self.held[lane] -= 1
        for number, waiting in enumerate(self.lanes):
            while waiting and self._room(number):
                place = waiting.popleft()
                if not place.done():
                    self.inside += 1
                    self.held[number] += 1
                    place.set_result(None)
                    return
