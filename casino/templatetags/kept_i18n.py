"""Django's ``i18n`` template library, with ``{% translate "literal" %}``
rendered once per language and kept.

A constant message's output depends only on the language and on whether
the template escapes: the tag's node keeps it per (language, autoescape).
Every other form of the tag (a variable, a filter, ``as``, ``context``,
``noop``) and every other tag of the library are Django's own. The site's
templates load it as ``{% load kept_i18n %}`` in place of ``i18n``
(tests/casino/test_kept_i18n.py checks that each does).

Why: a socket round renders about forty constant messages (the reveal's
steps, the answer fragments); each cost 5-9 microseconds through
``gettext`` and ``render_value_in_context``, a tenth of the round's
template CPU.
"""

from __future__ import annotations

from django import template
from django.template.base import Node, Parser, Token
from django.templatetags import i18n
from django.utils.translation import get_language

register = template.Library()
register.tags.update(i18n.register.tags)
register.filters.update(i18n.register.filters)


class KeptTranslateNode(i18n.TranslateNode):
    """A ``{% translate %}`` whose message is a literal, kept once rendered."""

    def __init__(self, node: i18n.TranslateNode) -> None:
        super().__init__(node.filter_expression, node.noop, node.asvar, node.message_context)
        self.kept: dict[tuple[str | None, bool], str] = {}

    def render(self, context: template.Context) -> str:
        key = (get_language(), context.autoescape)
        value = self.kept.get(key)
        if value is None:
            value = self.kept[key] = super().render(context)
        return value


def _constant(node: Node) -> bool:
    if not isinstance(node, i18n.TranslateNode) or type(node) is not i18n.TranslateNode:
        return False
    expression = node.filter_expression
    var = expression.var
    return (
        not node.noop
        and node.asvar is None
        and node.message_context is None
        and not expression.filters
        and isinstance(var, template.Variable)
        and var.lookups is None  # a literal: "..." or '...'
        and isinstance(var.literal, str)
    )


@register.tag("translate")
@register.tag("trans")
def do_translate(parser: Parser, token: Token) -> Node:
    node = i18n.do_translate(parser, token)
    return KeptTranslateNode(node) if _constant(node) else node
