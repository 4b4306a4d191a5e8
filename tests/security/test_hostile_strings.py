"""Nothing a player or an operator types is ever markup, and no exported
cell is ever a formula.

Each test plants one hostile string in every field a person controls: the
player's username, e-mail and names, their client seed, two tables' names,
an adjustment's reason, the reasons given to deactivate and reactivate the
account, a void reason, a group's name and the operator's own username.
It goes in through the site's own forms where there is one (the table form,
the client-seed form, the adjustment screen, the account-state form), else
through the ORM: sign-up allows only letters, digits and @.+-_ in a
username, but an operator's script or ``manage.py shell`` can store any.

Then every page, partial, file and socket message that shows those fields
is read back, as the player, as an operator and as a visitor, and must hold
no element, attribute or script the string would have made (the HTML is
parsed, not searched); each planted value must show as written (so it was
on the page, escaped, not dropped). The CSV exports must guard each text
cell against formulas and keep numbers numbers.

The round page is read whole, its standalone Python snippet (a ``<pre>``
holding the client seed) included.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import AuditEntry, LedgerEntry, Profile, Round, Table, TableVersion
from games.services import baccarat as baccarat_service
from games.services import war as war_service
from games.services.wallet import open_account
from tests.admin_forms import admin_form_data
from tests.games.consumers.conftest import baccarat_socket

User = get_user_model()

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HTMX = {**EN, "HTTP_HX_REQUEST": "true"}

# name (the test id) -> the string
HOSTILE_BY_NAME = {
    "script": "<script>alert(1)</script>",
    "pre-breakout-refresh": "</pre><meta http-equiv=refresh content=0;url=//x>",
    "attribute-breakout": '"><img src=x onerror=alert(1)>',
    "single-quote-breakout": "'><svg onload=alert(1)>",
    "script-breakout": "</script><script>alert(1)</script>",
    "template-variable": "{{7*7}}",
    "template-tag": "{% debug %}",
    "hyperlink-formula": '=HYPERLINK("//x")',
    "semicolon-formula": ";=1+1",
    "full-width-formula": "＝1+1",
    "space-formula": " =1",
    "tab-formula": "\t=1",
    "sql": "'; DROP TABLE games_round; --",
    "right-to-left-override": "\u202egnp.exe",  # reads "exe.png"
    "header-injection": "x\r\nSet-Cookie: pwned=1",
    "long": "<img src=x onerror=alert(1)>" * 12,  # longer than every field: cut to fit
}
HOSTILE = list(HOSTILE_BY_NAME.values())
IDS = list(HOSTILE_BY_NAME)

SERVER_SEED = hashlib.sha256(b"hostile strings").hexdigest()
BACCARAT, WAR = "baccarat-classic", "casino-war"


def plant(hostile: str, tag: str, max_length: int) -> str:
    """The hostile string cut to fit a field, with a tag of its own at the
    end, so a page shows this field's copy and not another's (a trimming
    form would still trim the start)."""
    return hostile[: max_length - len(tag) - 1] + "~" + tag


# --- reading a page as a browser would ----------------------------------------------------


class _Page(HTMLParser):
    """Every element with its attributes, every script with its body, and the
    text a person reads (entities decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._script: tuple[dict[str, str | None], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self._script = (dict(attrs), [])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script[0], "".join(self._script[1])))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script[1].append(data)
        else:
            self.text.append(data)


def parsed(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def injected_markup(html: str | _Page) -> list[str]:
    """What in ``html`` only an injected string would have made: an event
    handler attribute, an inline script (the site's Content Security Policy
    allows none, so the site writes none: JSON data blocks only), a
    refresh, an image from "x", a javascript: address."""
    page = html if isinstance(html, _Page) else parsed(html)
    found = []
    for tag, attrs in page.elements:
        for name, value in attrs.items():
            if name.startswith("on"):
                found.append(f"<{tag} {name}=…>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                found.append(f"<{tag} {name}=javascript:…>")
        if tag == "meta" and "http-equiv" in attrs:
            found.append("<meta http-equiv>")
        if tag == "img" and attrs.get("src") == "x":
            found.append("<img src=x>")
    for attrs, body in page.scripts:
        if attrs.get("src"):
            continue
        if attrs.get("type") != "application/json":
            found.append(f"inline <script>: {body[:60]!r}")
            continue
        try:
            json.loads(body)
        except ValueError:
            found.append(f"broken JSON <script>: {body[:60]!r}")
    return found


def _squeezed(text: str) -> str:
    return "".join(text.split())


def shown(html: str | _Page, value: str) -> bool:
    """Whether ``value`` is on the page as written: in its text or in an
    attribute's value (a form field's), once entities are decoded. Spaces
    and line breaks are left out of the comparison: the admin shows a line
    break as <br>, which is no more markup than the break was."""
    page = html if isinstance(html, _Page) else parsed(html)
    wanted = _squeezed(value)
    if wanted in _squeezed("".join(page.text)):
        return True
    return any(
        wanted in _squeezed(v or "") for _tag, attrs in page.elements for v in attrs.values()
    )


# --- reading a CSV export as a spreadsheet would --------------------------------------------

NUMBER_COLUMNS = ("id", "version", "total_bet", "total_return", "net", "nonce")
# Starts a spreadsheet reads as a formula, in ASCII and full width.
FORMULA_CHARS = set("=+-@;＝＋－＠；﹦﹢﹣﹫﹔")


def _unseen(char: str) -> bool:
    return unicodedata.category(char)[0] in "CZ"


def formula_risk(cell: str) -> str:
    """Why a spreadsheet could run ``cell`` as a formula ("" when it cannot):
    it starts with a formula character or anything unseen, or a ; or a tab
    inside it (where a spreadsheet may start a new cell) is followed, past
    unseen characters, by a formula character."""
    if cell[:1] in FORMULA_CHARS or (cell and _unseen(cell[0])):
        return f"starts with {cell[:1]!r}"
    for piece in re.split(r"[;\t]", cell)[1:]:
        start = next((c for c in piece if not _unseen(c)), "")
        if start in FORMULA_CHARS:
            return f"a new cell inside it starts with {start!r}"
    return ""


def csv_of(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content).decode()
    header, *rows = csv.reader(io.StringIO(body, newline=""))
    return [dict(zip(header, row, strict=True)) for row in rows]


def assert_spreadsheet_safe(rows: list[dict[str, str]], what: str) -> None:
    assert rows, f"{what}: no rounds exported"
    for row in rows:
        for column, cell in row.items():
            if column in NUMBER_COLUMNS:
                assert re.fullmatch(r"-?\d+(\.\d+)?", cell), f"{what}: {column}={cell!r}"
            else:
                risk = formula_risk(cell)
                assert not risk, f"{what}: {column}={cell!r} {risk}"


def same_text(cell: str, stored: str) -> bool:
    """The guard only adds single quotes: the text is otherwise as stored."""
    return cell.replace("'", "") == stored.replace("'", "")


# --- the hostile world ----------------------------------------------------------------------


@dataclass
class World:
    hostile: str
    player: object
    operator: object
    player_client: Client
    operator_client: Client
    baccarat: Table
    war: Table
    rounds: list[Round]
    # name -> the value as stored (a form may have trimmed it)
    planted: dict[str, str] = field(default_factory=dict)
    # what the planting requests answered, read like any page
    answers: dict[str, str] = field(default_factory=dict)

    def value(self, name: str) -> str:
        return self.planted[name]


def rename_table(world_client: Client, table: Table, name: str) -> Table:
    """The operator renames a table through the admin's table form."""
    url = reverse("admin:games_table_change", args=[table.pk])
    data = {**admin_form_data(world_client, url), "name": name}
    response = world_client.post(url, data, **EN)
    assert response.status_code == 302, response.content.decode()[:2000]
    table.refresh_from_db()
    return table


def set_client_seed(world: World) -> None:
    """The player sets the client seed through the table's form; a seed the
    form refuses (too long, not printable) is stored through the ORM, as a
    row written before today's checks would hold it."""
    url = reverse("baccarat_client_seed", args=[world.baccarat.slug])
    seed = plant(world.hostile, "c", 64)
    response = world.player_client.post(url, {"client_seed": seed}, **HTMX)
    assert response.status_code == 200
    world.answers["client-seed form"] = response.content.decode()
    profile = Profile.objects.get(user=world.player)
    if profile.client_seed != seed.strip():
        assert 'data-testid="seed-error"' in world.answers["client-seed form"]
        Profile.objects.filter(pk=profile.pk).update(client_seed=seed)
    world.planted["client seed"] = Profile.objects.get(pk=profile.pk).client_seed


def play_rounds(world: World) -> None:
    """A Baccarat coup, a War round (a tie is surrendered) and a Baccarat
    coup that was then void, all through the services."""
    Profile.objects.filter(user=world.player).update(next_server_seed=SERVER_SEED)
    bac = baccarat_service.place_bet(
        user=world.player, table=world.baccarat, bets={"player": 1_000}, slip_key="bac"
    )
    war = war_service.deal(user=world.player, table=world.war, ante=1_000, tie_bet=0, slip_key="w")
    if war.status == Round.Status.OPEN:
        war_service.decide(user=world.player, round_id=war.pk, decision="surrender")
    void = baccarat_service.place_bet(
        user=world.player, table=world.baccarat, bets={"banker": 1_000}, slip_key="void"
    )
    # No screen voids a round (the repair command writes its own words); an
    # operator's script could write any reason.
    reason = plant(world.hostile, "v", 255)
    Round.objects.filter(pk=void.pk).update(status=Round.Status.VOID, void_reason=reason)
    world.planted["void reason"] = reason
    world.rounds = [Round.objects.get(pk=r.pk) for r in (bac, war, void)]


def adjust_and_toggle(world: World) -> None:
    """The operator credits the player with a reason, then deactivates and
    reactivates the account with reasons, through the operator's screens."""
    op = world.operator_client
    wallet = world.player.wallet
    adjust = reverse("admin:games_wallet_adjust")
    response = op.post(
        adjust,
        {
            "ids": str(wallet.pk),
            "direction": "credit",
            "amount": "5",
            "reason": plant(world.hostile, "a", 255),
        },
        follow=True,
        **EN,
    )
    assert response.status_code == 200
    world.answers["after an adjustment"] = response.content.decode()
    entry = LedgerEntry.objects.get(wallet=wallet, kind=LedgerEntry.Kind.ADJUSTMENT)
    world.planted["adjustment reason"] = entry.reason
    active = reverse("operator_player_active", args=[world.player.pk])
    for flag, name in (("0", "deactivate reason"), ("1", "reactivate reason")):
        reason = plant(world.hostile, name[0], 255)
        response = op.post(active, {"active": flag, "reason": reason}, follow=True, **EN)
        assert response.status_code == 200
        world.answers[f"after: {name}"] = response.content.decode()
        entry = AuditEntry.objects.filter(object_type="player").first()
        assert entry is not None and entry.after["is_active"] == (flag == "1")
        world.planted[name] = entry.after["reason"]
    world.player.refresh_from_db()
    assert world.player.is_active
    world.player_client.force_login(world.player)  # deactivating signed them out


@pytest.fixture
def world(request, db) -> World:
    hostile = request.param
    operator = User.objects.create_superuser(plant(hostile, "o", 150), None, None)
    operator_client = Client()
    operator_client.force_login(operator)

    player = User.objects.create_user(
        plant(hostile, "u", 150),
        email=plant(hostile, "m", 254),
        first_name=plant(hostile, "f", 150),
        last_name=plant(hostile, "l", 150),
    )
    open_account(user=player)
    group = Group.objects.create(name=plant(hostile, "g", 150))
    player.groups.add(group)
    player_client = Client()
    player_client.force_login(player)

    world = World(
        hostile=hostile,
        player=player,
        operator=operator,
        player_client=player_client,
        operator_client=operator_client,
        baccarat=Table.objects.get(slug=BACCARAT),
        war=Table.objects.get(slug=WAR),
        rounds=[],
        planted={
            # As stored: Django folds a username with NFKC (＝ becomes =).
            "username": player.username,
            "e-mail": player.email,
            "first name": player.first_name,
            "last name": player.last_name,
            "operator": operator.username,
            "group": group.name,
        },
    )
    rename_table(operator_client, world.baccarat, plant(hostile, "b", 80))
    rename_table(operator_client, world.war, plant(hostile, "w", 80))
    world.planted["baccarat table"] = world.baccarat.name
    world.planted["war table"] = world.war.name
    set_client_seed(world)
    play_rounds(world)
    adjust_and_toggle(world)
    return world


def read(client: Client, url: str, data: dict | None = None, **headers) -> str:
    response = client.get(url, data, **{**EN, **headers})
    assert response.status_code == 200, f"{url}: {response.status_code}"
    return response.content.decode()


def page_problems(world: World, pages: dict[str, tuple[str, list[str]]]) -> list[str]:
    """What is wrong on each page: injected markup, or a value it names not
    shown as written."""
    problems = []
    for where, (html, values) in pages.items():
        page = parsed(html)  # once a page: parsing is most of the check's cost
        problems += [f"{where}: {found}" for found in injected_markup(page)]
        problems += [
            f"{where}: the {name} ({world.value(name)!r}) is not shown as written"
            for name in values
            if not shown(page, world.value(name))
        ]
    return problems


# --- the player's pages ---------------------------------------------------------------------


def players_pages(world: World) -> dict[str, tuple[str, list[str]]]:
    c = world.player_client
    world.planted["typed"] = world.hostile
    bac, war = world.baccarat.slug, world.war.slug
    settled, war_round, void = world.rounds
    tables = ["baccarat table", "war table"]
    return {
        "client-seed form's answer": (world.answers["client-seed form"], ["client seed"]),
        "lobby": (read(c, reverse("lobby")), tables),
        "baccarat table": (read(c, reverse("baccarat_table", args=[bac])), ["baccarat table"]),
        "baccarat rules": (read(c, reverse("baccarat_rules", args=[bac])), ["baccarat table"]),
        "baccarat roads": (read(c, reverse("baccarat_roads", args=[bac])), ["baccarat table"]),
        "baccarat game history": (
            read(c, reverse("baccarat_table_history", args=[bac])),
            ["baccarat table"],
        ),
        "baccarat game history panel": (
            read(c, reverse("baccarat_table_history", args=[bac]), **HTMX),
            [],
        ),
        "war table": (read(c, reverse("war_table", args=[war])), ["war table", "client seed"]),
        "war rules": (read(c, reverse("war_rules", args=[war])), ["war table"]),
        "war menu history": (read(c, reverse("war_menu_history", args=[war]), **HTMX), []),
        "history": (read(c, reverse("history")), tables),
        "history results": (read(c, reverse("history"), **HTMX), tables),
        # A filter nobody could pick: the form says so, showing what was sent.
        "history with a hostile filter": (
            read(c, reverse("history"), {"game": world.hostile, "date_from": world.hostile}),
            ["typed"],
        ),
        "account": (read(c, reverse("account")), ["username"]),
        "war round": (
            read(c, reverse("history_round", args=[war_round.pk])),
            ["war table", "client seed"],
        ),
        "void round": (
            read(c, reverse("history_round", args=[void.pk])),
            ["baccarat table", "client seed", "void reason"],
        ),
        "round page": (
            read(c, reverse("history_round", args=[settled.pk])),
            ["baccarat table", "client seed"],
        ),
    }


def visitors_pages(world: World, client: Client) -> dict[str, tuple[str, list[str]]]:
    """A visitor reads the hostile table names as text."""
    return {
        "front page": (read(client, reverse("lobby")), ["baccarat table", "war table"]),
        "baccarat rules": (
            read(client, reverse("baccarat_rules", args=[world.baccarat.slug])),
            ["baccarat table"],
        ),
        "war rules": (
            read(client, reverse("war_rules", args=[world.war.slug])),
            ["war table"],
        ),
    }


# --- the operator's pages -------------------------------------------------------------------


def operators_site_pages(world: World) -> dict[str, tuple[str, list[str]]]:
    op = world.operator_client
    player = world.player
    settled = world.rounds[0]
    search = reverse("history_player_lookup")
    world.planted["typed"] = world.hostile.strip()[:150]
    world.planted["unknown name"] = ("no" + world.hostile).strip()
    return {
        # Each answer's message names the player.
        **{
            f"answer {where}": (html, ["username"])
            for where, html in world.answers.items()
            if where.startswith("after")
        },
        "player's history": (
            read(op, reverse("history_player", args=[player.pk])),
            ["username", "baccarat table", "war table"],
        ),
        "player's page": (
            read(op, reverse("operator_player", args=[player.pk])),
            [
                "username",
                "e-mail",
                "operator",
                "baccarat table",
                "adjustment reason",
                "deactivate reason",
                "reactivate reason",
            ],
        ),
        "player search": (read(op, search, {"q": world.hostile[:150]}), ["typed"]),
        "player search results": (
            read(op, search, {"q": player.pk}, **HTMX),
            ["username", "e-mail"],
        ),
        "an unknown player's name": (
            read(op, search, {"username": "no" + world.hostile}, follow=True),
            ["unknown name"],
        ),
        "round page as staff": (
            read(op, reverse("history_round", args=[settled.pk])),
            ["username", "baccarat table", "client seed"],
        ),
    }


def admin_pages(world: World) -> dict[str, tuple[str, list[str]]]:
    op = world.operator_client
    player = world.player
    wallet = player.wallet
    audit = AuditEntry.objects.order_by("id")
    ledger = LedgerEntry.objects.filter(wallet=wallet, kind=LedgerEntry.Kind.ADJUSTMENT).get()
    version = TableVersion.objects.filter(table=world.baccarat).latest("number")
    world.planted["typed"] = world.hostile[:100]
    pages = {
        # Its recent actions name the tables the operator renamed.
        "admin index": (read(op, reverse("admin:index")), ["baccarat table", "war table"]),
        "dashboard": (read(op, reverse("admin:games_dashboard")), ["baccarat table"]),
        "tables": (
            read(op, reverse("admin:games_table_changelist")),
            ["baccarat table", "war table"],
        ),
        "table": (
            read(op, reverse("admin:games_table_change", args=[world.baccarat.pk])),
            ["baccarat table"],
        ),
        "table's history": (
            read(op, reverse("admin:games_table_history", args=[world.baccarat.pk])),
            ["operator"],
        ),
        "versions": (
            read(op, reverse("admin:games_tableversion_changelist")),
            ["baccarat table"],
        ),
        "version": (
            read(op, reverse("admin:games_tableversion_change", args=[version.pk])),
            ["baccarat table"],
        ),
        "wallets": (read(op, reverse("admin:games_wallet_changelist")), ["username"]),
        "wallets searched": (
            read(op, reverse("admin:games_wallet_changelist"), {"q": world.hostile[:100]}),
            ["typed"],
        ),
        "wallet": (
            read(op, reverse("admin:games_wallet_change", args=[wallet.pk])),
            ["username"],
        ),
        "adjustment screen": (
            read(op, reverse("admin:games_wallet_adjust"), {"ids": wallet.pk}),
            ["username"],
        ),
        "ledger": (
            read(op, reverse("admin:games_ledgerentry_changelist")),
            ["username", "adjustment reason", "operator"],
        ),
        "ledger entry": (
            read(op, reverse("admin:games_ledgerentry_change", args=[ledger.pk])),
            ["adjustment reason"],
        ),
        "rounds": (
            read(op, reverse("admin:games_round_changelist")),
            ["username", "baccarat table"],
        ),
        "profiles": (read(op, reverse("admin:games_profile_changelist")), ["username"]),
        "profile": (
            read(op, reverse("admin:games_profile_change", args=[player.profile.pk])),
            ["username", "client seed"],
        ),
        "users": (
            read(op, reverse("admin:auth_user_changelist")),
            ["username", "e-mail", "first name", "last name"],
        ),
        "user": (
            read(op, reverse("admin:auth_user_change", args=[player.pk])),
            ["username", "e-mail", "first name", "last name", "group"],
        ),
        "groups": (read(op, reverse("admin:auth_group_changelist")), ["group"]),
        "group": (
            read(op, reverse("admin:auth_group_change", args=[player.groups.get().pk])),
            ["group"],
        ),
        "audit log": (
            read(op, reverse("admin:games_auditentry_changelist")),
            [
                "operator",
                "username",
                "baccarat table",
                "adjustment reason",
                "deactivate reason",
            ],
        ),
    }
    for round_ in world.rounds:
        url = reverse("admin:games_round_change", args=[round_.pk])
        pages[f"round {round_.pk}"] = (read(op, url), ["username"])
    for entry in audit:
        url = reverse("admin:games_auditentry_change", args=[entry.pk])
        pages[f"audit entry {entry.action}"] = (read(op, url), ["operator"])
    return pages


# --- the CSV exports ------------------------------------------------------------------------


def check_exports(world: World) -> None:
    """No exported cell is a formula, numbers stay numbers, and each text
    cell is the stored text."""
    today = timezone.localdate().isoformat()
    exports = {
        "player's own export": world.player_client.get(reverse("history_export"), **EN),
        "operator's export of the player": world.operator_client.get(
            reverse("history_player_export", args=[world.player.pk]), **EN
        ),
        "floor export": world.operator_client.get(
            reverse("admin:games_floor_export"), {"date_from": today, "date_to": today}, **EN
        ),
    }
    stored = {r.pk: r for r in Round.objects.select_related("player", "table")}
    for what, response in exports.items():
        disposition = response["Content-Disposition"]
        assert re.fullmatch(
            r'attachment; filename(="[^"\\\r\n]*"|\*=utf-8\'\'[\w%.~-]+)', disposition
        ), f"{what}: {disposition!r}"
        rows = csv_of(response)
        assert_spreadsheet_safe(rows, what)
        for row in rows:
            rnd = stored[int(row["id"])]
            assert same_text(row["player"], rnd.player.username), what
            assert same_text(row["table"], rnd.table.slug), what
            assert same_text(row["client_seed"], rnd.client_seed), what
        assert any(same_text(row["player"], world.planted["username"]) for row in rows), what
        assert any(same_text(row["client_seed"], world.planted["client seed"]) for row in rows)


# --- each hostile string, planted once and read everywhere -----------------------------------


@pytest.mark.parametrize("world", HOSTILE, ids=IDS, indirect=True)
def test_a_hostile_string_is_only_text_on_every_page_and_never_a_formula(world, client):
    """The world is planted once per string (its set-up is most of the
    cost) and every reader's pages are read from it: the player's, a
    visitor's, the operator's site pages and the operator console. Every
    problem of every page is reported together; then the exports."""
    problems = []
    for reader, pages in (
        ("player", players_pages),
        ("visitor", lambda world: visitors_pages(world, client)),
        ("operator's site", operators_site_pages),
        ("operator console", admin_pages),
    ):
        problems += [f"{reader}, {problem}" for problem in page_problems(world, pages(world))]
    assert not problems, "\n".join(problems)
    check_exports(world)


@pytest.mark.parametrize("hostile", HOSTILE, ids=IDS)
def test_a_hostile_string_typed_into_a_form_is_refused_and_comes_back_as_text(
    hostile, admin_client
):
    """Sign-up takes letters, digits and @.+-_ only in a username: anything
    else is refused with a message, nothing is made, and the form shows what
    was typed as text; a failed log-in shows it the same way. A table's
    address takes letters, digits, - and _ only: the table form refuses
    anything else with a message, shows it as typed, saves nothing."""
    users = User.objects.count()
    password = "pw-Secret-123"
    typed = plant(hostile, "s", 150)
    signup = Client().post(
        reverse("signup"),
        {"username": typed, "password1": password, "password2": password},
        **EN,
    )
    assert signup.status_code == 200
    assert "errorlist" in signup.content.decode()
    assert User.objects.count() == users
    login = Client().post(reverse("login"), {"username": typed, "password": "wrong"}, **EN)
    assert login.status_code == 200
    problems = []
    for where, response in (("sign-up", signup), ("log-in", login)):
        html = response.content.decode()
        problems += [f"{where}: {found}" for found in injected_markup(html)]
        if not shown(html, typed.strip()):
            problems.append(f"{where}: {typed!r} is not shown as typed")
    assert not problems, "\n".join(problems)

    table = Table.objects.get(slug=BACCARAT)
    url = reverse("admin:games_table_change", args=[table.pk])
    slug = plant(hostile, "s", 50)
    response = admin_client.post(url, {**admin_form_data(admin_client, url), "slug": slug}, **EN)
    assert response.status_code == 200
    html = response.content.decode()
    assert "errorlist" in html
    assert not injected_markup(html), injected_markup(html)
    assert shown(html, slug.strip())
    assert Table.objects.get(pk=table.pk).slug == BACCARAT
    assert not AuditEntry.objects.exists()


# --- a socket message -----------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_reveal_at_a_hostile_table_sends_no_markup(settings):
    """The reveal's messages carry no name today; were one added unescaped,
    this would catch it."""
    settings.CASINO_REVEAL_DELAY = 0.01
    settings.CASINO_REVEAL_FAST_DELAY = 0.001
    hostile = HOSTILE_BY_NAME["attribute-breakout"]

    def arrange():
        player = User.objects.create_user(hostile, email=hostile)
        open_account(user=player)
        Table.objects.filter(slug=BACCARAT).update(name=plant(hostile, "b", 80))
        Profile.objects.filter(user=player).update(
            client_seed=hostile, next_server_seed=SERVER_SEED
        )
        return player

    player = await database_sync_to_async(arrange)()
    communicator = await baccarat_socket(player, slug=BACCARAT)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    table = await database_sync_to_async(Table.objects.get)(slug=BACCARAT)
    await database_sync_to_async(baccarat_service.place_bet)(
        user=player, table=table, bets={"player": 1_000}, slip_key="socket"
    )
    messages = []
    while not any('data-phase="done"' in m for m in messages):
        messages.append(await communicator.receive_from(timeout=5))
    await communicator.disconnect()
    for message in messages:
        assert not injected_markup(message), message[:500]
