"""The Casino War table's view models: the felt (cards, spots, the round
region and its tie decision), the contexts of the table, its menu and its
rules page, and DEAL's and the decision's answers. One module per part;
every name is also here, so callers write ``presenter.round_view`` whatever
module holds it."""

from __future__ import annotations

from games.presenters.war.answers import *  # noqa: F403
from games.presenters.war.board import *  # noqa: F403
from games.presenters.war.contexts import *  # noqa: F403
