"""The cluster's HTTP side (casino/wsgi.py under gunicorn) counts the
player's address, not nginx's, and only because it was told to trust nginx:
the credential throttle holds back the address that floods, not everyone."""

from __future__ import annotations

from io import BytesIO
from urllib.parse import urlencode

import pytest
from django.core.cache import cache

from casino.wsgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def login_post(peer: str, forwarded: str | None = None) -> int:
    body = urlencode({"username": "nobody", "password": "x"}).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/accounts/login/",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "HTTP_HOST": "127.0.0.1:8000",
        "REMOTE_ADDR": peer,
        "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": BytesIO(body),
        "wsgi.url_scheme": "http",
    }
    if forwarded is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded
    status = []
    application(environ, lambda s, headers: status.append(s))
    return int(status[0].split()[0])


@pytest.fixture
def one_post_a_minute(settings):
    settings.CASINO_CREDENTIAL_POSTS = 1
    cache.clear()
    yield
    cache.clear()
    application.trust([])


def test_behind_a_trusted_proxy_each_player_has_their_own_budget(one_post_a_minute):
    application.trust(["127.0.0.1"])
    # (403: no CSRF cookie; what matters is that it is not 429.)
    assert login_post("127.0.0.1", "203.0.113.7") != 429
    assert login_post("127.0.0.1", "203.0.113.7") == 429
    assert login_post("127.0.0.1", "203.0.113.8") != 429  # another player
    # A client cannot pick its address by sending the header itself: the
    # proxy's own entry (the last) is the one believed.
    assert login_post("127.0.0.1", "198.51.100.1, 203.0.113.7") == 429


def test_without_being_told_the_header_is_ignored(one_post_a_minute):
    assert login_post("198.51.100.9", "203.0.113.1") != 429
    assert login_post("198.51.100.9", "203.0.113.2") == 429  # same peer: same budget
