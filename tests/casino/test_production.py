"""The production settings serve: DJANGO_DEBUG=0 with a secret key, as an
operator runs ``make run`` (its server command read from the Makefile,
tests/make_run.py) or the cluster's HTTP side (gunicorn).

Each server is started once, in a subprocess on a fresh SQLite file, after the
set-up step's commands (migrate, setup_casino, collectstatic into a folder
of its own). A browser-like client then signs up, opens a table page and
fetches the hashed stylesheet and icon the pages name; a socket from a page
of another origin is answered 403 by the server.
"""

from __future__ import annotations

import re
import secrets
import sys
from pathlib import Path

import pytest

from tests import make_run
from tests.make_run import make_run_command

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")

ROOT = Path(__file__).resolve().parent.parent.parent
CSS = re.compile(r'href="(/static/css/[^"]+\.[0-9a-f]{12}\.css)"')
ICON = re.compile(r'href="(/static/favicon\.[0-9a-f]{12}\.svg)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(scope="module")
def production_env(tmp_path_factory) -> dict[str, str]:
    env = make_run.production_env(tmp_path_factory.mktemp("production"))
    make_run.set_up_site(env, tmp_path_factory)
    return env


SERVERS = {
    "make run": lambda port: make_run_command("127.0.0.1", port),
    "gunicorn": lambda port: [
        sys.executable, "-m", "gunicorn", "-c", "python:casino.gunicorn_conf",
        "--workers", "1", "--bind", f"127.0.0.1:{port}", "casino.wsgi:application",
    ],
}  # fmt: skip


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request, production_env):
    """Each server started once for the module: one test signs up a player of
    its own, the other is refused before any view; neither changes what the
    other reads."""
    if request.param == "gunicorn":
        pytest.importorskip("gunicorn")
    port = make_run.free_port()
    with make_run.serving(SERVERS[request.param](port), production_env, port) as url:
        yield request.param, url


def test_pages_tables_and_hashed_static_files_are_served(server):
    name, url = server
    browser = requests.Session()
    browser.headers["Accept-Language"] = "en"
    login = browser.get(url + "/accounts/login/", timeout=10)
    assert login.status_code == 200, login.text[:500]

    css = CSS.search(login.text)
    icon = ICON.search(login.text)
    assert css and icon, "the page names its stylesheet and icon by their hashed names"
    for path in (css.group(1), icon.group(1)):
        response = browser.get(url + path, timeout=10)
        assert response.status_code == 200, path
        assert "max-age=315360000" in response.headers["Cache-Control"], path
        assert "immutable" in response.headers["Cache-Control"], path
    assert browser.get(url + "/static/no-such-file.css", timeout=10).status_code == 404
    favicon = browser.get(url + "/favicon.ico", timeout=10, allow_redirects=False)
    assert favicon.status_code == 301
    assert favicon.headers["Location"] == icon.group(1)

    # Sign up through the form; then the tables open.
    form = browser.get(url + "/accounts/signup/", timeout=10)
    password = "Prod-" + secrets.token_urlsafe(10)
    signed = browser.post(
        url + "/accounts/signup/",
        data={
            "csrfmiddlewaretoken": CSRF.search(form.text).group(1),
            "username": "prod-" + name.replace(" ", "-"),
            "password1": password,
            "password2": password,
        },
        headers={"Origin": url, "Referer": url + "/accounts/signup/"},
        timeout=30,
    )
    assert signed.status_code == 200 and signed.url == url + "/", signed.text[:500]
    for table in ("/war/casino-war/", "/baccarat/baccarat-social/"):
        page = browser.get(url + table, timeout=10)
        assert page.status_code == 200, table

    if name == "make run":  # it serves the sockets too
        cookie = f"sessionid={browser.cookies['sessionid']}"
        ws = url.replace("http://", "ws://") + "/ws/baccarat/baccarat-social/"
        for origin in ("http://127.0.0.1:1", "https://127.0.0.1:" + url.rsplit(":", 1)[1]):
            with pytest.raises(websocket.WebSocketBadStatusException) as refused:
                websocket.create_connection(ws, origin=origin, cookie=cookie, timeout=5)
            assert refused.value.status_code == 403
        websocket.create_connection(ws, origin=url, cookie=cookie, timeout=5).close()


def test_a_body_over_the_limit_is_refused(server):
    """A form post bigger than CASINO_MAX_BODY_BYTES never reaches a view
    (nor the password hasher): ``make run`` answers 413 before reading it
    (casino/frontdoor/, tests/casino/test_front_door.py); gunicorn, behind
    the cluster's nginx, which refuses it first, gets Django's 400."""
    name, url = server
    browser = requests.Session()
    form = browser.get(url + "/accounts/login/", timeout=10)
    response = browser.post(
        url + "/accounts/login/",
        data={
            "csrfmiddlewaretoken": CSRF.search(form.text).group(1),
            "username": "x",
            "password": "y" * (1024 * 1024 + 10),
        },
        headers={"Origin": url, "Referer": url + "/accounts/login/"},
        timeout=30,
    )
    assert response.status_code == (413 if name == "make run" else 400)
