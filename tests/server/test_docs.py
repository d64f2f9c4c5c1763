"""docs/protocol.md names every error code and every server message the models define;
docs/accounts.md every operator's command."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

pytest.importorskip("pydantic")

from nomercy.server.base import protocol as P

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def test_every_error_code_is_documented() -> None:
    codes = [v for k, v in vars(P.ErrorCode).items() if k.isupper()]
    assert "bad_host" in codes
    missing = [c for c in codes if f"| `{c}` |" not in DOC]
    assert not missing, missing


def test_every_server_message_is_documented() -> None:
    models = [P.Welcome, P.StateMessage, P.RoomMessage, P.ChatOut, P.ReactionOut, P.ErrorMessage, P.Pong]
    models += [P.Kicked, P.Paused, P.Resumed]
    for model in models:
        (kind,) = typing.get_args(model.model_fields["type"].annotation)
        assert f"| `{kind}` |" in DOC, kind


def test_every_accounts_command_is_in_the_operators_section_of_accounts_md() -> None:
    """An operator reading docs/accounts.md finds each ``nomercy accounts`` command there."""
    from nomercy.cli import accounts

    names = [c.name or (c.callback.__name__ if c.callback else "") for c in accounts.app.registered_commands]
    assert {"list", "remove", "flags", "void", "recompute", "allow"} <= set(names)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "accounts.md").read_text()
    operators = doc[doc.index("## For operators") :]
    missing = [n for n in names if f"`nomercy accounts {n}" not in operators]
    assert not missing, missing
