"""docs/protocol.md names every error code and every server message the models define."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

pytest.importorskip("pydantic")

from nomercy.server import protocol as P

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
