from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def not_open(request: HttpRequest, slug: str = "") -> HttpResponse:
    return render(request, "games/not_open.html", status=200)
