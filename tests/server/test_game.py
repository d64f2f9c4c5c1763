"""A whole game over real HTTP and WebSockets: humans, bots and a spectator; then the leak test."""

from __future__ import annotations

import random
import time

import httpx

from nomercy.match import Match
from nomercy.rules import Rules

from .conftest import WS, ServerProcess, create_room, hello, join_room, start_room
from .truth import check_no_leak, truth


def play_humans(players: dict[int, WS], rng: random.Random, timeout: float = 90.0) -> dict[str, int]:
    """Each human plays a random legal action on its turn (and calls its own Uno)."""
    sent: dict[int, int] = {}
    refusals: dict[str, int] = {}
    marks = {seat: ws.mark() for seat, ws in players.items()}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for seat, ws in players.items():
            for msg in ws.received[marks[seat] :]:
                if msg["type"] == "error":
                    refusals[msg["code"]] = refusals.get(msg["code"], 0) + 1
            marks[seat] = len(ws.received)
            state = ws.latest_state()
            view = state["view"]
            if view is None:
                continue
            if view["outcome"] is not None:
                return refusals
            legal = view["legal_actions"]
            mine = view["current_player"] == seat
            out_of_turn = [a for a in legal if a == "uno"]
            if (mine or out_of_turn) and sent.get(seat) != state["version"]:
                action = out_of_turn[0] if out_of_turn else rng.choice([a for a in legal if a != "uno"])
                ws.send({"type": "action", "action": action, "version": state["version"], "id": f"{seat}"})
                sent[seat] = state["version"]
        time.sleep(0.005)
    raise AssertionError("the game did not end in time")


def test_full_game_of_humans_bots_and_a_spectator_leaks_nothing(server: ServerProcess) -> None:
    host = create_room(server, nickname="Ann", seats=4, bots=2, bot="random", seed=20261129)
    code = host["code"]
    assert len(code) == 6 and host["invite"] == f"/join/{code}"
    guest = join_room(server, code, "Bob")
    assert guest["seat"] == 1
    info = httpx.get(f"{server.url}/api/rooms/{code}").json()
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot", "bot"]
    assert info["status"] == "lobby"

    ann, bob = hello(server, code, host["token"]), hello(server, code, guest["token"])
    watcher = hello(server, code, None)
    assert ann.wait(lambda m: m["type"] == "welcome")["seat"] == 0
    assert watcher.wait(lambda m: m["type"] == "welcome")["seat"] is None
    start_room(server, code, host["token"])
    for ws in (ann, bob, watcher):
        ws.wait(lambda m: m["type"] == "state" and m["view"] is not None)

    refusals = play_humans({0: ann, 1: bob}, random.Random(5))
    # Only races with the bots' out-of-turn reactions may refuse an honest client.
    assert set(refusals) <= {"stale", "too_late"}, refusals

    final = ann.wait(lambda m: m["type"] == "room" and m["room"]["status"] == "finished")
    t = truth(server.database_url, code)
    final_state = t.states[-1]
    assert final_state.outcome is not None
    assert final["room"]["match_winner"] == final_state.outcome.winner
    # Bots and humans both acted, and every action of the log was by a seated player.
    actors = {seat for seat, _ in t.room.log}
    assert {0, 1} <= actors and actors & {2, 3}

    time.sleep(0.2)  # the last broadcasts
    for seat, ws in ((0, ann), (1, bob), (None, watcher)):
        checked = check_no_leak(ws.received, seat, t)
        assert checked > len(t.room.log) // 2, (seat, checked)
        ws.close()


def seed_with_a_first_seven(players: int, humans: set[int]) -> tuple[int, int, str]:
    """A match seed whose first player is human and can play a Seven at once."""
    for seed in range(5000):
        state = Match(players, Rules(), seed).state
        seat = state.current_player
        if seat in humans:
            sevens = [str(a) for a in state.legal_actions() if str(a).startswith("play") and "7 @" in str(a)]
            if sevens:
                return seed, seat, sevens[0]
    raise AssertionError("no seed found")


def test_seven_swap_reaches_only_the_new_owners(server: ServerProcess) -> None:
    """N1: after a Seven, each swapped hand is in exactly its new owner's view, nobody else's."""
    seed, first, seven = seed_with_a_first_seven(3, {0, 1})
    host = create_room(server, nickname="Ann", seats=3, bots=1, seed=seed)
    code = host["code"]
    guest = join_room(server, code, "Bob")
    ann, bob = hello(server, code, host["token"]), hello(server, code, guest["token"])
    watcher = hello(server, code, None)
    start_room(server, code, host["token"])
    player = (ann, bob)[first]
    state = player.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    dealt = {
        s: ws.wait(lambda m: m["type"] == "state" and m["view"] is not None) for s, ws in ((0, ann), (1, bob))
    }
    before = {s: msg["view"]["hand"] for s, msg in dealt.items()}
    player.send({"type": "action", "action": seven, "version": state["version"]})
    target = int(seven.split("@")[1])
    swapped = {
        seat: ws.wait(
            lambda m: m["type"] == "state" and any(e["type"] == "hands_swapped" for e in m["events"])
        )
        for seat, ws in ((0, ann), (1, bob), (None, watcher))
    }
    t = truth(server.database_url, code)
    mine = list(before[first])
    mine.remove(seven.split()[1])
    # The actor now holds the target's old hand; the target holds the actor's other cards.
    assert sorted(swapped[first]["view"]["hand"]) == sorted(c.code for c in t.states[0].hands[target])
    if target in (0, 1):
        assert sorted(swapped[target]["view"]["hand"]) == sorted(mine)
    assert swapped[None]["view"]["hand"] == []
    for ws in (ann, bob, watcher):
        ws.close()
    t = truth(server.database_url, code)  # again: the bot may have moved meanwhile
    for seat, ws in ((0, ann), (1, bob), (None, watcher)):
        check_no_leak(ws.received, seat, t)
        ws.close()


def test_every_message_matches_its_documented_model(server: ServerProcess) -> None:
    """The hot path writes JSON by hand; it must still be exactly the models of protocol.py."""
    from nomercy.server.base import protocol as P

    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=3)
    ws = hello(server, host["code"], host["token"])
    start_room(server, host["code"], host["token"])
    ws.wait(lambda m: m["type"] == "state" and m["view"] is not None and m["version"] >= 1, timeout=20)
    models = {
        "welcome": P.Welcome,
        "state": P.StateMessage,
        "room": P.RoomMessage,
        "error": P.ErrorMessage,
        "chat_history": P.ChatHistory,
    }
    for msg in ws.received:
        model = models[msg["type"]]
        assert model.model_validate(msg).model_dump(mode="json") == msg
    ws.close()
