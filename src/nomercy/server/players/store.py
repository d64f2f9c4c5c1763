"""The account store as every part keeps it: what deleting an account removes, in one place.

The server (``app.py``) and the operator's ``nomercy accounts remove`` both build their
store here, so a removal by the operator is as whole as the player's own deletion.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from nomercy.server.players.accounts import AccountStore
from nomercy.server.players.daily import DailyStore
from nomercy.server.players.ratings import forget_account


def account_store(engine: Engine) -> AccountStore:
    """An account store whose deletions also remove the account's ratings and daily results."""
    store = AccountStore(engine)
    store.on_delete.extend([forget_account, DailyStore(engine).forget])
    return store
