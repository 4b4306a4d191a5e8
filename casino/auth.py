"""Signing in with a username and password, and the signed-in player's rows.

``ModelBackend`` is Django's, except that it reads the player's wallet and
profile in the same query as the user (``select_related``). Every game
request needs one or both (the balance, the limits, the seeds); reading them
with the user saves one or two queries on each.

``request.user.wallet`` and ``request.user.profile`` are therefore as they
were when the request began, or as the round the request played left them
(``games.services.rounds.remember``). Code that must see a change made by
another request since reads the row itself.
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            user = model._default_manager.select_related("wallet", "profile").get(pk=user_id)
        except model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
