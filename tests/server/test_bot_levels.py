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


def test_a_character_plays_at_a_level_the_host_chooses(server: ServerProcess) -> None:
    opts = httpx.get(server.url + "/api/options", timeout=10).json()
    assert opts["levels"] == ["beginner", "casual", "strong", "expert"]
    assert opts["characters"] == {
        name: ["beginner", "casual", "strong"] for name in ("stacker", "hoarder", "gambler")
    }
    room = create_room(server, seats=3, bots=2, bot="strong", character="stacker")["room"]
    assert room["bot"] == "strong" and room["character"] == "stacker"
    assert [s["nickname"] for s in room["seats"][1:]] == [
        "Bot 1 (stacker, strong)",
        "Bot 2 (stacker, strong)",
    ]
    plain = create_room(server, seats=2, bots=1, bot="casual")["room"]
    assert plain["character"] is None


def test_a_character_at_a_level_it_does_not_play_or_unknown_is_refused(server: ServerProcess) -> None:
    for body, words in (
        ({"bot": "expert", "character": "stacker"}, "beginner, casual, strong level, not 'expert'"),
        ({"bot": "random", "character": "gambler"}, "not 'random'"),
        ({"bot": "casual", "character": "bluffer"}, "unknown character 'bluffer': choose from stacker"),
    ):
        r = httpx.post(
            server.url + "/api/rooms", json={"nickname": "A", "seats": 2, "bots": 1, **body}, timeout=10
        )
        assert r.status_code == 400 and words in r.json()["detail"]["message"], (body, r.text)


def test_bot_specs_carry_a_level() -> None:
    import pytest

    from nomercy import bots

    assert bots.parse_spec("Stacker:level=strong") == ("stacker", {"level": "strong"})
    made = bots.make("gambler:level=beginner", seed=3)
    assert type(made).__name__ == "GamblerBot" and made.level == "beginner"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="write it as name=value"):
        bots.make("stacker:strong")
    with pytest.raises(ValueError, match="level is one of"):
        bots.make("stacker:level=godlike")
