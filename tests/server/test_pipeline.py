"""The action pipeline applies each action once: the state it was tried on is kept.

An action is tried on a clone of the round's state (a refused one changes nothing), stored,
and then that clone becomes the live state; applying it to the live state a second time
would double the engine's work on every action of every room.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from nomercy.actions import Action
from nomercy.engine import GameState
from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ProtocolError
from nomercy.views import player_view

from .test_resilience import manager_for


def test_an_action_is_applied_once_and_the_state_it_was_tried_on_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Action] = []
    real = GameState.apply

    def counting(self: GameState, action: Action, seat: int | None = None) -> Any:
        calls.append(action)
        return real(self, action, seat)

    async def scenario() -> None:
        manager = manager_for(tmp_path)
        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=2, bots=0, seed=5))
        await manager.join(room.code, "Bob")
        await manager.start(room, token)
        assert room.match is not None
        # Nobody connects: the driver's stand-ins would play the seats too. Only this test acts.
        for r in list(manager.rooms.values()):
            if r.driver is not None:
                await r.driver.stop()
        monkeypatch.setattr(GameState, "apply", counting)
        for _ in range(12):
            state = room.match.state
            seat = state.current
            assert seat is not None
            action = next(a for a in player_view(state, seat).legal_actions if not a.out_of_turn)
            before = len(calls)
            await manager.apply(room, seat, action, room.version)
            assert calls[before:] == [action], "applied once, on the trial clone only"
        # A refused action leaves the live state as it was.
        state = room.match.state
        kept = state.to_dict()
        with pytest.raises(ProtocolError):
            await manager.apply(room, 1 - (state.current or 0), Action.parse("draw"), room.version)
        assert room.match.state.to_dict() == kept
        monkeypatch.undo()
        # The kept state is the replay of the stored log, record and scores included.
        stored = await asyncio.to_thread(manager.storage.load_room, room.id)
        assert stored is not None
        rebuilt = manager.rebuild(stored)
        assert rebuilt.match is not None
        assert rebuilt.match.to_dict() == room.match.to_dict()
        assert rebuilt.version == room.version == 12
        manager.storage.close()

    asyncio.run(scenario())
