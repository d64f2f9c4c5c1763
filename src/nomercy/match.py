"""A scored match: rounds until a player's total reaches the target (E3, E4).

The match deals each round from a seed derived from its own, moves the deal one seat to
the left each round, adds each round's points (E3) and keeps a record of the round in
play, so a match saves to JSON and resumes exactly.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from nomercy.actions import Action
from nomercy.engine import GameState, new_game
from nomercy.errors import IllegalAction, InvalidState, NoMercyError
from nomercy.events import Event
from nomercy.record import GameRecord, replay
from nomercy.rules import Rules
from nomercy.seeding import derive_seed
from nomercy.state import Outcome

__all__ = ["Match", "RoundResult"]


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One finished round of a match."""

    number: int
    dealer: int
    seed: int
    winner: int
    reason: str
    knocked_out: tuple[int, ...]
    points: tuple[int, ...]


def round_seed(match_seed: int, number: int) -> int:
    """The seed of round ``number`` (1-based) of a match."""
    return derive_seed("match", match_seed, number)


class Match:
    """Rounds to ``rules.target_score``. ``match.state`` is the round in play."""

    def __init__(
        self, players: int = 4, rules: Rules | None = None, seed: int | None = None, dealer: int | None = None
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        self.players = players
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(63)
        self.scores = [0] * players
        self.rounds: list[RoundResult] = []
        #: Seats out of the match (only when ``knocked_out_return`` is false).
        self.eliminated: set[int] = set()
        first_dealer = dealer if dealer is not None else random.Random(self.seed).randrange(players)
        self._deal(1, first_dealer)

    def _deal(self, number: int, dealer: int) -> None:
        self.round_number = number
        self.state = new_game(
            self.players, self.rules, round_seed(self.seed, number), dealer, self.eliminated
        )
        self.record = GameRecord(
            self.rules, self.players, self.state.seed, self.state.dealer, [], tuple(sorted(self.eliminated))
        )

    # -- play ------------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply an action to the round in play; a finished round is scored at once."""
        actor = self.state.current if seat is None else seat
        events = self.state.apply(action, seat)
        assert actor is not None
        self._recorded(action, actor)
        return events

    def adopt(self, state: GameState, action: Action, seat: int) -> None:
        """Take ``state`` as the round in play: a clone of it to which ``seat``'s ``action``
        was applied (the server tries an action on a clone, stores it, then keeps the clone
        rather than applying the action a second time). Recorded and scored as by :meth:`apply`."""
        self.state = state
        self._recorded(action, seat)

    def _recorded(self, action: Action, actor: int) -> None:
        self.record.add(actor, action)
        if self.state.outcome is not None:
            self._score(self.state.outcome)

    def _score(self, outcome: Outcome) -> None:
        for seat, points in enumerate(outcome.points):
            self.scores[seat] += points
        self.rounds.append(
            RoundResult(
                self.round_number,
                self.state.dealer,
                self.state.seed,
                outcome.winner,
                outcome.reason,
                tuple(k.seat for k in outcome.knocked_out),
                outcome.points,
            )
        )
        if not self.rules.knocked_out_return:
            self.eliminated.update(k.seat for k in outcome.knocked_out)

    @property
    def round_over(self) -> bool:
        return self.state.outcome is not None

    @property
    def winner(self) -> int | None:
        """The match winner (E4): the highest total once one reaches the target."""
        if not self.round_over:
            return None
        return self._winner(self.scores, self.eliminated, self.rounds[-1].winner)

    def would_end(self, outcome: Outcome) -> bool:
        """Would a round ending with ``outcome`` end the match, once scored? (E4)

        For a caller that must know before it scores the round, e.g. a server that
        records "finished" with the action that ends the match. Changes nothing.
        """
        if len(outcome.points) != self.players:
            raise ValueError(f"an outcome of {len(outcome.points)} seats for a {self.players}-seat match")
        scores = [a + b for a, b in zip(self.scores, outcome.points, strict=True)]
        eliminated = self.eliminated
        if not self.rules.knocked_out_return:
            eliminated = eliminated | {k.seat for k in outcome.knocked_out}
        return self._winner(scores, eliminated, outcome.winner) is not None

    def _winner(self, scores: list[int], eliminated: set[int], last: int) -> int | None:
        """E4: the last seat left in the match, or once a total reaches the target the
        highest total (a tie goes to the last round's winner if tied, else the lowest seat)."""
        remaining = [s for s in range(self.players) if s not in eliminated]
        if len(remaining) == 1:
            return remaining[0]
        best = max(scores)
        if best < self.rules.target_score:
            return None
        leaders = [s for s in range(self.players) if scores[s] == best]
        return last if last in leaders else leaders[0]

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def next_round(self) -> GameState:
        """Deal the next round; the deal moves one seat to the left (E4)."""
        if not self.round_over:
            raise IllegalAction("the round in play has not ended")
        if self.is_over:
            raise IllegalAction(f"the match is over: P{self.winner} won it")
        dealer = (self.state.dealer + 1) % self.players
        while dealer in self.eliminated:
            dealer = (dealer + 1) % self.players
        self._deal(self.round_number + 1, dealer)
        return self.state

    # -- saving ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "nomercy.match",
            "format_version": 1,
            "rules": self.rules.to_dict(only_changes=True),
            "players": self.players,
            "seed": self.seed,
            "scores": list(self.scores),
            "eliminated": sorted(self.eliminated),
            "rounds": [
                {
                    "number": r.number,
                    "dealer": r.dealer,
                    "seed": r.seed,
                    "winner": r.winner,
                    "reason": r.reason,
                    "knocked_out": list(r.knocked_out),
                    "points": list(r.points),
                }
                for r in self.rounds
            ],
            "round": self.round_number,
            "record": self.record.to_dict(),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Match:
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise InvalidState(f"not a saved match: invalid JSON ({exc})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> Match:
        if not isinstance(data, dict) or data.get("format") != "nomercy.match":
            raise InvalidState("not a saved nomercy match")
        if data.get("format_version") != 1:
            raise InvalidState(f"match format version {data.get('format_version')!r} is not supported")
        try:
            m = object.__new__(cls)
            m.rules = Rules.from_dict(data.get("rules") or {})
            m.players = int(data["players"])
            m.seed = int(data["seed"])
            m.scores = [int(x) for x in data["scores"]]
            m.eliminated = {int(x) for x in data.get("eliminated", [])}
            m.rounds = [
                RoundResult(
                    int(r["number"]),
                    int(r["dealer"]),
                    int(r["seed"]),
                    int(r["winner"]),
                    str(r["reason"]),
                    tuple(r["knocked_out"]),
                    tuple(r["points"]),
                )
                for r in data["rounds"]
            ]
            m.round_number = int(data["round"])
            m.record = GameRecord.from_dict(data["record"])
            if len(m.scores) != m.players:
                raise InvalidState("scores must list one total per seat")
            m.state = replay(m.record)
        except NoMercyError as exc:
            raise InvalidState(f"corrupt saved match: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise InvalidState(f"corrupt saved match: {exc!r}") from None
        return m


__all__ += ["round_seed"]
