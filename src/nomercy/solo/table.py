"""One person against bots, with no server: a table that speaks the server's protocol.

:class:`SoloTable` is what a room of ``nomercy serve`` is to a seat (``docs/protocol.md``),
for one human at seat 0 and one to five bots, held in memory by whoever runs it: the
page's Web Worker (Pyodide) or a test. It takes the client messages a connection sends
(``action``, ``hint``, ``rematch``, ``chat``, ``react``, ``ping``, ``hello``) and answers
the server's messages as plain dicts: ``welcome``, ``state``, ``room``, ``chat_history``,
``error``, ``hint``, ``pong``. What a ``state`` says about the game comes from the server's
own :func:`nomercy.server.seen.seen_by`, so the page shows exactly what online play does.

It imports the standard library and nomercy's pure-Python modules only (no pydantic, no
asyncio, no numpy, no C extension): Pyodide runs it. Nothing runs by itself: the caller
asks :meth:`due` when the bots or the next round are due and calls :meth:`advance` then,
as the server's room driver does with its timers (:mod:`nomercy.server.timers`).

Bots decide with a generator reseeded for each decision from the table's seed, the
table's version and the seat, so a table saved mid-round and loaded again (:meth:`save`,
:meth:`load`: the config and the action log, replayed) plays on exactly as it would have.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from nomercy import bots as botlib
from nomercy.actions import Action
from nomercy.bots.levels import CHARACTER_LEVELS, CHARACTERS
from nomercy.decisions import decisions
from nomercy.engine import new_game, started_event
from nomercy.errors import IllegalAction, InvalidAction, InvalidRules, NoMercyError
from nomercy.events import Event, redact
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.seeding import derive_seed
from nomercy.server.rooms.seen import seen_by
from nomercy.summary import rules_summary
from nomercy.views import player_view

__all__ = [
    "BOT_LEVELS",
    "PAGE_EXPERT_BUDGET",
    "SAVE_FORMAT_VERSION",
    "Delays",
    "SoloError",
    "SoloTable",
    "make_bot",
]

#: The protocol this table speaks (``nomercy.server.protocol.PROTOCOL_VERSION``; a test
#: keeps the two equal).
PROTOCOL_VERSION = 2
#: The join code a solo table shows: no server room has it (codes have six characters).
SOLO_CODE = "SOLO"
#: The levels a solo bot plays at; a character (``stacker``...) plays at one of
#: ``CHARACTER_LEVELS``. The learned bot is not offered: its network needs numpy.
BOT_LEVELS = ("random", "careful", "beginner", "casual", "strong", "expert")
#: The expert's playouts per decision in the page (the server's expert plays 160). At 160,
#: Pyodide took 170 ms a decision (median) and 820 ms (p99) on a desktop core, twice the
#: native time; a phone is several times slower, so the page plays half as many
#: (``benchmarks/solo_bots.py --pyodide`` measures it).
PAGE_EXPERT_BUDGET = 80
#: The coach's sampled worlds per hint in the page (the server's coach samples 200).
PAGE_HINT_WORLDS = 40
#: A saved table's format (:meth:`SoloTable.save`).
SAVE_FORMAT = "nomercy.solo"
SAVE_FORMAT_VERSION = 1
#: The log entries that are not actions (as the server's room log writes them).
NEXT_ROUND = "@next"
REMATCH = "@rematch"
CHAT_MAX = 200
REACTIONS = ("gg", "wow", "ouch", "haha", "hurry", "oops")

Message = dict[str, Any]


class SoloError(Exception):
    """A refusal in the protocol's terms: ``code`` is one of ``ErrorCode``'s."""

    def __init__(self, code: str, message: str, ref: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref


@dataclass(frozen=True)
class Delays:
    """Seconds the table waits, as the server's settings of the same names."""

    bot_delay: float = 0.9
    reaction_delay: float = 1.5
    between_rounds: float = 8.0


def make_bot(spec: str) -> botlib.Bot:
    """A bot for the page from a level or a character (``stacker``, ``stacker:level=strong``).

    The searching levels play their playouts in Python (``native=False``): the page has no
    C extension, and natively measured figures then say what the page does."""
    key, options = botlib.parse_spec(spec)
    if key in CHARACTERS:
        level = str(options.get("level", "casual")).strip().lower()
        if level not in CHARACTER_LEVELS or set(options) - {"level"}:
            raise SoloError("bad_request", f"a character plays at the {', '.join(CHARACTER_LEVELS)} level")
        if level == "strong":
            return botlib.make(key, level=level, native=False)
        return botlib.make(key, level=level)
    if key not in BOT_LEVELS:
        offered = ", ".join([*BOT_LEVELS, *CHARACTERS])
        if key == "learned":
            raise SoloError("bad_request", "the learned bot needs numpy, which the page does not load")
        raise SoloError("bad_request", f"unknown bot {spec!r}: choose from {offered}")
    if options:
        raise SoloError("bad_request", f"bot {key}: no options here")
    if key == "expert":
        return botlib.make(key, budget=PAGE_EXPERT_BUDGET, native=False)
    if key == "strong":
        return botlib.make(key, native=False)
    return botlib.make(key)


def _rules(preset: str, overrides: Any) -> Rules:
    if not isinstance(overrides, dict):
        raise SoloError("invalid_rules", "rules: an object of house-rule names and values")
    deck = overrides.get("deck")
    if deck is not None and deck not in ("no_mercy", "classic"):
        raise SoloError("invalid_rules", "deck: tables play the 'no_mercy' or 'classic' deck")
    try:
        return Rules.from_dict(overrides, base=Rules.preset(preset))
    except InvalidRules as exc:
        raise SoloError("invalid_rules", str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise SoloError("invalid_rules", f"rules: {exc}") from None


def _clean(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise SoloError("bad_message", f"{what} must be text")
    text: str = value.strip()
    if not text or len(text) > limit or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise SoloError("bad_message", f"{what}: 1 to {limit} characters, no control characters")
    return text


class SoloTable:
    """A table of one person (seat 0) and bots; see the module docstring."""

    def __init__(self, config: dict[str, Any], clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.config = self._checked(config)
        self.name: str = self.config["name"]
        self.specs: list[str] = list(self.config["bots"])
        self.rules = _rules(self.config["preset"], self.config["rules"])
        self.players = 1 + len(self.specs)
        if not 2 <= self.players <= self.rules.max_players:
            raise SoloError(
                "bad_request", f"{self.players} seats: the rules seat 2 to {self.rules.max_players}"
            )
        self.delays = Delays(**self.config.get("delays", {}))
        self.mode: str = self.config["mode"]
        self.seed = int(self.config["seed"])
        #: The table's log as the server's room log holds it: ``(seat, action)`` or a marker.
        self.entries: list[tuple[int, str]] = []
        self.version = 0
        self.kept_records: list[dict[str, Any]] = []
        self.chat: deque[Message] = deque(maxlen=50)
        self._deal(self.seed)

    # -- setting up ----------------------------------------------------------------------

    @staticmethod
    def _checked(config: Any) -> dict[str, Any]:
        if not isinstance(config, dict):
            raise SoloError("bad_message", "the table's config is a JSON object")
        known = {"name", "lang", "bots", "preset", "rules", "mode", "seed", "delays"}
        extra = set(config) - known
        if extra:
            raise SoloError("bad_message", f"unknown config field(s): {', '.join(sorted(extra))}")
        bots = config.get("bots", ["casual"] * 3)
        if not isinstance(bots, list) or not 1 <= len(bots) <= 5 or not all(isinstance(b, str) for b in bots):
            raise SoloError("bad_request", "bots: a list of 1 to 5 levels or characters")
        mode = config.get("mode", "round")
        if mode not in ("round", "match"):
            raise SoloError("bad_message", "mode: round or match")
        seed = config.get("seed")
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big") >> 1
        if type(seed) is not int or not 0 <= seed < 2**63:
            raise SoloError("bad_message", "seed: an integer from 0 to 2**63 - 1")
        delays = config.get("delays", {})
        if not isinstance(delays, dict) or set(delays) - {"bot_delay", "reaction_delay", "between_rounds"}:
            raise SoloError("bad_message", "delays: bot_delay, reaction_delay, between_rounds")
        return {
            "name": _clean(config.get("name", "You"), "name", 24),
            "lang": config.get("lang", "en") if config.get("lang") in ("en", "nb") else "en",
            "bots": list(bots),
            "preset": str(config.get("preset", "no_mercy")),
            "rules": dict(config.get("rules") or {}),
            "mode": mode,
            "seed": seed,
            "delays": {k: float(v) for k, v in delays.items()},
        }

    def _deal(self, seed: int) -> None:
        """A new match at this table (a first game or a rematch), with fresh bots."""
        self.match_seed = seed
        self.match = Match(self.players, self.rules, seed)
        self.bots: list[botlib.Bot | None] = [None, *(make_bot(spec) for spec in self.specs)]
        self.log: deque[Event] = deque(maxlen=200)
        self._dealt()

    def _dealt(self) -> None:
        self.log.append(started_event(self.match.state))
        self.changed_at = self.clock()
        self.last_actor = self.match.state.dealer

    # -- what the table says --------------------------------------------------------------

    @property
    def finished(self) -> bool:
        m = self.match
        return m.round_over and (self.mode == "round" or m.is_over)

    def winner(self) -> int | None:
        m = self.match
        if not m.round_over:
            return None
        return m.winner if self.mode == "match" else m.rounds[-1].winner

    def room_info(self) -> Message:
        """``RoomInfo`` (``docs/protocol.md``) of this table."""
        m = self.match
        seats = [
            {
                "seat": 0,
                "nickname": self.name,
                "kind": "human",
                "connected": True,
                "standin": False,
                "host": True,
                "account": False,
            }
        ] + [
            {
                "seat": i,
                "nickname": f"Bot {i} ({spec})",
                "kind": "bot",
                "connected": False,
                "standin": False,
                "host": False,
                "account": False,
            }
            for i, spec in enumerate(self.specs, start=1)
        ]
        return {
            "code": SOLO_CODE,
            "status": "finished" if self.finished else "playing",
            "seats": seats,
            "rules": self.rules.to_dict(),
            "preset": self.config["preset"],
            "mode": self.mode,
            "bot": self.specs[0] if len(set(self.specs)) == 1 else ", ".join(self.specs),
            "character": None,
            "turn_seconds": None,
            "rated": False,
            "waiting": [],
            "waiting_seconds": None,
            "aborted": False,
            "never_connected": [],
            "unrated_reason": None,
            "round": m.round_number,
            "scores": list(m.scores),
            "rounds": [
                {"number": r.number, "winner": r.winner, "reason": r.reason, "points": list(r.points)}
                for r in m.rounds
            ],
            "match_winner": self.winner(),
            "spectators": 0,
            "paused": False,
            "removed": [],
            "rematch": [],
            "summary": [line.to_dict() for line in rules_summary(self.rules)],
            "daily": None,
            "daily_board": False,
        }

    def state_message(self, events: list[Event], snapshot: bool = False) -> Message:
        m = self.match
        return {
            "type": "state",
            **seen_by(m.state, 0, events),
            "version": self.version,
            "snapshot": snapshot,
            "deadline": None,
            "reveal": [[c.code for c in hand] for hand in m.state.hands] if m.round_over else None,
        }

    def room_message(self) -> Message:
        return {"type": "room", "room": self.room_info()}

    def hello(self) -> list[Message]:
        """What a (re)connect's ``hello`` is answered with: welcome, snapshot, chat."""
        return [
            {"type": "welcome", "protocol": PROTOCOL_VERSION, "seat": 0, "room": self.room_info()},
            self.state_message(list(self.log), snapshot=True),
            {"type": "chat_history", "messages": list(self.chat)},
        ]

    # -- client messages ------------------------------------------------------------------

    def receive(self, message: Any) -> list[Message]:
        """A client message; the messages the server would send this seat in answer."""
        ref = message.get("id") if isinstance(message, dict) and isinstance(message.get("id"), str) else None
        try:
            return self._receive(message)
        except SoloError as exc:
            return [
                {
                    "type": "error",
                    "code": exc.code,
                    "message": exc.message,
                    "ref": exc.ref if exc.ref is not None else ref,
                    "version": self.version,
                }
            ]

    def _receive(self, message: Any) -> list[Message]:
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise SoloError("bad_json", "a message is a JSON object with a type")
        kind = message["type"]
        fields = {
            "hello": {"room", "token", "protocol"},
            "action": {"action", "version", "id"},
            "chat": {"text"},
            "react": {"reaction"},
            "ping": set(),
            "hint": set(),
            "rematch": {"ready"},
        }
        if kind not in fields:
            raise SoloError("bad_message", f"unknown message type {kind!r}")
        extra = set(message) - fields[kind] - {"type"}
        if extra:
            raise SoloError("bad_message", f"unknown field(s): {', '.join(sorted(extra))}")
        if kind == "ping":
            return [{"type": "pong"}]
        if kind == "hello":
            return self.hello()
        if kind == "action":
            return self._act(message)
        if kind == "chat":
            line = {
                "type": "chat",
                "seat": 0,
                "nickname": self.name,
                "text": _clean(message.get("text"), "chat text", CHAT_MAX),
            }
            self.chat.append(line)
            return [line]
        if kind == "react":
            if message.get("reaction") not in REACTIONS:
                raise SoloError("bad_message", f"reaction: one of {', '.join(REACTIONS)}")
            said = {"type": "reaction", "seat": 0, "nickname": self.name, "reaction": message["reaction"]}
            self.chat.append(said)
            return [said]
        if kind == "hint":
            return [self.hint()]
        ready = message.get("ready", True)
        if type(ready) is not bool:
            raise SoloError("bad_message", "ready: true or false")
        return self.rematch() if ready else []

    def _act(self, message: Message) -> list[Message]:
        text, version, ref = message.get("action"), message.get("version"), message.get("id")
        if not isinstance(text, str) or not 1 <= len(text) <= 40:
            raise SoloError("bad_message", "action: text of 1 to 40 characters")
        if type(version) is not int or not 0 <= version <= 10_000_000:
            raise SoloError("bad_message", "version: an integer")
        if ref is not None and (not isinstance(ref, str) or len(ref) > 32):
            raise SoloError("bad_message", "id: text of at most 32 characters")
        try:
            action = Action.parse(text)
        except InvalidAction as exc:
            raise SoloError("invalid_action", str(exc), ref) from None
        m = self.match
        if version != self.version:
            if action.out_of_turn and version < self.version:
                raise SoloError("too_late", "too late: the table has moved on (U3)", ref)
            raise SoloError(
                "stale", f"that action was for version {version}; the table is at version {self.version}", ref
            )
        if m.round_over:
            raise SoloError("game_over", "the round is over", ref)
        if action.out_of_turn and not m.state.uno_open:
            raise SoloError("too_late", "too late: the next turn has already begun (U3)", ref)
        return self._apply(0, action, ref)

    def _apply(self, seat: int, action: Action, ref: str | None = None) -> list[Message]:
        """Try the action on a clone and keep the clone, as the server does (a refusal
        changes nothing); the messages it causes."""
        m = self.match
        probe = m.state.clone()
        try:
            events = probe.apply(action, seat)
        except IllegalAction as exc:
            raise SoloError(exc.code, str(exc), ref) from None
        except NoMercyError as exc:
            raise SoloError("illegal_action", str(exc), ref) from None
        m.adopt(probe, action, seat)
        self.entries.append((seat, str(action)))
        self.version += 1
        self.last_actor = seat
        out = self._after(events)
        if m.round_over:
            self.kept_records.append(m.record.to_dict())
            out.append(self.room_message())
        return out

    def _after(self, events: list[Event]) -> list[Message]:
        self.log.extend(events)
        self.changed_at = self.clock()
        for seat, bot in enumerate(self.bots):
            if bot is not None:
                bot.observe(redact(events, seat))
        return [self.state_message(events)]

    def next_round(self) -> list[Message]:
        """Deal the next round of the match (logged like an action)."""
        self.match.next_round()
        self.entries.append((-1, NEXT_ROUND))
        self.version += 1
        self.last_actor = self.match.state.dealer
        started = started_event(self.match.state)
        return [*self._after([started]), self.room_message()]

    def rematch(self) -> list[Message]:
        """After the round (round mode) or the match: a new game, a new deal. Between the
        rounds of a match: the next round now, without waiting."""
        if not self.match.round_over:
            raise SoloError("bad_request", "a rematch can be asked for once the game is over")
        if not self.finished:
            return self.next_round()
        seed = derive_seed("solo", self.seed, self.version + 1)
        self.entries.append((-1, f"{REMATCH} {seed}"))
        self.version += 1
        self._deal(seed)
        return [self.room_message(), self.state_message([started_event(self.match.state)])]

    def hint(self) -> Message:
        """The coach's pick for the person's decision now (``hint`` message), at the page's
        budget of sampled worlds, written in the round's record like the server's."""
        from nomercy.bots.review import suggest

        m = self.match
        if m.round_over:
            raise SoloError("game_over", "the round is over")
        if m.state.current != 0:
            raise SoloError("not_your_turn", "the coach answers when it is your decision")
        rec = m.record
        start = new_game(rec.players, rec.rules, rec.seed, rec.dealer, rec.sitting_out)
        found = suggest(start, rec.actions, seed=self.version, worlds=PAGE_HINT_WORLDS, native=False)
        if found is None:
            raise SoloError("game_over", "the round is over")
        step = len(rec.actions)
        if (0, step) not in rec.hints:
            rec.hints.append((0, step))
        wanted = found.action
        choice: Message = {"action": str(wanted), "kind": None, "label": None, "cost": None}
        offers = cast(list[Message], decisions(player_view(m.state, 0)).to_dict()["choices"])
        for offered in offers:
            if Action.parse(offered["action"]) == wanted:
                choice = dict(offered)
                break
        return {
            "type": "hint",
            "decision": choice,
            "win": round(found.win, 4),
            "margin": round(1.96 * found.stderr, 4),
            "version": self.version,
        }

    # -- the bots and the clock ------------------------------------------------------------

    def _reseed(self, seat: int, purpose: int) -> botlib.Bot:
        bot = self.bots[seat]
        assert bot is not None
        bot.rng.seed(derive_seed("solo", self.match_seed, self.version, seat, purpose))
        return bot

    def _reaction(self) -> tuple[int, Action] | None:
        """The first bot after the last actor that wants to act out of turn (a catch, a
        late Uno call), as the server's driver asks them."""
        state = self.match.state
        if not state.uno_open or state.outcome is not None:
            return None
        n = state.players
        for i in range(1, n + 1):
            seat = (self.last_actor + i) % n
            if self.bots[seat] is None or not state.active[seat]:
                continue
            view = player_view(state, seat)
            if not any(a.out_of_turn for a in view.legal_actions):
                continue
            action = self._reseed(seat, 1).react(view)
            if action is not None:
                return seat, action
        return None

    def _plan(self) -> tuple[float, str] | None:
        m = self.match
        if m.round_over:
            if self.finished:
                return None
            return self.changed_at + self.delays.between_rounds, "next"
        jobs: list[tuple[float, str]] = []
        if self._reaction() is not None:
            jobs.append((self.changed_at + self.delays.reaction_delay, "react"))
        current = m.state.current
        if current is not None and self.bots[current] is not None:
            jobs.append((self.changed_at + self.delays.bot_delay, "move"))
        return min(jobs) if jobs else None

    def due(self) -> float:
        """Seconds until the bots or the next round act (0: now), -1 while the person decides."""
        plan = self._plan()
        if plan is None:
            return -1.0
        return max(0.0, plan[0] - self.clock())

    def advance(self) -> list[Message]:
        """Do what is due now (one bot's move or reaction, or the next round), if anything."""
        plan = self._plan()
        if plan is None or plan[0] > self.clock():
            return []
        job = plan[1]
        if job == "next":
            return self.next_round()
        if job == "react":
            found = self._reaction()
            assert found is not None
            return self._apply(*found)
        seat = self.match.state.current
        assert seat is not None
        view = player_view(self.match.state, seat)
        action = self._reseed(seat, 0).choose(view)
        return self._apply(seat, action)

    def run_bots(self) -> list[Message]:
        """Everything the bots do until the person decides or the game is over, without
        waiting (tests, and a page that skips the pauses)."""
        out: list[Message] = []
        while self._plan() is not None:
            plan = self._plan()
            assert plan is not None
            wait = plan[0] - self.clock()
            if wait > 0:
                self.changed_at -= wait
            out.extend(self.advance())
        return out

    # -- keeping ---------------------------------------------------------------------------

    def kept(self) -> list[dict[str, Any]]:
        """The finished rounds' records not taken yet (then forgotten here)."""
        records, self.kept_records = self.kept_records, []
        return records

    def save(self) -> str:
        """The whole table as JSON: its config and its log (replayed by :meth:`load`)."""
        return json.dumps(
            {
                "format": SAVE_FORMAT,
                "format_version": SAVE_FORMAT_VERSION,
                "config": self.config,
                "log": [[seat, text] for seat, text in self.entries],
                "hints": [list(h) for h in self.match.record.hints],
                "kept": self.kept_records,
                "chat": list(self.chat),
            },
            separators=(",", ":"),
        )

    @classmethod
    def load(cls, saved: str, clock: Callable[[], float] = time.monotonic) -> SoloTable:
        """A saved table, replayed to where it was."""
        try:
            data = json.loads(saved)
        except (ValueError, TypeError, RecursionError):
            raise SoloError("bad_record", "not a saved table: invalid JSON") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise SoloError("bad_record", "not a saved nomercy table")
        if data.get("format_version") != SAVE_FORMAT_VERSION:
            raise SoloError(
                "bad_record", f"saved table format {data.get('format_version')!r} is not supported"
            )
        try:
            table = cls(data["config"], clock)
            for seat, text in data["log"]:
                if text == NEXT_ROUND:
                    table.next_round()
                elif isinstance(text, str) and text.startswith(REMATCH + " "):
                    table.entries.append((-1, text))
                    table.version += 1
                    table._deal(int(text.split()[1]))
                else:
                    table._apply(int(seat), Action.parse(text))
        except (SoloError, NoMercyError, KeyError, ValueError, TypeError) as exc:
            raise SoloError("bad_record", f"the saved table does not replay: {exc}") from None
        table.match.record.hints = [(int(s), int(n)) for s, n in data.get("hints", [])]
        table.kept_records = list(data.get("kept", []))
        table.chat.extend(data.get("chat", []))
        return table
