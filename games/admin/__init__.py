"""The operator console (Django admin).

Tables are edited through a form that shows amounts in chips and the
paytable as one field per multiplier, each with its exact RTP beside it,
refreshed over htmx while the operator types (``games.views.operator``).
Saving goes through ``games.services.tables.save_table``: a change to the
paytable or limits makes a new TableVersion (rounds in progress keep theirs)
and every change is written to the audit log. Wallets, the ledger, rounds and
the audit log are read-only here; chips move only through the adjustment
screen, which calls ``games.services.wallet.adjust_balance``.

Permissions are Django's model permissions: ``games.change_table`` edits
tables, ``games.change_wallet`` adjusts balances, the view permissions only
look. Staff are given them through roles (``games.services.staff.ROLES``,
created by ``setup_casino``). Accounts and roles have pages of their own
(``users``) instead of Django's stock ones: only a superuser grants staff or
superuser status, roles or permissions, or changes a staff account, and
every change is audited.

Django's autodiscovery imports this package: importing the modules below
registers their ModelAdmins.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.admin import audit, play_safe, players, tables, third_party, users

__all__ = ["audit", "play_safe", "players", "tables", "users"]

third_party.name_the_apps()

admin.site.site_header = _("The Casino · operator console")
admin.site.site_title = _("The Casino operator console")
admin.site.index_title = _("Tables, players and the audit log")
