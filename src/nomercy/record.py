"""Game records: ``(rules, players, seed, dealer, actions)`` is a whole game.

A record replays to the identical state on every machine because all randomness is
derived from the seed (see :func:`nomercy.engine.shuffle_rng`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from nomercy.actions import Action
from nomercy.engine import GameState, new_game
from nomercy.errors import InvalidAction, InvalidRules, InvalidState, NoMercyError
from nomercy.rules import Rules

__all__ = ["RECORD_FORMAT_VERSION", "GameRecord", "replay"]

#: 2: the integer-keyed shuffles of state format 3 (``nomercy.dealing.shuffle_key``); a
#: version-1 record's seed deals another game now, so it is refused, not replayed wrongly.
RECORD_FORMAT_VERSION = 2


@dataclass(slots=True)
class GameRecord:
    """One round as its inputs. ``actions`` holds ``(seat, action)`` in order."""

    rules: Rules
    players: int
    seed: int
    dealer: int | None = None
    actions: list[tuple[int, Action]] = field(default_factory=list)
    #: Seats dealt out of this round (a match with ``knocked_out_return=False``).
    sitting_out: tuple[int, ...] = ()
    #: The coach's hints asked for: ``(seat, n)``, a hint to ``seat`` before action ``n``
    #: (the number of actions applied then). Written only when there is one, so a round
    #: played without the coach keeps the record it always had.
    hints: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def start(
        cls, players: int = 4, rules: Rules | None = None, seed: int | None = None, dealer: int | None = None
    ) -> tuple[GameRecord, GameState]:
        """A new game and the record that will follow it (append with :meth:`add`)."""
        state = new_game(players, rules, seed, dealer)
        return cls(state.rules, players, state.seed, state.dealer), state

    def add(self, seat: int, action: Action) -> None:
        self.actions.append((seat, action))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": "nomercy.record",
            "format_version": RECORD_FORMAT_VERSION,
            "rules": self.rules.to_dict(only_changes=True),
            "players": self.players,
            "seed": self.seed,
            "dealer": self.dealer,
            "actions": [[seat, str(action)] for seat, action in self.actions],
            "sitting_out": list(self.sitting_out),
        }
        if self.hints:
            data["hints"] = [[seat, n] for seat, n in self.hints]
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise InvalidState(f"not a game record: invalid JSON ({exc})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict) or data.get("format") != "nomercy.record":
            raise InvalidState("not a nomercy game record")
        version = data.get("format_version")
        if version == 1:
            raise InvalidState(
                "record format version 1 was dealt with the old string-seeded shuffles, which "
                "this version no longer implements: its seed would deal another game (version 2)"
            )
        if version != RECORD_FORMAT_VERSION:
            raise InvalidState(f"record format version {version!r} is not supported")
        try:
            actions = [(int(seat), Action.parse(text)) for seat, text in data.get("actions", [])]
            hints = [(int(seat), int(n)) for seat, n in data.get("hints", [])]
            players = int(data["players"])
            if any(not 0 <= seat < players or n < 0 for seat, n in hints):
                raise InvalidState(f"corrupt game record: a hint names no seat or action: {hints}")
            return cls(
                Rules.from_dict(data.get("rules") or {}),
                int(data["players"]),
                int(data["seed"]),
                data.get("dealer"),
                actions,
                tuple(int(x) for x in data.get("sitting_out", [])),
                hints,
            )
        except (InvalidAction, InvalidRules) as exc:
            raise InvalidState(f"corrupt game record: {exc}") from None
        except KeyError as exc:
            raise InvalidState(f"corrupt game record: no {exc} field") from None
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise InvalidState(f"corrupt game record: {exc!r}") from None


def replay(record: GameRecord, upto: int | None = None) -> GameState:
    """The state after the record's first ``upto`` actions (default: all of them)."""
    state = new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)
    for i, (seat, action) in enumerate(record.actions[:upto]):
        try:
            state.apply(action, seat)
        except NoMercyError as exc:
            raise InvalidState(f"record action {i} ({action} by P{seat}) is illegal: {exc}") from None
    return state
