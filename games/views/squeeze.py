"""The squeeze's endpoint: the SQUEEZE toggle and the promo clip's start and
end (seed 000), posted by the table screen. The state and its rules live in
``games.services.squeeze``; this view only speaks HTTP."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games.presenters import baccarat as presenter
from games.selectors.tables import baccarat_table
from games.services import squeeze as squeeze_service
from games.views.requests import PlayerRequest


@login_required
@require_POST
def squeeze(request: PlayerRequest, slug: str) -> HttpResponse:
    """``action=toggle`` flips the toggle; ``promo_start`` / ``promo_end``
    come from the clip (static/js/promo.js) with the page's visit token."""
    table = baccarat_table(slug)
    visit = request.POST.get("visit") or request.POST.get("squeeze_visit") or ""
    answer = squeeze_service.act(
        session=request.session,
        cookies=request.COOKIES,
        table=table,
        action=request.POST.get("action", ""),
        visit=visit,
    )
    if not request.htmx:
        if answer.error:
            messages.error(request, answer.error)
        elif answer.note:
            messages.success(request, answer.note)
        return redirect(table.get_absolute_url())
    toggle = presenter.squeeze_toggle(
        threshold=table.squeeze_threshold,
        on=answer.wish.on,
        by_promo=answer.wish.promo,
        visit=visit,
    )
    html = presenter.fragment("squeeze_toggle", {"table": table, "squeeze": toggle, "oob": True})
    html += presenter.fragment(
        "promo_msg", {"promo_error": answer.error, "promo_note": answer.note, "oob": True}
    )
    return HttpResponse(html)
