"""Sockets follow the session: when a session ends, its sockets close.

Every table socket joins two Channels groups when it opens
(games/consumers/session.py): one for its session and one for its player.
The handlers here send ``{"type": "session.end"}`` to them, through the
channel layer, so the socket closes on whichever worker holds it:

* logging out (``user_logged_out``) ends that session's sockets, in every tab;
* a password change or an operator deactivating or reactivating the account
  (a save of the user that changes ``password`` or ``is_active``) ends all
  the player's sockets. The page that changed the password keeps its session
  (``update_session_auth_hash``), so its own tabs reconnect at once.

A change of ``is_active`` also ends every session of the account
(``casino.sessions.end_user_sessions``), in the same transaction: Django
only refuses an inactive user's session, it does not end it, so without this
a reactivated account's old browsers would be signed in again.

A session that simply expires has no event: the socket re-reads its session
at the expiry and closes then (games/consumers/session.py).

Group names carry a digest of the session key, never the key itself (the
channel layer's keys are visible to whoever can read Redis).
"""

from __future__ import annotations

import hashlib

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_save, pre_save

from casino.sessions import end_user_sessions
from games.services.push import send_now

SESSION_END = "session.end"
WATCHED_FIELDS = frozenset({"password", "is_active"})


def session_group(session_key: str) -> str:
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:40]
    return f"session-{digest}"


def user_group(user_id: int) -> str:
    return f"player-sockets-{user_id}"


def end_sockets(group: str) -> None:
    """Close every socket in ``group``, on every worker."""
    # The one push helper (its loop and connection per process); if the layer
    # is down the sockets still end when they re-check their session.
    send_now(group, {"type": SESSION_END})


def end_session_sockets(session_key: str | None) -> None:
    if session_key:
        end_sockets(session_group(session_key))


def end_player_sockets(user_id: int) -> None:
    end_sockets(user_group(user_id))


def on_logout(sender, request=None, user=None, **kwargs) -> None:
    session = getattr(request, "session", None)
    end_session_sockets(getattr(session, "session_key", None))


def remember_credentials(sender, instance, update_fields=None, **kwargs) -> None:
    """Before a user is saved: their stored password and active flag, when
    the save may change them."""
    if instance.pk is None:
        return
    if update_fields is not None and not WATCHED_FIELDS & set(update_fields):
        return  # e.g. last_login at every login
    instance._stored_credentials = (
        sender._default_manager.filter(pk=instance.pk).values_list("password", "is_active").first()
    )


def on_user_saved(sender, instance, created=False, **kwargs) -> None:
    stored = instance.__dict__.pop("_stored_credentials", None)
    if created or stored is None:
        return
    password, was_active = stored
    user_id = instance.pk
    if was_active != instance.is_active:
        end_user_sessions(user_id)
    if password != instance.password or was_active != instance.is_active:
        transaction.on_commit(lambda: end_player_sockets(user_id))


def connect() -> None:
    """Called once at start-up (games.apps)."""
    user_model = get_user_model()
    user_logged_out.connect(on_logout, dispatch_uid="games.sockets.logout")
    pre_save.connect(remember_credentials, sender=user_model, dispatch_uid="games.sockets.pre")
    post_save.connect(on_user_saved, sender=user_model, dispatch_uid="games.sockets.post")
