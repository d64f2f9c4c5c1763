"""A kept round as the replay page shows it: every step's table with every hand, and its events.

Built from the record alone with the engine (``new_game`` then each action), so a kept
game and an uploaded record file are shown alike. The events are in the shape of protocol
2's ``state.events`` (:func:`nomercy.server.rooms.seen.event_dicts`) but unredacted, and the
table is a spectator's view (:func:`nomercy.player_view`) with ``hands`` added: a round is
only replayed once it has ended, so nothing is hidden any more. The frames are built in
:mod:`nomercy.server.games.frames` (no pydantic: the page's solo table builds them too)
and named here as before.

A record file from outside is read in steps (:func:`read_record`), each failure naming
its step: ``read`` (bytes), ``parse`` (JSON), ``load`` (a record), ``replay`` (the rules).
Before any move is replayed, :func:`within_bounds` refuses a record that no room could have
played (more seats or a larger deck than a room allows) or that would cost more than the
operator's budget of moves times seats: each frame shows every seat's hand, so the answer
grows with both, and a legal but absurd file could otherwise ask for tens of megabytes.

A review names its decisions by their action text; the browser shows only catalog words,
so :func:`label_review` adds to each the labels ``nomercy.decisions`` gives those actions.
"""

from __future__ import annotations

import json
from typing import Any

from nomercy.actions import Action
from nomercy.decisions import decisions
from nomercy.engine import new_game
from nomercy.errors import NoMercyError
from nomercy.record import GameRecord
from nomercy.rules import PRESETS
from nomercy.server.base.protocol import CreateRoom
from nomercy.server.games.frames import RecordRefused as RecordRefused
from nomercy.server.games.frames import Replayed as Replayed
from nomercy.server.games.frames import replay_frames as replay_frames
from nomercy.server.games.frames import result_of as result_of
from nomercy.server.games.frames import table as table
from nomercy.views import player_view

#: The longest record replayed from a file (a real round has a few hundred actions).
MAX_ACTIONS = 5000
#: The most seats a room has (``CreateRoom.seats``): a record with more was never played here.
ROOM_SEATS: int = next(m.le for m in CreateRoom.model_fields["seats"].metadata if hasattr(m, "le"))
#: The largest deck a room plays (the presets' decks; rooms take no hand-written deck).
ROOM_DECK_CARDS: int = max(sum(count for _, count in rules.deck) for rules in PRESETS.values())


def within_bounds(record: GameRecord, seat_steps: int) -> None:
    """Refuse (step ``load``) a record a room could not have played (S1 seats, C3 deck) or
    whose replay would cost more than ``seat_steps`` moves times seats; nothing is replayed."""
    if record.players > ROOM_SEATS:
        raise RecordRefused("load", f"{record.players} players: a room seats {ROOM_SEATS} at most (S1)")
    cards = sum(count for _, count in record.rules.deck)
    if cards > ROOM_DECK_CARDS:
        raise RecordRefused("load", f"a {cards}-card deck: a room plays {ROOM_DECK_CARDS} cards at most (C3)")
    moves = len(record.actions)
    if moves * record.players > seat_steps:
        most = seat_steps // record.players
        raise RecordRefused(
            "load",
            f"{moves} moves at {record.players} seats: a replay here shows at most {most} moves "
            f"at {record.players} seats ({seat_steps} moves times seats)",
        )


def read_record(raw: bytes, max_bytes: int, seat_steps: int | None = None) -> GameRecord:
    """A record file's bytes as a record, or :class:`RecordRefused` naming the step
    (with ``seat_steps``, also what :func:`within_bounds` refuses)."""
    if len(raw) > max_bytes:
        raise RecordRefused("read", f"the file is over {max_bytes} bytes", too_large=True)
    if not raw.strip():
        raise RecordRefused("read", "the file is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordRefused("read", f"the file is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordRefused("parse", f"not JSON: {exc}") from None
    try:
        record = GameRecord.from_dict(data)
    except NoMercyError as exc:
        raise RecordRefused("load", str(exc)) from None
    if len(record.actions) > MAX_ACTIONS:
        raise RecordRefused("load", f"{len(record.actions)} actions: a record may hold {MAX_ACTIONS} at most")
    if seat_steps is not None:
        within_bounds(record, seat_steps)
    return record


def label_review(review: dict[str, Any], record: GameRecord) -> dict[str, Any]:
    """``review`` (``nomercy.review`` JSON of ``record``'s round) with ``chosen_label`` and
    ``best_label`` in each decision: the ``{key, params}`` label of that action among the
    deciding seat's choices just before it (as ``state.decisions.choices`` carry them),
    null where the action is not one of them. Returns a new dict; ``review`` is unchanged."""
    entries = [dict(d) for d in review.get("decisions", [])]
    wanted: dict[int, list[dict[str, Any]]] = {}
    for entry in entries:
        entry["chosen_label"] = entry["best_label"] = None
        wanted.setdefault(int(entry["index"]), []).append(entry)
    try:
        state = new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)
        for i, (seat, action) in enumerate(record.actions):
            if i > max(wanted, default=-1):
                break
            for entry in wanted.get(i, []):
                choices = decisions(player_view(state, int(entry["seat"]))).choices
                for field, text in (("chosen_label", entry["chosen"]), ("best_label", entry["best"])):
                    try:
                        act = Action.parse(str(text))
                    except NoMercyError:
                        continue
                    found = next((c for c in choices if c.action == act), None)
                    entry[field] = found.label.to_dict() if found is not None else None
            state.apply(action, seat)
    except (NoMercyError, ValueError):  # a kept round always replays; the rest stays unnamed
        pass
    return {**review, "decisions": entries}
