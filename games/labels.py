"""Translated names of bet areas and results, shared by every screen."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

AREA_LABELS = {
    "player": _("PLAYER"),
    "banker": _("BANKER"),
    "tie": _("TIE"),
    "player_pair": _("PLAYER PAIR"),
    "banker_pair": _("BANKER PAIR"),
    "ante": _("ANTE"),
    "raise": _("RAISE"),
    "tie_bet": _("TIE BONUS"),
    "war_tie_bonus": _("Tie in war bonus"),
}

WINNER_LABELS = {
    "player": _("PLAYER WINS"),
    "banker": _("BANKER WINS"),
    "tie": _("TIE"),
}

WAR_RESULT_LABELS = {
    "win": _("You win"),
    "lose": _("Dealer wins"),
    "surrender": _("Surrendered"),
    "war_win": _("You win the war"),
    "war_lose": _("Dealer wins the war"),
    "war_tie": _("War tied: you win"),
}

# A War tie's decision, as its buttons name it.
WAR_DECISION_LABELS = {
    "war": _("WAR"),
    "surrender": _("SURRENDER"),
}
