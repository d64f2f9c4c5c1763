"""Name keys: every account's ``name_key`` recomputed by the Unicode TR39 skeleton
(``nomercy.server.base.names.name_key``), which replaced a hand-made look-alike list after the
accounts of earlier releases were made.

Oldest account first, each gets its new key. Two accounts whose names the old keys told
apart and the new ones do not: the older keeps the key, the newer gets one of its own that
no name can have (the key, a tab, its id), so that both accounts and everything they own
stay, and no third look-alike can register (the older one's key refuses it). The log says
which accounts collided. No column changes: a process of the release before keeps running
during a rolling upgrade (it computes keys the old way for new sign-ups until it stops).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

log = logging.getLogger("nomercy.server.base.migrations")

#: The stored key's length (``nomercy_accounts.name_key``).
KEY_MAX = 96


def kept_apart(key: str, account_id: str) -> str:
    """A key of the newer of two look-alike accounts: unique (its id), never a name's own
    key (a name's key holds no tab: white space is one space), within the column."""
    suffix = "\t" + account_id
    return key[: KEY_MAX - len(suffix)] + suffix


def new_keys(rows: list[tuple[str, str, str]]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(id, name, old key) oldest first -> each id's new key, and the (newer, older) pairs
    of accounts whose names the new keys cannot tell apart."""
    from nomercy.server.base.names import name_key

    keys: dict[str, str] = {}
    holder: dict[str, str] = {}
    collided: list[tuple[str, str]] = []
    for account_id, name, _old in rows:
        key = name_key(name)
        if key in holder:
            collided.append((account_id, holder[key]))
            key = kept_apart(key, account_id)
        else:
            holder[key] = account_id
        keys[account_id] = key
    return keys, collided


def upgrade() -> None:
    conn = op.get_bind()
    rows = [
        (str(r.id), str(r.name), str(r.name_key))
        for r in conn.execute(
            sa.text("SELECT id, name, name_key FROM nomercy_accounts ORDER BY created_at, id")
        )
    ]
    keys, collided = new_keys(rows)
    changed = [(account_id, keys[account_id]) for account_id, _name, old in rows if keys[account_id] != old]
    update = sa.text("UPDATE nomercy_accounts SET name_key = :key WHERE id = :id")
    # Two steps, so that no key is briefly held twice (the column is unique): first a key
    # of each account's own, then the new one.
    for account_id, _key in changed:
        conn.execute(update, {"key": kept_apart("", account_id), "id": account_id})
    for account_id, key in changed:
        conn.execute(update, {"key": key, "id": account_id})
    names = {account_id: name for account_id, name, _old in rows}
    for newer, older in collided:
        log.warning(
            "name keys: account %s (%r) looks like the older account %s (%r): the older keeps "
            "the name's key, the newer a key of its own",
            newer,
            names[newer],
            older,
            names[older],
        )
    log.info(
        "name keys: %d of %d accounts rekeyed, %d look-alikes kept apart",
        len(changed),
        len(rows),
        len(collided),
    )


def downgrade() -> None:
    """Nothing to undo: the keys stay unique, and the old way of computing them is gone."""
