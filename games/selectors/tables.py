"""Reads of one game table by its slug (with its current version)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404

from games.models import Game, Table


def game_table(slug: str, game: str) -> Table:
    """The table, with its current version in the same query; 404 when it does not exist."""
    return get_object_or_404(Table.objects.select_related("current_version"), slug=slug, game=game)


def baccarat_table(slug: str) -> Table:
    return game_table(slug, Game.BACCARAT)


def war_table(slug: str) -> Table:
    return game_table(slug, Game.WAR)
