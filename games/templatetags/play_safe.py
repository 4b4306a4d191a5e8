"""``{% play_safe_header %}``: the header's time played and net result of
the session, and the way to the play-safe page."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import template

from games.presenters.baccarat.contexts import UNSEEN_NET
from games.selectors import play_safe as reads
from games.services import play_safe

register = template.Library()


@register.inclusion_tag("play_safe/header_bit.html", takes_context=True)
def play_safe_header(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"show": False}
    # The start the login wrote into the session: no profile read per page.
    stored = getattr(request, "session", {}).get(play_safe.SESSION_STARTED)
    try:
        started = dt.datetime.fromisoformat(stored) if stored else None
    except ValueError:
        started = None
    if started is None:
        return {"show": False}
    summary = reads.session_summary(user, started=started)
    # A round whose result the page has not shown yet (a table drawn in the
    # middle of its reveal) counts once it is shown: the net must not tell
    # the result before the cards do.
    unseen = context.get(UNSEEN_NET) or 0
    return {
        "show": True,
        "minutes": summary.played_minutes,
        "net": summary.net - unseen,
    }
