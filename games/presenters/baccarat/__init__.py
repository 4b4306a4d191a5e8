"""The Baccarat table's view models: the board, the bet areas, the roads,
the squeeze (toggle, navigator, peeled card) and the context of each partial
of ``baccarat/table.html`` that the page, BET's answer and the websocket
reveal render. One module per part; every name is also here, so callers
write ``presenter.board_view`` whatever module holds it."""

from __future__ import annotations

from games.presenters.baccarat.answers import *  # noqa: F403
from games.presenters.baccarat.board import *  # noqa: F403
from games.presenters.baccarat.contexts import *  # noqa: F403
from games.presenters.baccarat.reveal import *  # noqa: F403
from games.presenters.baccarat.roads import *  # noqa: F403
from games.presenters.baccarat.squeeze import *  # noqa: F403
