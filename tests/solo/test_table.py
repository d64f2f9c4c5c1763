"""The solo table (``nomercy.solo``): the server's protocol to one person, played against
the engine itself.

Every message it sends is validated against the server's own pydantic models, so the
page's table and the online one cannot drift apart; its rounds end exactly as the
engine's replay of the same seed and moves; what it keeps replays; a saved table resumes;
a refused move changes nothing; and no message carries another seat's cards (H1).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from nomercy.engine import GameState
from nomercy.match import Match
from nomercy.record import GameRecord, replay
from nomercy.server.base import protocol as P
from nomercy.solo import table as solo
from nomercy.solo import worker
from nomercy.solo.table import SoloError, SoloTable, make_bot
from nomercy.views import player_view

from .play import NO_WAIT, choose, play
from .play import table as new_table

MODELS: dict[str, type[Any]] = {
    "welcome": P.Welcome,
    "state": P.StateMessage,
    "room": P.RoomMessage,
    "chat_history": P.ChatHistory,
    "error": P.ErrorMessage,
    "hint": P.HintOut,
    "pong": P.Pong,
    "chat": P.ChatOut,
    "reaction": P.ReactionOut,
}


def valid(message: dict[str, Any]) -> None:
    """The message is one the server could send: its model accepts it, and dumps it back
    unchanged (no field missing, none extra, no value coerced)."""
    model = MODELS[message["type"]].model_validate(message)
    assert model.model_dump(mode="json") == json.loads(json.dumps(message))


def test_the_protocol_version_is_the_servers() -> None:
    assert solo.PROTOCOL_VERSION == P.PROTOCOL_VERSION


def test_every_message_of_a_match_is_a_server_message() -> None:
    t = new_table(3, ["casual", "careful", "stacker"], mode="match")
    for message in t.hello():
        valid(message)
    count = 0

    def seen(messages: list[dict[str, Any]]) -> None:
        nonlocal count
        for message in messages:
            valid(message)
            count += 1

    play(t, random.Random(3), seen)
    assert count > 100 and t.finished
    for message in (
        {"type": "ping"},
        {"type": "chat", "text": "gg all"},
        {"type": "react", "reaction": "wow"},
        {"type": "hello", "room": "SOLO23", "token": None},
        {"type": "action", "action": "draw", "version": 0, "id": "a1"},
        {"type": "nonsense"},
        {"type": "hint"},
    ):
        for answer in t.receive(message):
            valid(answer)
    for answer in t.rematch():
        valid(answer)
    assert t.room_info()["round"] == 1 and not t.finished


def test_a_hint_is_one_of_the_persons_choices() -> None:
    t = new_table(11, ["random"])
    t.run_bots()
    [hint] = t.receive({"type": "hint"})
    valid(hint)
    offered = [c["action"] for c in t.state_message([])["decisions"]["choices"]]
    assert hint["decision"]["action"] in offered and 0 <= hint["win"] <= 1
    assert t.match.record.hints == [(0, len(t.match.record.actions))]


def final_states(t: SoloTable, rng: random.Random) -> list[GameState]:
    """Play the game; the state each round ended in."""
    ends: list[GameState] = []

    def seen(messages: list[dict[str, Any]]) -> None:
        if t.match.round_over and (not ends or ends[-1] is not t.match.state):
            ends.append(t.match.state)

    play(t, rng, seen)
    return ends


PLAIN = ["random", "careful", "beginner", "casual", "stacker"]
SEARCHING = ["strong", "expert", "gambler:level=strong"]
CASES = [
    (1, 2, "round", PLAIN), (2, 3, "round", PLAIN), (3, 4, "round", PLAIN), (4, 5, "round", PLAIN),
    (5, 6, "round", PLAIN), (6, 2, "match", PLAIN), (7, 4, "match", PLAIN), (8, 6, "match", PLAIN),
    (9, 4, "round", SEARCHING),
]  # fmt: skip


@pytest.mark.parametrize(("seed", "players", "mode", "levels"), CASES)
def test_rounds_end_as_the_engine_replays_them(seed: int, players: int, mode: str, levels: list[str]) -> None:
    """E1-E4: each kept round replays to the solo table's result, every seat's view and
    the hands; a match's scores are those of the engine's Match over the same moves."""
    t = new_table(seed, levels[: players - 1], mode=mode)
    ends = final_states(t, random.Random(seed))
    records = t.kept()
    assert len(records) == len(ends) == len(t.match.rounds) >= 1
    assert t.kept() == []  # taken once
    engine = Match(players, t.rules, seed)
    for number, (data, end) in enumerate(zip(records, ends, strict=True)):
        record = GameRecord.from_dict(json.loads(json.dumps(data)))
        again = replay(record)
        result = t.match.rounds[number]
        assert again.outcome is not None
        assert (again.outcome.winner, again.outcome.reason, again.outcome.points) == (
            result.winner,
            result.reason,
            result.points,
        )
        for seat in range(players):
            assert player_view(again, seat).to_dict() == player_view(end, seat).to_dict()
        assert [list(h) for h in again.hands] == [list(h) for h in end.hands]
        if number:
            engine.next_round()
        for seat, action in record.actions:
            engine.apply(action, seat)
    assert engine.scores == t.match.scores
    info = t.room_info()
    assert info["scores"] == engine.scores
    assert info["match_winner"] == (engine.winner if mode == "match" else engine.rounds[-1].winner)


def test_the_kept_record_replays_in_the_worker_as_the_server_answers() -> None:
    """The page's replay is the server's ``POST /api/records/replay`` answer."""
    from nomercy.server.games.replays import replay_frames, result_of

    t = new_table(21, ["casual", "casual"])
    play(t, random.Random(21))
    [data] = t.kept()
    body = json.loads(worker.replay(json.dumps(data)))
    record = GameRecord.from_dict(data)
    served = replay_frames(record)
    assert body["frames"] == json.loads(json.dumps(served.frames))
    assert body["result"] == result_of(served.state)
    assert body["players"] == [{"seat": s, "name": f"P{s}", "bot": None} for s in range(3)]
    refused = json.loads(worker.replay(json.dumps({**data, "actions": [[0, "play R1"], *data["actions"]]})))
    assert refused["detail"]["step"] == "replay" and refused["detail"]["index"] == 0


@pytest.mark.parametrize("mode", ["round", "match"])
def test_a_saved_table_resumes_where_it_was_and_plays_on_alike(mode: str) -> None:
    t = new_table(31, ["casual", "strong", "gambler"], mode=mode)
    rng = random.Random(31)
    play(t, rng, stop=lambda t: t.version >= 60 and t.due() < 0)
    saved = t.save()
    again = SoloTable.load(saved)
    assert again.hello() == t.hello()
    assert again.save() == saved
    other = random.Random(7)
    rng2 = random.Random(7)
    play(t, other)
    play(again, rng2)
    assert again.save() == t.save()
    assert again.kept() == t.kept()


def test_the_worker_loads_what_it_saved() -> None:
    first = json.loads(
        worker.start(json.dumps({"name": "Ada", "bots": ["casual"], "seed": 4, "delays": NO_WAIT}))
    )
    assert [m["type"] for m in first] == ["welcome", "state", "chat_history"]
    saved = worker.save()
    assert json.loads(worker.load(saved)) == first
    assert json.loads(worker.load("{"))[0]["code"] == "bad_record"


def test_an_illegal_move_is_refused_as_the_server_refuses_it_and_changes_nothing() -> None:
    """T1: a card that does not match is refused (``illegal_action``) with the version;
    a stale version and a move out of turn likewise; the table is exactly as it was."""
    t = new_table(41, ["casual", "casual"])
    t.run_bots()
    before = t.save()
    view = t.state_message([])["view"]
    blocked = t.state_message([])["decisions"]["blocked"]
    tries = [
        ({"type": "action", "action": "play R99", "version": t.version, "id": "x"}, "invalid_action"),
        ({"type": "action", "action": "draw", "version": t.version + 5}, "stale"),
        ({"type": "action", "action": "catch 1", "version": t.version}, None),
    ]
    if blocked:
        tries.append(({"type": "action", "action": f"play {blocked[0]['card']}", "version": t.version}, None))
    for message, code in tries:
        [error] = t.receive(message)
        valid(error)
        assert error["type"] == "error" and error["version"] == t.version
        assert code is None or error["code"] == code, error
        assert error["ref"] == message.get("id")
        assert t.save() == before and t.state_message([])["view"] == view


def test_the_persons_messages_never_carry_another_seats_cards() -> None:
    """H1: every message of a match holds seat 0's hand only, other seats' draws without
    their cards (but a Roulette's, which turn up face up, W4), and every hand only once
    the round is over (``reveal``)."""
    t = new_table(51, ["casual", "gambler", "stacker", "random"], mode="match")

    def seen(messages: list[dict[str, Any]]) -> None:
        for message in messages:
            if message["type"] != "state":
                text = json.dumps(message)
                assert '"hand"' not in text and '"hands"' not in text
                continue
            view = message["view"]
            assert view["seat"] == 0
            assert view["hand"] == [c.code for c in t.match.state.hands[0]]
            assert (message["reveal"] is None) == (view["outcome"] is None)
            for event in message["events"]:
                if event["type"] == "drew" and event["seat"] != 0 and event["reason"] != "roulette":
                    assert event["cards"] is None
                if "hands" in event:
                    assert all(hand is None for seat, hand in enumerate(event["hands"]) if seat != 0)

    play(t, random.Random(51), seen)


def test_a_table_refuses_what_it_does_not_offer() -> None:
    with pytest.raises(SoloError, match="numpy"):
        make_bot("learned")
    with pytest.raises(SoloError, match="level"):
        make_bot("stacker:level=expert")
    with pytest.raises(SoloError):
        SoloTable({"bots": []})
    with pytest.raises(SoloError):
        SoloTable({"bots": ["casual"], "rules": {"deck": {"R1": 1000}}})
    assert json.loads(worker.start('{"bots": ["nobody"]}'))[0]["code"] == "bad_request"


def test_the_bots_and_the_next_round_wait_their_delays() -> None:
    """The table acts only when due: a bot after ``bot_delay``, the next round of a match
    after ``between_rounds``; -1 while the person decides."""
    now = [100.0]
    t = SoloTable({"bots": ["casual"], "seed": 61, "mode": "match"}, clock=lambda: now[0])
    rng = random.Random(61)
    while not t.finished:
        wait = t.due()
        if wait < 0:
            message = choose(t, rng)
            assert message is not None
            t.receive(message)
            continue
        if wait > 0:
            assert t.advance() == []
            now[0] += wait
        before = t.version
        assert t.advance()
        assert t.version == before + 1
