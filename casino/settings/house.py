"""The casino's own knobs: chips and the reveal."""

from __future__ import annotations

from casino.settings.env import envbool, envfloat, envint

# In chips; the wallet stores minor units (1 chip = 100).
CASINO_STARTING_CHIPS = envint("CASINO_STARTING_CHIPS", 10_000, minimum=0)
CASINO_DAILY_TOPUP_CHIPS = envint("CASINO_DAILY_TOPUP_CHIPS", 1_000, minimum=0)
# The most an operator credits a wallet in one adjustment (a typo's extra
# zeros are refused, not paid).
CASINO_MAX_CREDIT_CHIPS = envint("CASINO_MAX_CREDIT_CHIPS", 10_000_000, minimum=1)
# The most one staff account credits in 24 hours, every player together:
# an operator who credits the cap again and again is stopped here.
CASINO_MAX_CREDIT_CHIPS_PER_DAY = envint("CASINO_MAX_CREDIT_CHIPS_PER_DAY", 50_000_000, minimum=1)
# Seconds between two cards of the reveal (normal and fast-forward).
CASINO_REVEAL_DELAY = envfloat("CASINO_REVEAL_DELAY", 0.6)
CASINO_REVEAL_FAST_DELAY = envfloat("CASINO_REVEAL_FAST_DELAY", 0.1)
# An open socket re-reads its session this often and at its expiry, and
# closes once it is gone (games/consumers/session.py).
CASINO_SOCKET_SESSION_CHECK = envfloat("CASINO_SOCKET_SESSION_CHECK", 60)
# A Baccarat socket that connects replays the result of the player's latest
# round settled this many seconds ago or less that no socket finished showing.
CASINO_REVEAL_RESUME_SECONDS = envint("CASINO_REVEAL_RESUME_SECONDS", 120, minimum=1)
# The live tables' dealer on a thread of each serving process (make run);
# the cluster runs it as its own program (manage.py live_dealer) instead.
CASINO_LIVE_DEALER = envbool("CASINO_LIVE_DEALER", True)
