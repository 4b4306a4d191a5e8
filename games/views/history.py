"""Past games: the history list, a round's page with its replay and
verification, and the operators' views and CSV export of any player's rounds.

Who may see what is decided here, once, in ``_history_owner`` and
``_visible_round``: a player sees only their own rounds (anything else is a
404, as if it did not exist); anyone else's need the rounds' view permission
and, where it is required, a second factor (``games.views.staff_access``): staff
status alone is refused with the same 404.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header, urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from commitlog.reads import round_entry
from games.models import Coup, Game, Profile, Round, ShoeSeed
from games.selectors import history as selectors
from games.selectors.history_export import csv_rows
from games.selectors.play_safe import zone_of
from games.selectors.round_facts import is_open, result_label, shown_cards
from games.selectors.round_report import round_report, visible_round
from games.selectors.round_verification import verify_round
from games.views.demo import not_in_demo
from games.views.requests import PlayerRequest
from games.views.staff_access import ROUNDS, staff_reader


class HistoryFilterForm(forms.Form):
    game = forms.ChoiceField(
        label=gettext_lazy("Game"),
        required=False,
        choices=[("", gettext_lazy("All games")), *Game.choices],
    )
    date_from = forms.DateField(
        label=gettext_lazy("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=gettext_lazy("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    result = forms.ChoiceField(
        label=gettext_lazy("Result"),
        required=False,
        choices=[("", gettext_lazy("All results")), *Round.Outcome.choices],
    )

    def clean_date_to(self) -> dt.date | None:
        day = self.cleaned_data.get("date_to")
        # The list ends at the midnight after this day, and 9999-12-31 has
        # none: the last day there is filters nothing anyway.
        return None if day == dt.date.max else day

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError(_("The start date is after the end date."))
        return data

    def history_filter(self) -> selectors.HistoryFilter:
        """The valid part of the filter; a field with an error does not filter."""
        data = getattr(self, "cleaned_data", {})
        if self.non_field_errors():
            data = {k: v for k, v in data.items() if k not in ("date_from", "date_to")}
        return selectors.HistoryFilter(
            game=data.get("game") or "",
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            outcome=data.get("result") or "",
        )


def _history_owner(request: PlayerRequest, user_id: int | None) -> User:
    """Whose history this is: one's own, or (staff who may read rounds) anyone's."""
    if user_id is None or user_id == request.user.pk:
        return request.user
    staff_reader(request, ROUNDS)
    return get_object_or_404(get_user_model(), pk=user_id)


def _visible_round(request: PlayerRequest, pk: int) -> Round:
    rnd = visible_round(viewer=request.user, pk=pk)
    if rnd is None:
        raise Http404
    if rnd.player_id != request.user.pk:
        staff_reader(request, ROUNDS)
    return rnd


def _cursor(request: PlayerRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    # Anything but a plausible id is ignored (and kept within SQLite's integers).
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def _filter_form(
    request: PlayerRequest, owner: User
) -> tuple[HistoryFilterForm, selectors.HistoryFilter]:
    form = HistoryFilterForm(request.GET)
    form.is_valid()
    filters = form.history_filter()
    if filters.date_from or filters.date_to:
        # Whole days in the player's own zone (their kept day rows').
        profile = Profile.objects.filter(user=owner).only("time_zone").first()
        filters = dataclasses.replace(filters, zone=zone_of(profile))
    return form, filters


def _urls(owner: User, request: PlayerRequest) -> dict[str, str]:
    if owner.pk == request.user.pk:
        return {
            "list_url": reverse("history"),
            "summary_url": reverse("history_summary"),
            "export_url": reverse("history_export"),
        }
    return {
        "list_url": reverse("history_player", args=[owner.pk]),
        "summary_url": reverse("history_player_summary", args=[owner.pk]),
        "export_url": reverse("history_player_export", args=[owner.pk]),
    }


@login_required
@require_GET
def history(request: PlayerRequest, user_id: int | None = None) -> HttpResponse:
    owner = _history_owner(request, user_id)
    form, filters = _filter_form(request, owner)
    page = selectors.history_page(
        player_id=owner.pk,
        filters=filters,
        before=_cursor(request, "before"),
        after=_cursor(request, "after"),
    )
    params = filters.params()
    context = {
        "owner": owner,
        "own": owner.pk == request.user.pk,
        "form": form,
        "page": page,
        "rows": [
            {
                "round": r,
                "result": result_label(r),
                "cards": shown_cards(r),
            }
            for r in page.rounds
        ],
        "query": urlencode(params),
        "newer_query": urlencode({**params, "after": str(page.newer)}) if page.newer else "",
        "older_query": urlencode({**params, "before": str(page.older)}) if page.older else "",
        **_urls(owner, request),
    }
    template = "history/history.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#results"
    return render(request, template, context)


@login_required
@require_GET
def history_summary(request: PlayerRequest, user_id: int | None = None) -> HttpResponse:
    """The filter's totals, loaded after the list so the list never waits for them."""
    owner = _history_owner(request, user_id)
    _form, filters = _filter_form(request, owner)
    summary = selectors.history_summary(player_id=owner.pk, filters=filters)
    return render(request, "history/history.html#summary", {"summary": summary})


class _Echo:
    """csv.writer wants a file; this one hands each line straight back."""

    def write(self, value: str) -> str:
        return value


@login_required
@require_GET
@not_in_demo("csv", back="history")
def history_export(request: PlayerRequest, user_id: int | None = None) -> StreamingHttpResponse:
    """The filtered rounds as CSV, streamed. A player may export their own;
    staff who may read rounds, anyone's (another player's is a 404 for the rest)."""
    owner = _history_owner(request, user_id)
    _form, filters = _filter_form(request, owner)
    rounds = selectors.player_rounds(player_id=owner.pk, filters=filters)
    writer = csv.writer(_Echo())
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in csv_rows(rounds)),
        content_type="text/csv; charset=utf-8",
    )
    # The name in sign-up's characters only (a username stored another way
    # may hold quotes, line breaks or U+202E); Japanese goes percent-encoded.
    name = re.sub(r"[^\w.@+-]", "_", owner.get_username())
    filename = f"rounds-{name}-{stamp}.csv"
    response["Content-Disposition"] = content_disposition_header(True, filename) or "attachment"
    return response


def _round_context(request: PlayerRequest, rnd: Round) -> dict[str, Any]:
    report = round_report(rnd)
    own = rnd.player_id == request.user.pk
    back = reverse("history") if own else reverse("history_player", args=[rnd.player_id])
    return {
        "report": report,
        "round": rnd,
        "own": own,
        "back_url": back,
        **round_entry(rnd.server_seed_hash),  # log_index, log_leaf_b64
        **_live_context(rnd),
    }


def _live_context(rnd: Round) -> dict[str, Any]:
    """A live bet's coup and the seed its player added to the shoe's shuffle (if any)."""
    if not rnd.coup_id:
        return {"live_coup": None}
    coup = Coup.objects.select_related("shoe").get(pk=rnd.coup_id)
    mine = ShoeSeed.objects.filter(shoe_id=coup.shoe_id, player_id=rnd.player_id).first()
    return {"live_coup": coup, "shoe_seed": mine}


@login_required
@require_GET
def round_detail(request: PlayerRequest, pk: int) -> HttpResponse:
    rnd = _visible_round(request, pk)
    return render(request, "history/round.html", _round_context(request, rnd))


@login_required
@require_http_methods(["GET", "POST"])
def round_verify(request: PlayerRequest, pk: int) -> HttpResponse:
    """Re-derive the shoe and the result from the round's seeds alone.

    Changes nothing, so GET works too (a link without JavaScript); the page's
    button posts through htmx and swaps in the verdict."""
    rnd = _visible_round(request, pk)
    context = _round_context(request, rnd)
    if rnd.coup_id:
        context["verify_refused"] = _(
            "This bet was on a live table's coup: the shoe is verified whole, from the "
            "document published when the shoe ends."
        )
    elif is_open(rnd):
        context["verify_refused"] = _(
            "This round is still waiting for the tie decision. Its server seed is revealed, "
            "and the round can be verified, once it is over."
        )
    else:
        context["verification"] = verify_round(rnd)
    template = "history/round.html"
    if request.htmx:
        template += "#verification"
    return render(request, template, context)
