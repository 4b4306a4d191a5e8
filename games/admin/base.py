"""What the read-only pages of the operator console share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from django.contrib import admin
from django.db.models import Model
from django.utils.translation import gettext_lazy as _

from games.sealing import SealedSeedField, SealError

UNOPENED = _("Sealed under a key this site no longer holds (docs/security.md: rotating the key).")


class ReadOnlyAdmin(admin.ModelAdmin):
    def get_queryset(self, request):
        # A sealed server seed is opened only where a page shows it (a
        # profile's next seed hash, a settled round's seed): a list shows
        # none, and one seed sealed under a key the site no longer holds
        # must not take a whole page down with it.
        return (
            super()
            .get_queryset(request)
            .defer(*sealed_fields(self.model, self.list_select_related))
        )

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def sealed_fields(model: type[Model], related: bool | Sequence[str] = ()) -> list[str]:
    """The sealed seeds of ``model`` and of the ``related`` models a list
    reads with it (its ``list_select_related``), as ``defer()`` names them."""
    paths = [""] + ([f"{name}__" for name in related] if isinstance(related, (list, tuple)) else [])
    names = []
    for path in paths:
        target = model
        for step in path.split("__")[:-1]:
            target = cast("type[Model]", target._meta.get_field(step).related_model)
        names += [
            path + f.name for f in target._meta.concrete_fields if isinstance(f, SealedSeedField)
        ]
    return names


def opened_seed(obj: Model, name: str) -> str | None:
    """The sealed seed ``obj.<name>`` in clear, or None where no key this
    site holds opens it (the page says so: ``UNOPENED``)."""
    try:
        return getattr(obj, name)
    except SealError:
        return None
