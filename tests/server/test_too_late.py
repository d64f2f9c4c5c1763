"""The refusal of a catch or Uno call that another message beat names what beat it (U2, U3)."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import pytest

from nomercy import Card
from nomercy.events import Caught, Drew, Event, KnockedOut, Played, UnoCalled
from nomercy.server.rooms.pipeline import Pipeline

R1 = Card.parse("R1")


@pytest.mark.parametrize(
    ("log", "says"),
    [
        ([Played(0, R1), Caught(0, 2), Drew(0, 2, None, "uno_penalty")], "P2 caught P0 first"),
        ([Played(0, R1), Caught(0, 2), Drew(0, 2, None, "uno_penalty"), KnockedOut(0, 2, 3)], "P2 caught P0"),
        ([Played(0, R1), UnoCalled(0)], "P0 called Uno first"),
        ([Caught(0, 2), Drew(0, 2, None, "uno_penalty"), Played(1, R1)], "the next turn has already begun"),
        ([Caught(0, 2), Drew(1, 1, None, "draw")], "the next turn has already begun"),
    ],
)
def test_U3_too_late_names_what_came_first(log: list[Event], says: str) -> None:
    room = SimpleNamespace(log=deque(log))
    assert says in Pipeline._too_late(None, room)  # type: ignore[arg-type]  # a room and a pipeline stand-in
