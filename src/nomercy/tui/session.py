"""A seat at the table for a person: who sits where, the bots, and save/resume.

A session is a scored :class:`~nomercy.Match` (one round, or rounds to the target) or,
for tutorials and tests, one round from a hand-built start state. What is saved is the
game's inputs: the match (seed and the actions of the round in play) or the start state
and its actions, plus each bot's name, seed and random-generator state. Resuming replays
the actions, lets every bot observe the same events again, then restores the bots'
generators: the game continues exactly as it would have without the break.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomercy import bots as bot_registry
from nomercy.actions import Action
from nomercy.bots import Bot, parse_spec
from nomercy.engine import GameState
from nomercy.errors import InvalidAction, InvalidState, NoMercyError
from nomercy.events import Event, redact
from nomercy.i18n import LANGUAGES, Catalog, catalog
from nomercy.match import Match
from nomercy.record import GameRecord
from nomercy.rules import Rules
from nomercy.seeding import derive_seed

SESSION_FORMAT = "nomercy.session"
SESSION_VERSION = 1


class SaveError(Exception):
    """A save file that cannot be read or written; the message says which and why."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to rebuild a seat's bot: ``nomercy.bots.make(name, seed=seed)``."""

    name: str
    seed: int


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game seeded ``seed``."""
    return derive_seed("play-bot", seed, seat)


class StartedRound:
    """One round from a hand-built start state; records the actions applied to it."""

    def __init__(self, start: GameState) -> None:
        self.start = start.to_dict()
        self.state = start.clone()
        self.actions: list[tuple[int, Action]] = []
        #: The coach's hints, as in a game record: ``(seat, actions applied then)``.
        self.hints: list[tuple[int, int]] = []

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        actor = self.state.current if seat is None else seat
        events = self.state.apply(action, seat)
        assert actor is not None
        self.actions.append((actor, action))
        return events


class Session:
    """The table a person plays at: seats, names, bots and the game in progress."""

    def __init__(
        self,
        human: int,
        names: Sequence[str],
        specs: Sequence[BotSpec | None],
        match_mode: bool,
        match: Match | None = None,
        started: StartedRound | None = None,
    ) -> None:
        if (match is None) == (started is None):
            raise ValueError("a session plays either a match or a started round")
        self.human = human
        self.names = list(names)
        self.specs = list(specs)
        self.match_mode = match_mode
        self.match = match
        self.started = started
        #: What the person saw of the moves replayed on loading (for the log on resume).
        self.replayed: list[list[Event]] = []
        self.bots: list[Bot | None] = [
            None if s is None else bot_registry.make(s.name, seed=s.seed) for s in specs
        ]

    def seat_names(self, cat: Catalog) -> list[str]:
        """The names the table shows, in ``cat``'s language (see :func:`seat_names`)."""
        return seat_names(self.names, self.specs, self.human, cat)

    # -- the game ----------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        if self.match is not None:
            return self.match.state
        assert self.started is not None
        return self.started.state

    def apply(self, action: Action, seat: int) -> list[Event]:
        """Apply and record an action (the runner's ``apply`` hook)."""
        if self.match is not None:
            return self.match.apply(action, seat)
        assert self.started is not None
        return self.started.apply(action, seat)

    @property
    def round_actions(self) -> list[tuple[int, Action]]:
        if self.match is not None:
            return self.match.record.actions
        assert self.started is not None
        return self.started.actions

    def round_start(self) -> GameState:
        """The round in play as it was dealt (or hand-built), before any action."""
        if self.match is not None:
            return _replay_start(self.match.record)
        assert self.started is not None
        return GameState.from_dict(self.started.start)

    @property
    def hints(self) -> list[tuple[int, int]]:
        """The coach's hints of the round in play (kept in its record, saved with it)."""
        if self.match is not None:
            return self.match.record.hints
        assert self.started is not None
        return self.started.hints

    def note_hint(self, seat: int) -> None:
        """Record that ``seat`` asked the coach now (the record says so, and the replay)."""
        self.hints.append((seat, len(self.round_actions)))

    def tell(self, events: list[Event]) -> None:
        """Every bot observes the events as its seat may see them (as the runner does)."""
        for seat, bot in enumerate(self.bots):
            if bot is not None:
                bot.observe(redact(events, seat))

    @property
    def finished(self) -> bool:
        """The game is over: the round (single-round play) or the whole match."""
        if not self.state.is_over:
            return False
        if self.match is not None and self.match_mode:
            return self.match.is_over
        return True

    # -- saving ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        seats: list[dict[str, Any] | None] = []
        for spec, bot in zip(self.specs, self.bots, strict=True):
            if spec is None or bot is None:
                seats.append(None)
            else:
                seats.append({"name": spec.name, "seed": spec.seed, "rng": _rng_states(bot)})
        data: dict[str, Any] = {
            "format": SESSION_FORMAT,
            "format_version": SESSION_VERSION,
            "human": self.human,
            "names": self.names,
            "bots": seats,
            "match_mode": self.match_mode,
            "finished": self.finished,
        }
        if self.match is not None:
            data["match"] = self.match.to_dict()
        else:
            assert self.started is not None
            data["start_state"] = self.started.start
            data["actions"] = [[seat, str(a)] for seat, a in self.started.actions]
            if self.started.hints:
                data["hints"] = [[seat, n] for seat, n in self.started.hints]
        return data

    def save(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(self.to_dict()), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            raise SaveError(f"cannot save the game to {path}: {exc.strerror or exc}") from None

    @classmethod
    def load(cls, path: Path) -> Session:
        """Read a save file; any problem raises :class:`SaveError` naming the file."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SaveError(f"cannot read {path}: {reason}") from None
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError:
            raise SaveError(f"{path} is not a nomercy save file (it is not JSON)") from None
        except SaveError as exc:
            raise SaveError(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any) -> Session:
        """Rebuild a session by replaying it; the bots see every event again."""
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
            raise SaveError("not a nomercy save file (no 'nomercy.session' format tag)")
        if data.get("format_version") != SESSION_VERSION:
            raise SaveError(f"save format version {data.get('format_version')!r} is not supported")
        try:
            return _rebuild(data)
        except SaveError:
            raise
        except NoMercyError as exc:
            raise SaveError(f"the saved game is damaged: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise SaveError(f"the saved game is damaged ({type(exc).__name__}: {exc})") from None


def default_name(name: str) -> bool:
    """Whether ``name`` is the name a person gets when they give none, in any language
    ("You", "Du"): then the table says it in the language of the moment, not of the save."""
    return any(name == catalog(lang).text("term.default_name") for lang in LANGUAGES)


def bot_name(spec: str, cat: Catalog) -> str:
    """A bot as a person knows it: its character or level by the catalog (``stacker`` ->
    "Stacker Stella", ``heuristic`` -> "Casual"); a bot without a catalog name (a plugin)
    by its spec's name."""
    try:
        name, _options = parse_spec(spec)
    except ValueError:
        return spec.split(":")[0]
    key = f"term.bot_name.{name}"
    return cat.text(key) if key in cat else name


def seat_names(
    names: Sequence[str], specs: Sequence[BotSpec | str | None], human: int | None, cat: Catalog
) -> list[str]:
    """Each seat's name as the table shows it in ``cat``'s language: a bot's character or
    level, the person's own name (or the language's word for a person who gave none)."""
    out = []
    for seat, name in enumerate(names):
        spec = specs[seat] if seat < len(specs) else None
        if spec is not None:
            out.append(bot_name(spec if isinstance(spec, str) else spec.name, cat))
        elif seat == human and default_name(name):
            out.append(cat.text("term.default_name"))
        else:
            out.append(name)
    return out


def _rebuild(data: dict[str, Any]) -> Session:
    human = int(data["human"])
    names = [str(n) for n in data["names"]]
    specs: list[BotSpec | None] = []
    rngs: list[dict[str, Any] | None] = []
    for seat in data["bots"]:
        if seat is None:
            specs.append(None)
            rngs.append(None)
        else:
            specs.append(BotSpec(str(seat["name"]), int(seat["seed"])))
            rngs.append(seat.get("rng") or {})
    if specs[human] is not None or len(names) != len(specs):
        raise SaveError("the saved seats do not match (one person, one name per seat)")
    for spec in specs:
        if spec is not None and spec.name not in bot_registry.available():
            raise SaveError(f"the saved game has a {spec.name!r} bot, which this version does not know")
    if "match" in data:
        match = Match.from_dict(data["match"])
        record = GameRecord.from_dict(data["match"]["record"])
        session = Session(human, names, specs, bool(data.get("match_mode")), match=match)
        fresh = _replay_start(record)
        actions = record.actions
    else:
        initial = GameState.from_dict(data["start_state"])
        try:
            actions = [(int(seat), Action.parse(text)) for seat, text in data["actions"]]
        except InvalidAction as exc:
            raise SaveError(f"the saved game is damaged: {exc}") from None
        started = StartedRound(initial)
        started.hints = [(int(seat), int(n)) for seat, n in data.get("hints", [])]
        session = Session(human, names, specs, False, started=started)
        fresh = initial.clone()
    if len(specs) != session.state.players:
        raise SaveError(f"{len(specs)} seats saved for a {session.state.players}-player game")
    # Replay the round in play so that every bot observes what it saw before the save.
    for i, (seat, action) in enumerate(actions):
        try:
            events = fresh.apply(action, seat)
        except NoMercyError as exc:
            raise SaveError(f"the saved game is damaged: action {i} ({action} by P{seat}): {exc}") from None
        session.tell(events)
        session.replayed.append(redact(events, human))
    if session.started is not None:
        session.started.state = fresh
        session.started.actions = list(actions)
    elif fresh != session.state:
        raise InvalidState("the replayed round differs from the saved match")
    for bot, states in zip(session.bots, rngs, strict=True):
        if bot is not None and states:
            _restore_rngs(bot, states)
    return session


def _replay_start(record: GameRecord) -> GameState:
    from nomercy.engine import new_game

    return new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)


def _rng_states(bot: Bot) -> dict[str, Any]:
    """Every ``random.Random`` a bot holds, by attribute name, as JSON-ready state."""
    out: dict[str, Any] = {}
    for name, value in sorted(getattr(bot, "__dict__", {}).items()):
        if isinstance(value, random.Random):
            version, internal, gauss = value.getstate()
            out[name] = [version, list(internal), gauss]
    return out


def _restore_rngs(bot: Bot, states: dict[str, Any]) -> None:
    for name, (version, internal, gauss) in states.items():
        rng = getattr(bot, name, None)
        if not isinstance(rng, random.Random):
            raise SaveError(f"the saved {type(bot).__name__} has no generator {name!r}")
        rng.setstate((int(version), tuple(int(x) for x in internal), gauss))


def new_session(
    players: int,
    rules: Rules,
    bot_names: Sequence[str],
    seed: int,
    name: str,
    match_mode: bool,
    start: GameState | None = None,
) -> Session:
    """A person at seat 0 and ``players - 1`` bots (names cycle through ``bot_names``)."""
    specs: list[BotSpec | None] = [None]
    names = [name]
    for seat in range(1, players):
        bot = bot_names[(seat - 1) % len(bot_names)]
        specs.append(BotSpec(bot, bot_seed(seed, seat)))
        names.append(bot.split(":")[0])  # a character at a level is called by the character
    if start is not None:
        return Session(0, names, specs, False, started=StartedRound(start))
    return Session(0, names, specs, match_mode, match=Match(players, rules, seed))
