"""Table names in the player's language, set by the operator, and times
written in UTC for the browser to rewrite in its own zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.template import engines
from django.urls import reverse

from games.models import AuditEntry, Table, TableVersion
from tests.admin_forms import admin_form_data as form_data

User = get_user_model()


@pytest.fixture
def operator(db):
    return User.objects.create_superuser("operator", "op@example.com", None)


def change_url(t: Table) -> str:
    return reverse("admin:games_table_change", args=[t.pk])


def test_it_names_the_preset_tables_in_japanese_on_japanese_pages(client, make_player):
    client.force_login(make_player())
    ja = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    for name in ("バカラ ソーシャル", "バカラ クラシック", "カジノ ワー"):
        assert f"<h2>{name}</h2>" in ja
    assert "<h2>Casino War</h2>" not in ja
    en = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h2>Casino War</h2>" in en
    assert "カジノ ワー" not in en


def test_a_table_without_a_japanese_name_shows_its_name(client, make_player):
    Table.objects.filter(slug="baccarat-social").update(name_ja="")
    client.force_login(make_player())
    ja = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "<h2>Baccarat Social</h2>" in ja


def test_an_operator_sets_the_japanese_name_in_the_admin_and_it_is_audited(client, operator):
    client.force_login(operator)
    war = Table.objects.get(slug="casino-war")
    versions = TableVersion.objects.filter(table=war).count()
    data = form_data(client, change_url(war))
    assert data["name_ja"] == "カジノ ワー"
    data["name_ja"] = "カジノ ウォー"
    assert client.post(change_url(war), data).status_code == 302
    war.refresh_from_db()
    assert war.name_ja == "カジノ ウォー"
    # A name is no paytable: the rounds' version stays.
    assert TableVersion.objects.filter(table=war).count() == versions
    entry = AuditEntry.objects.filter(object_id=str(war.pk)).first()
    assert (entry.before["name_ja"], entry.after["name_ja"]) == ("カジノ ワー", "カジノ ウォー")


def test_staff_who_may_only_view_tables_cannot_rename_one(client, db):
    viewer = User.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_table"))
    client.force_login(viewer)
    war = Table.objects.get(slug="casino-war")
    client.post(change_url(war), {"name": "War", "name_ja": "偽の名前", "slug": "casino-war"})
    war.refresh_from_db()
    assert war.name_ja == "カジノ ワー"
    assert not AuditEntry.objects.filter(object_id=str(war.pk)).exists()


def test_a_hostile_japanese_name_stays_text(client, make_player):
    Table.objects.filter(slug="casino-war").update(name_ja="<script>alert(1)</script>")
    client.force_login(make_player())
    ja = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "<script>alert(1)</script>" not in ja
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in ja


def test_the_admin_labels_the_current_version_in_japanese(client, operator):
    client.force_login(operator)
    war = Table.objects.get(slug="casino-war")
    page = client.get(change_url(war), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "Current version" not in page
    assert "現在のバージョン" in page
    assert "日本語名" in page


def render(source: str, **context) -> str:
    return engines["django"].from_string("{% load times %}" + source).render(context)


def test_a_time_is_written_in_utc_and_named_so_for_a_browser_without_script():
    when = datetime(2026, 12, 2, 1, 50, 16, tzinfo=UTC)
    html = render("{% local_time when %}", when=when)
    assert html == (
        '<time datetime="2026-12-02T01:50:16Z" data-local-time="seconds">2026-12-02 01:50:16 UTC</time>'
    )
    assert re.search(
        r">2026-12-02 01:50 UTC<", render('{% local_time when "minutes" %}', when=when)
    )
    assert render("{% local_time when %}", when=None) == "—"
