"""Error reports that never carry a server seed.

Django's error reports (the technical 500 page with debug on, the mail to
ADMINS with it off) list every local variable of every frame. A round in
progress holds its player's next server seed in several of them (the
profile's row, the ``Seeds`` being dealt), so an error there would hand the
seed to whoever reads the report: a developer, a mailbox, a ticket. This
filter replaces any 64-digit hex run and any sealed token in a frame's
variables with Django's cleansed marker, and every variable of the code that
deals (the services, the rules, the shuffle), with debug on as well as off.
SHA-256 commitments are 64 hex digits too and go the same way; they are
public, so nothing is lost that the round page does not show.
"""

from __future__ import annotations

from typing import Any

from django.views.debug import SafeExceptionReporterFilter

from casino.logs import SEED_PATTERN

# A 32-byte seed in hex, and a Fernet token (games/sealing.py) of any length:
# the logs clean their lines with the same pattern (and more).
SECRET_PATTERN = SEED_PATTERN


# Modules whose frames hold shoes, hands and seeds while a round is dealt.
DEALING_MODULES = (
    "games.cards",
    "games.baccarat.",
    "games.war.",
    "games.verify",
    "games.sealing",
    "games.services.",
)


def scrub(text: str, substitute: str) -> str:
    return SECRET_PATTERN.sub(substitute, text)


class SeedSafeExceptionReporterFilter(SafeExceptionReporterFilter):
    def is_active(self, request: Any) -> bool:
        # Django cleanses only with debug off; seeds are cleansed always.
        return True

    def get_traceback_frame_variables(self, request: Any, tb_frame: Any) -> Any:
        variables = super().get_traceback_frame_variables(request, tb_frame)
        if str(tb_frame.f_globals.get("__name__", "")).startswith(DEALING_MODULES):
            # A shoe, a hand or the cards still to come are as telling as the
            # seed: the code that deals shows none of its variables.
            return [(name, self.cleansed_substitute) for name, _value in variables]
        cleaned = []
        for name, value in variables:
            try:
                shown = repr(value)
            except Exception:  # the report must not fail on a broken repr
                shown = "<unrepresentable>"
            if SECRET_PATTERN.search(shown):
                value = scrub(shown, self.cleansed_substitute)
            cleaned.append((name, value))
        return cleaned
