"""Admin list filters from the page's own filters only.

Django's admin applies any lookup on a model's own fields that a URL names
(``?pin_hash__startswith=argon2``, ``?key__regex=^a``), so staff allowed to
view a list could read a hidden column one character at a time by counting
the rows each guess leaves. Here a changelist takes only the lookups its
``list_filter`` and ``date_hierarchy`` make (and the related-object popups'
``limit_choices_to``); anything else is refused as Django refuses a foreign
lookup it does not know: the "incorrect lookup" page, nothing filtered.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.filters import SimpleListFilter
from django.db.models.constants import LOOKUP_SEP


def listed_lookups(model_admin: admin.ModelAdmin, request: Any) -> set[str]:
    """The parameter names the changelist's own filters build on."""
    names: set[str] = set()
    if model_admin.date_hierarchy:
        names.add(model_admin.date_hierarchy)
    items = model_admin.get_list_filter(request) if request is not None else model_admin.list_filter
    for item in items:
        if isinstance(item, type) and issubclass(item, SimpleListFilter):
            names.add(str(item.parameter_name))
        elif isinstance(item, (list, tuple)):
            names.add(str(item[0]))
        else:
            names.add(str(item))
    return names


class ListedLookupsOnly:
    """A ``ModelAdmin`` whose changelist filters by its own filters only."""

    def lookup_allowed(self, lookup: str, value: Any, request: Any = None) -> bool:
        model_admin: Any = self
        for fk_lookup in model_admin.model._meta.related_fkey_lookups:
            if callable(fk_lookup):
                fk_lookup = fk_lookup()
            if (lookup, value) in widgets.url_params_from_lookup_dict(fk_lookup).items():
                return True
        names = listed_lookups(model_admin, request)
        if not any(lookup == name or lookup.startswith(name + LOOKUP_SEP) for name in names):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]
