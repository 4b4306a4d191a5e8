"""The "Provably fair" page: the shuffle specified completely, with three
worked test vectors anyone can check in the browser, with Python or with
their own re-implementation. Public: no login needed."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from commitlog.reads import published_keys
from games.presenters.fair import fair_context


@require_GET
def fair(request: HttpRequest) -> HttpResponse:
    return render(request, "fair/fair.html", fair_context() | published_keys())
