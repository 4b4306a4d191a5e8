"""The squeeze's state for one player at one Baccarat table: the SQUEEZE
toggle and the promo clip's start and end (seed 000).

The promo unlock belongs to one visit to the table screen: each render of
the screen starts a visit (a token in the page and in a signed cookie, so a
render writes no session), and the clip's end counts only for the visit that
started it. Leaving the screen (a new render) locks the squeeze again. The
toggle itself is kept in the session between visits.

Every function here takes the session and the cookies it reads, never a
request: the table's views pass ``request.session`` and ``request.COOKIES``,
its socket ``scope["session"]`` and ``scope["cookies"]``, and both see the
same state. A caller without a request saves the session itself after
``act``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from django.core import signing
from django.utils.translation import gettext as _

from games.models import Table
from games.services.baccarat import SqueezeWish

VISIT_COOKIE = "bac_visit"

# The promo clip (static/js/promo.js) runs this long; its end unlocks the
# squeeze for the rest of the visit. The end counts only this long after the
# start the server recorded, less a little slack for the network.
PROMO_SECONDS = 12
PROMO_SLACK = 1.5


class Session(Protocol):
    """What is used of a session: a Django session or a plain dict."""

    def get(self, key: str, default: Any = None, /) -> Any: ...

    def __setitem__(self, key: str, value: Any, /) -> None: ...


@dataclass
class SqueezeState:
    """The squeeze part of the session, per table: ``on`` is the toggle;
    ``visit``/``promo``/``promo_started`` are the clip of one visit."""

    on: bool = False
    visit: str = ""
    promo: bool = False  # the clip was watched to its end during ``visit``
    promo_started: float | None = None  # time.time() when the clip started in ``visit``


@dataclass(frozen=True)
class VisitCookie:
    """The signed cookie that names the visit a render of the table screen starts."""

    name: str
    value: str
    path: str


@dataclass(frozen=True)
class SqueezeAnswer:
    """What an action on the toggle or the clip leaves: the wish BET would
    now send, and what to tell the player (an error or a note, or nothing)."""

    wish: SqueezeWish
    error: str = ""
    note: str = ""


def _key(table: Table) -> str:
    return f"baccarat:squeeze:{table.pk}"


def _cookie_name(table: Table) -> str:
    return f"{VISIT_COOKIE}_{table.pk}"


def _signer(table: Table) -> signing.Signer:
    # The salt Django's set_signed_cookie / get_signed_cookie use for this name.
    return signing.get_cookie_signer(salt=_cookie_name(table) + VISIT_COOKIE)


def load(*, session: Session, table: Table) -> SqueezeState:
    raw = session.get(_key(table)) or {}
    started = raw.get("promo_started")
    return SqueezeState(
        on=raw.get("on") is True,
        visit=str(raw.get("visit") or ""),
        promo=raw.get("promo") is True,
        promo_started=float(started) if isinstance(started, int | float) else None,
    )


def save(*, session: Session, table: Table, state: SqueezeState) -> None:
    session[_key(table)] = asdict(state)


def new_visit() -> str:
    """A fresh visit token: a clip watched on an earlier render no longer counts."""
    return secrets.token_hex(12)


def visit_cookie(*, table: Table, visit: str) -> VisitCookie:
    """The cookie the table screen's render sets to start ``visit``."""
    return VisitCookie(
        name=_cookie_name(table),
        value=_signer(table).sign(visit),
        path="/",  # every path: the table's socket (/ws/...) reads it at its handshake
    )


def current_visit(*, cookies: Mapping[str, str], table: Table) -> str:
    """The visit the latest render of this table's screen started ("" when
    the cookie is missing or its signature does not hold)."""
    raw = cookies.get(_cookie_name(table))
    if raw is None:
        return ""
    try:
        return _signer(table).unsign(raw)
    except signing.BadSignature:
        return ""


def by_promo(
    *, cookies: Mapping[str, str], table: Table, state: SqueezeState, visit: str | None
) -> bool:
    """The clip was watched to its end in this very visit (``visit`` is the
    token the page posts; an older page of the same table has another)."""
    return bool(
        state.promo
        and state.visit
        and visit == state.visit == current_visit(cookies=cookies, table=table)
    )


def wish(
    *, session: Session, cookies: Mapping[str, str], table: Table, visit: str | None
) -> SqueezeWish:
    """What the player's screen asks of the squeeze at BET (``visit``: the
    token the page sent with it)."""
    state = load(session=session, table=table)
    return SqueezeWish(
        on=state.on, promo=by_promo(cookies=cookies, table=table, state=state, visit=visit)
    )


def promo_finished(*, started: float | None, now: float) -> bool:
    """The clip started at ``started`` (a time.time()) has been watched to its end."""
    return started is not None and now - started >= PROMO_SECONDS - PROMO_SLACK


def act(
    *,
    session: Session,
    cookies: Mapping[str, str],
    table: Table,
    action: str,
    visit: str,
    now: float | None = None,
) -> SqueezeAnswer:
    """``toggle`` flips the toggle; ``promo_start`` / ``promo_end`` come from
    the clip with the page's visit token. The clip counts only for the visit
    the latest render started, and only once it has run its length since its
    start (``now``: a time.time()). An unknown action changes nothing."""
    now = time.time() if now is None else now
    state = load(session=session, table=table)
    fresh = bool(visit) and visit == current_visit(cookies=cookies, table=table)
    error = note = ""
    if action == "toggle":
        state.on = not state.on
    elif action == "promo_start":
        if fresh:
            state.visit, state.promo, state.promo_started = visit, False, now
    elif action == "promo_end":
        if not fresh or visit != state.visit:
            error = _("This page is out of date. Reload the table to watch the clip.")
        elif not promo_finished(started=state.promo_started, now=now):
            error = _("Watch the clip to its end to unlock the squeeze.")
        else:
            state.promo, state.promo_started = True, None
            state.on = True  # the player watched the clip to squeeze: turn it on
            note = _("Squeeze unlocked for this visit to the table.")
    save(session=session, table=table, state=state)
    answer = SqueezeWish(
        on=state.on, promo=by_promo(cookies=cookies, table=table, state=state, visit=visit)
    )
    return SqueezeAnswer(answer, error=error, note=note)
