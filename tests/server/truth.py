"""The server's hidden truth, rebuilt from its storage, and the leak check against it.

A test reads the room's stored ``(rules, seed, log)`` straight from the database and
replays it with the engine: that gives the full state (every hand, the draw pile) at
each version. Every message a client received is then checked against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomercy.actions import Action
from nomercy.decisions import decisions
from nomercy.engine import GameState, started_event
from nomercy.events import Event, redact
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.server.rooms.seen import event_dicts
from nomercy.server.rooms.storage import NEXT_ROUND, Storage, StoredRoom
from nomercy.views import player_view

#: Keys that only the full state has; no client message may contain them.
# Fields of the full state that no message may carry (who played the Roulette and the
# knock-out bonuses are public facts, part of every view).
HIDDEN_KEYS = {"hands", "draw_pile", "seed", "discard_pile", "shuffles", "token_hash"}


@dataclass
class Truth:
    room: StoredRoom
    #: The full state at each version (index = version).
    states: list[GameState]
    #: The events of the log entry that produced each version (index = version - 1).
    events: list[list[Event]]


def stored_room(database_url: str, code: str) -> StoredRoom:
    storage = Storage(database_url)
    try:
        for room in storage.load_rooms():
            if room.code == code:
                return room
    finally:
        storage.close()
    raise AssertionError(f"room {code} is not in storage")


def truth(database_url: str, code: str) -> Truth:
    room = stored_room(database_url, code)
    assert room.seed is not None
    rules = Rules.from_dict(room.settings["rules"])
    match = Match(len(room.seats), rules, room.seed)
    states = [match.state.clone()]
    events: list[list[Event]] = []
    for seat, text in room.log:
        if text == NEXT_ROUND:
            match.next_round()
            events.append([started_event(match.state)])
        else:
            events.append(match.apply(Action.parse(text), seat))
        states.append(match.state.clone())
    return Truth(room, states, events)


def walk(value: Any, path: str = "") -> list[tuple[str, Any]]:
    out = [(path, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(walk(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(walk(v, f"{path}[{i}]"))
    return out


def check_no_leak(messages: list[dict[str, Any]], seat: int | None, t: Truth) -> int:
    """Assert every message fits what ``seat`` may see; returns how many states were checked."""
    checked = 0
    for msg in messages:
        for path, _ in walk(msg):
            key = path.rsplit(".", 1)[-1]
            assert key not in HIDDEN_KEYS, f"hidden field {path} sent to seat {seat}: {msg}"
        if msg["type"] != "state":
            assert not any(p.endswith((".hand", ".cards", ".drawn")) for p, _ in walk(msg)), msg
            continue
        version = msg["version"]
        state = t.states[version]
        view = msg["view"]
        if view is None:  # the lobby: no game, no cards
            assert msg["events"] == [] and version == 0, msg
            continue
        expected = player_view(state, seat).to_dict()
        assert view == expected, f"seat {seat} at version {version}: view differs from view(seat)"
        # The decisions are the view's own, nothing more (nomercy.decisions reads only it).
        assert msg["decisions"] == decisions(player_view(state, seat)).to_dict(), (seat, version)
        if seat is None:
            assert view["hand"] == [] and view["drawn"] is None and view["legal_actions"] == []
        # Hands are revealed only once the round is over, and then exactly as they were.
        if state.outcome is None:
            assert msg.get("reveal") is None, f"hands revealed to seat {seat} during the round"
        elif msg.get("reveal") is not None:
            assert msg["reveal"] == [[c.code for c in h] for h in state.hands], (seat, version)
        for event in msg["events"]:
            if event["type"] == "drew" and event["seat"] != seat and event["reason"] != "roulette":
                assert event["cards"] is None, f"seat {seat} saw P{event['seat']}'s drawn cards: {event}"
        if not msg["snapshot"] and version > 0:
            expected_events = event_dicts(redact(t.events[version - 1], seat))
            assert msg["events"] == expected_events, (seat, version)
        checked += 1
    return checked
