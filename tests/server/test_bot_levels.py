"""The server offers the bot levels and characters: listed by /api/options, accepted by a room."""

from __future__ import annotations

import httpx

from .conftest import ServerProcess, create_room


def test_options_list_the_levels_and_characters_and_a_room_takes_one(server: ServerProcess) -> None:
    opts = httpx.get(server.url + "/api/options", timeout=10).json()
    levels = {"beginner", "casual", "strong", "expert", "stacker", "hoarder", "gambler"}
    assert levels | {"random", "heuristic"} <= set(opts["bots"])
    # listed as a player chooses: the levels weakest first, then the characters
    assert opts["bots"][:7] == ["beginner", "casual", "strong", "expert", "stacker", "hoarder", "gambler"]
    for bot in ("beginner", "stacker", "gambler", "heuristic"):
        room = create_room(server, seats=3, bots=2, bot=bot)
        assert room["code"]
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "bot": "grandmaster"}, timeout=10)
    assert r.status_code == 400 and "stacker" in r.json()["detail"]["message"]
