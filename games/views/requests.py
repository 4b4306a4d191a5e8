"""The request the game views receive: a signed-in player's, seen by htmx.

``login_required`` guarantees ``user`` is a real account; django-htmx's
middleware adds ``htmx``. Typing the views with this class says both."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class PlayerRequest(HttpRequest):
    user: User  # narrowed: the views are login_required
    htmx: HtmxDetails
