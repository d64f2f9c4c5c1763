"""The wire protocol: pydantic models of every message, limits and error codes.

Clients send *intents* only (``hello``, ``action``, ``chat``, ``react``, ``ping``); the
server answers with ``welcome``, ``state``, ``room``, ``chat``, ``reaction``, ``error``
and ``pong``. Every client message is a JSON object of at most
``Settings.max_message_bytes`` bytes whose ``type`` selects the model; unknown fields are
refused (``extra="forbid"``). ``docs/protocol.md`` documents every field.

The version is :data:`PROTOCOL_VERSION`; a change that breaks old clients bumps it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from nomercy.errors import InvalidRules
from nomercy.rules import Rules
from nomercy.server.base.names import NICKNAME_MAX as NICKNAME_MAX
from nomercy.server.base.names import clean_nickname

#: 2: ``state`` carries ``decisions`` (every legal choice as data, the reason each blocked
#: card cannot be played, the prompt) and each event's ``line``; ``RoomInfo.summary``; the
#: chat history keeps reactions. A client of version 1 is refused at ``hello``.
PROTOCOL_VERSION = 2

#: Join codes: no 0/O, 1/I/L, so they can be read aloud and typed from a phone.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
CODE_PATTERN = f"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$"

#: Quick reactions a player may send (names, drawn by the client).
REACTIONS = ("gg", "wow", "ouch", "haha", "hurry", "oops")

CHAT_MAX = 200

#: Who sits at a seat: a human (has a token), a bot, or nobody yet.
SeatKind = Literal["human", "bot", "open"]
#: A room's life: the host gathers players, the game runs, the game is over.
RoomStatus = Literal["lobby", "playing", "finished"]


class ErrorCode:
    """Stable error codes (``error.code`` on the wire, ``detail.code`` over HTTP)."""

    BAD_JSON = "bad_json"  #: not a JSON object
    TOO_LARGE = "too_large"  #: the message is over the size limit
    BAD_MESSAGE = "bad_message"  #: the JSON does not match any message's schema
    HELLO_FIRST = "hello_first"  #: the first message of a connection must be hello
    ALREADY_JOINED = "already_joined"  #: a second hello on the same connection
    NOT_FOUND = "not_found"  #: no room with that join code
    UNAUTHORIZED = "unauthorized"  #: the seat token is missing or wrong
    FORBIDDEN = "forbidden"  #: not allowed for this client (spectator acting, not host)
    RATE_LIMITED = "rate_limited"  #: too many messages, rooms or failed joins
    NOT_STARTED = "not_started"  #: the game has not started yet
    STALE = "stale"  #: the action was for another state version: dropped
    TOO_LATE = "too_late"  #: a catch / Uno call that someone else's message beat
    INVALID_ACTION = "invalid_action"  #: action text that does not parse
    ILLEGAL_ACTION = "illegal_action"  #: the rules refuse it now (state unchanged)
    NOT_YOUR_TURN = "not_your_turn"  #: another seat is deciding
    GAME_OVER = "game_over"  #: the round or match is over
    NAME_TAKEN = "name_taken"  #: a player at the table has that nickname, or one that looks the same
    INVALID_RULES = "invalid_rules"  #: a house rule value out of range
    ROOM_FULL = "room_full"  #: no free seat
    BAD_REQUEST = "bad_request"  #: an HTTP request that does not fit (seats, bots...)
    BAD_HOST = "bad_host"  #: the ``Host`` header names a host this server does not serve
    SERVER_ERROR = "server_error"  #: storage failed; the action was not applied
    #: another server process runs the room now (several processes): reconnect in a moment
    ROOM_MOVING = "room_moving"
    #: the server was upgraded to an engine that cannot continue this game exactly: it has
    #: ended (its record is kept); the message says which versions
    ROOM_RETIRED = "room_retired"
    #: the review queue or a bound on reviews or hints is full: try again in a moment
    BUSY = "busy"
    #: a hint where the coach is not allowed (another person at the table, coach off)
    HINT_NOT_ALLOWED = "hint_not_allowed"
    #: a record file that cannot be replayed (the error names the step that failed)
    BAD_RECORD = "bad_record"
    #: a sensitive account change needs a passkey confirmation of the last few minutes
    CONFIRM_FIRST = "confirm_first"


def _clean_text(value: str, what: str, limit: int) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} is empty")
    if len(value) > limit:
        raise ValueError(f"{what} is longer than {limit} characters")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        raise ValueError(f"{what} contains control characters")
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=4096)


class _Request(_Model):
    """What clients send is validated strictly: ``"0"`` is not a number, ``true`` is not 1."""

    model_config = ConfigDict(strict=True)


# -- client -> server (WebSocket) --------------------------------------------------------


class Hello(_Request):
    """First message of a connection: sit at ``token``'s seat, or watch (``token`` null)."""

    type: Literal["hello"]
    room: Annotated[str, Field(pattern=CODE_PATTERN)]
    token: Annotated[str, Field(min_length=16, max_length=64)] | None = None
    protocol: int = PROTOCOL_VERSION


class ActionMessage(_Request):
    """An action in the text form of ``nomercy.actions`` for the state ``version``."""

    type: Literal["action"]
    action: Annotated[str, Field(min_length=1, max_length=40)]
    version: Annotated[int, Field(ge=0, le=10_000_000)]
    #: Echoed in a refusal so the client knows which message failed.
    id: Annotated[str, Field(max_length=32)] | None = None


class ChatMessage(_Request):
    type: Literal["chat"]
    text: str

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return _clean_text(value, "chat text", CHAT_MAX)


class ReactMessage(_Request):
    type: Literal["react"]
    reaction: Literal["gg", "wow", "ouch", "haha", "hurry", "oops"]


class PingMessage(_Request):
    type: Literal["ping"]


class RematchMessage(_Request):
    """After the game: a player wants (``ready``) or no longer wants a rematch."""

    type: Literal["rematch"]
    ready: bool = True


class HintMessage(_Request):
    """A seated player asks the coach for a suggestion for their decision now."""

    type: Literal["hint"]


ClientMessage = Annotated[
    Hello | ActionMessage | ChatMessage | ReactMessage | PingMessage | RematchMessage | HintMessage,
    Field(discriminator="type"),
]
client_message: TypeAdapter[Any] = TypeAdapter(ClientMessage)


# -- HTTP requests ---------------------------------------------------------------------


class _Nickname(_Request):
    nickname: str

    @field_validator("nickname")
    @classmethod
    def _nick(cls, value: str) -> str:
        return clean_nickname(value)  # NFKC, no bidi controls, visible, not a bot's name


class CreateRoom(_Nickname):
    """The host's table: rules (a preset and overrides), seats, bots, mode, timer."""

    preset: Annotated[str, Field(max_length=32)] = "no_mercy"
    #: House-rule overrides, field name -> value (see ``GET /api/options``).
    rules: Annotated[dict[str, Any], Field(max_length=40)] = Field(default_factory=dict)
    seats: Annotated[int, Field(ge=2, le=10)] = 4
    #: How many of the seats bots take from the start (the last ones).
    bots: Annotated[int, Field(ge=0, le=9)] = 0
    #: Bot strength, a name of ``nomercy.bots.available()``.
    bot: Annotated[str, Field(max_length=32)] = "random"
    #: A character (``nomercy.bots.levels.CHARACTERS``) the bots play as, at the ``bot``
    #: level (one of ``CHARACTER_LEVELS``); None: the level plainly.
    character: Annotated[str, Field(max_length=16)] | None = None
    mode: Literal["round", "match"] = "round"
    #: Seconds per turn before the server draws/takes for an idle player; 0/None: off.
    turn_seconds: Annotated[int, Field(ge=0, le=3600)] | None = None
    #: Who may open the room's kept games: its players (seat tokens) or anyone with the link.
    replays: Literal["players", "link"] = "players"
    #: The host allows the coach's hints at a table with other people (with bots only,
    #: hints are always allowed).
    coach: bool = False
    #: A rated room (``docs/ratings.md``): its rounds change the players' ratings. The
    #: preset's rules as they are, no coach, a turn timer, bots at a level, players signed in.
    rated: bool = False
    #: Tests only (refused unless the server runs with ``test_options``): the match seed.
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None


class JoinRoom(_Nickname):
    pass


class KickRequest(_Request):
    seat: Annotated[int, Field(ge=0, le=9)]


# -- server -> client --------------------------------------------------------------------


class SeatInfo(_Model):
    seat: int
    nickname: str | None
    #: ``human``, ``bot`` or ``open`` (waiting for a player).
    kind: SeatKind
    #: A human with at least one live connection.
    connected: bool
    #: A bot plays this human's seat (away past the grace period).
    standin: bool
    host: bool
    #: The seat is held by a signed-in account (its name is the account's): set by the
    #: server alone, so a guest's seat can never show the mark the client draws for it.
    account: bool = False


class RoomInfo(_Model):
    code: str
    status: RoomStatus
    seats: list[SeatInfo]
    rules: dict[str, Any]
    preset: str
    mode: Literal["round", "match"]
    bot: str
    #: The bots' character, if the host chose one (see ``CreateRoom.character``).
    character: str | None = None
    turn_seconds: int | None
    #: Its rounds change the players' ratings (``CreateRoom.rated``).
    rated: bool = False
    #: A rated round waits for these seats' persons to connect before anything is played.
    waiting: list[int] = []
    #: Seconds left (when this message was sent) for them to connect: past it, the round
    #: is aborted unrated. Null while nobody is waited for.
    waiting_seconds: float | None = None
    #: The rated round was aborted unrated: someone did not connect in time.
    aborted: bool = False
    #: With ``aborted``: the seats whose persons never connected.
    never_connected: list[int] = []
    #: A rated room whose rounds are not rated for now, and why: ``address`` (two of its
    #: accounts were seen from one network address; an operator may allow the pair).
    unrated_reason: Literal["address"] | None = None
    round: int
    scores: list[int]
    #: Finished rounds: number, winner, reason, points per seat.
    rounds: list[dict[str, Any]]
    match_winner: int | None
    spectators: int
    #: Storage is failing: the game waits (see ``paused``) and resumes by itself.
    paused: bool = False
    #: Players the host removed (``seat``, ``nickname``): the host can let them back in.
    removed: list[dict[str, Any]] = Field(default_factory=list)
    #: Seats whose players confirmed a rematch (after the game).
    rematch: list[int] = Field(default_factory=list)
    #: The table's rules in a few sentences (``nomercy.summary``): ``key``, ``params``, ``rule``.
    summary: list[dict[str, Any]] = Field(default_factory=list)
    #: The daily deal's day (``YYYY-MM-DD``) for its tables: dealt once, no rematch, its
    #: replay closed until the day is over.
    daily: str | None = None
    #: Whether this daily table's attempt goes on the day's board (a signed-in player's
    #: first of the day); a guest's, or a second attempt, is practice.
    daily_board: bool = False


class Welcome(_Model):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    #: Your seat, or null for a spectator.
    seat: int | None
    room: RoomInfo


class StateMessage(_Model):
    """The table as this connection may see it, and what happened since the last one."""

    type: Literal["state"] = "state"
    #: ``PlayerView.to_dict()`` of this seat (spectators: of ``None``), or null in the lobby.
    view: dict[str, Any] | None
    #: The room's state version: the number of entries in its action log. It grows by one
    #: with every applied action and every new round; an action must name the current one.
    version: int
    #: Redacted events (``Event.to_dict()``) with an English ``text`` and a ``line`` each
    #: (a catalog key and its parameters, ``nomercy.narration``; null: told with another).
    events: list[dict[str, Any]]
    #: ``Decisions.to_dict()`` of this seat (``nomercy.decisions``), or null in the lobby.
    decisions: dict[str, Any] | None = None
    #: True on a (re)connect snapshot: ``events`` is then the recent log, not news.
    snapshot: bool = False
    #: Seconds left on the turn timer of the deciding seat, or null.
    deadline: float | None = None
    #: Once the round is over: every seat's hand (card codes), to show what each held.
    reveal: list[list[str]] | None = None


class RoomMessage(_Model):
    type: Literal["room"] = "room"
    room: RoomInfo


class ChatOut(_Model):
    type: Literal["chat"] = "chat"
    seat: int | None
    nickname: str
    text: str


class ReactionOut(_Model):
    type: Literal["reaction"] = "reaction"
    seat: int | None
    nickname: str
    reaction: str


class ChatHistory(_Model):
    """The room's recent chat lines and reactions, oldest first: sent on every (re)connect."""

    type: Literal["chat_history"] = "chat_history"
    messages: list[Annotated[ChatOut | ReactionOut, Field(discriminator="type")]]


class ErrorMessage(_Model):
    type: Literal["error"] = "error"
    code: str
    message: str
    #: The ``id`` of the refused action message, when it had one.
    ref: str | None = None
    #: The room's current state version, so a stale client can resynchronise.
    version: int | None = None


class HintOut(_Model):
    """The coach's answer: one of the seat's choices, its win chance and the 95% margin."""

    type: Literal["hint"] = "hint"
    decision: dict[str, Any]
    win: float
    margin: float
    version: int


class Pong(_Model):
    type: Literal["pong"] = "pong"


class Kicked(_Model):
    """Sent before the server closes a removed player's connection."""

    type: Literal["kicked"] = "kicked"
    message: str


class Paused(_Model):
    """Storage failed: nothing is lost, the game waits and the server keeps retrying."""

    type: Literal["paused"] = "paused"
    message: str


class Resumed(_Model):
    """Storage is back: the game goes on from where it stopped."""

    type: Literal["resumed"] = "resumed"


class ProtocolError(Exception):
    """A refusal with a stable code; the connection stays open unless ``close`` is set."""

    def __init__(self, code: str, message: str, *, close: bool = False, ref: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.close = close
        self.ref = ref


class StorageUnavailable(ProtocolError):
    """A write failed: nothing was applied (``server_error`` on the wire); retry later."""

    def __init__(self, message: str, *, ref: str | None = None) -> None:
        super().__init__(ErrorCode.SERVER_ERROR, message, ref=ref)


def build_rules(preset: str, overrides: dict[str, Any]) -> Rules:
    """A preset plus a host's overrides. Decks are by name only: a hand-written deck
    mapping could ask for a billion cards."""
    deck = overrides.get("deck")
    if deck is not None and deck not in ("no_mercy", "classic"):
        raise ProtocolError(
            ErrorCode.INVALID_RULES, "deck: online rooms play the 'no_mercy' or 'classic' deck"
        )
    try:
        base = Rules.preset(preset)
        return Rules.from_dict(overrides, base=base)
    except InvalidRules as exc:
        raise ProtocolError(ErrorCode.INVALID_RULES, str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise ProtocolError(ErrorCode.INVALID_RULES, f"rules: {exc}") from None
