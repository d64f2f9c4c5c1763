"""Actions: every decision a player makes, with a text form that round-trips.

========================  =================================================
text                      meaning
========================  =================================================
``play R7``               play a card
``play W+6 B``            play a wild and name the color (T5)
``play G7 @2``            play a Seven and swap hands with seat 2 (N1)
``play R5 uno``           play and call Uno with it (U1); combines with the above
``draw``                  draw (T2: until playable, or one card)
``pass``                  keep the card just drawn (only where a house rule allows)
``take``                  take the pending draw total (K2)
``challenge``             challenge the Wild Draw 4 you face instead of taking it (W6)
``color G``               name a color: the Roulette color (W4) or a first wild's (S3)
``uno``                   call Uno after the play, before anyone catches you (U1)
``catch 3``               catch seat 3, who did not call Uno (U2)
========================  =================================================

Actions are small immutable values; equal actions compare and hash equal, and
``Action.parse(str(a)) == a`` for every action.
"""

from __future__ import annotations

from typing import ClassVar, Final

from nomercy.cards import Card, Color
from nomercy.errors import InvalidAction, InvalidCard

__all__ = ["Action", "CallUno", "Catch", "Challenge", "ChooseColor", "Draw", "Pass", "Play", "Take"]


class Action:
    """Base of all actions. Use :meth:`parse` to read the text form."""

    __slots__ = ("_key",)
    kind: ClassVar[str] = ""
    #: True for the actions a seat may take when it is not deciding (``uno``, ``catch N``;
    #: U1-U3): drivers ask every other seat for these after each action.
    out_of_turn: ClassVar[bool] = False

    def __init__(self, key: tuple[object, ...]) -> None:
        self._key: Final = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __setattr__(self, name: str, value: object) -> None:
        # Immutable, like Card: each attribute is set once, by __init__. (The subclasses'
        # attributes are not Final: compiled, their __init__ writes them through here.)
        if hasattr(self, name):
            raise AttributeError(f"{type(self).__name__} objects are immutable")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Action.parse, (str(self),))

    @staticmethod
    def parse(text: str) -> Action:
        """Parse the text form (case-insensitive); raises :class:`InvalidAction`."""
        words = text.split()
        if not words:
            raise InvalidAction("empty action: try 'play R7', 'draw', 'take' or 'color G'")
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "play":
                return _parse_play(args, text)
            if verb == "color" and len(args) == 1:
                return ChooseColor(Color.parse(args[0]))
            if verb == "catch" and len(args) == 1:
                return Catch(_parse_seat(args[0], text))
        except InvalidCard as exc:
            raise InvalidAction(f"{text!r}: {exc}") from None
        simple = {"draw": DRAW, "pass": PASS, "take": TAKE, "challenge": CHALLENGE, "uno": CALL_UNO}
        if verb in simple and not args:
            return simple[verb]
        raise InvalidAction(
            f"{text!r} is not an action: use play CARD [COLOR] [@SEAT] [uno], draw, pass, "
            "take, challenge, color C, uno or catch SEAT"
        )


def _parse_seat(word: str, text: str) -> int:
    word = word.lstrip("@")
    if not (word.isascii() and word.isdigit()):  # int() refuses "²", which isdigit() accepts
        raise InvalidAction(f"{text!r}: {word!r} is not a seat number")
    return int(word)


def _parse_play(args: list[str], text: str) -> Play:
    if not args:
        raise InvalidAction(f"{text!r}: which card? e.g. 'play R7'")
    card = Card.parse(args[0])
    color: Color | None = None
    target: int | None = None
    uno = False
    for word in args[1:]:
        if word.lower() == "uno" and not uno:
            uno = True
        elif word.startswith("@") and target is None:
            target = _parse_seat(word, text)
        elif color is None and target is None and not uno:
            color = Color.parse(word)
        else:
            raise InvalidAction(f"{text!r}: unexpected {word!r} (form: play CARD [COLOR] [@SEAT] [uno])")
    return Play(card, color, target, uno)


class Play(Action):
    """Play ``card``; ``color`` for a wild (T5), ``target`` for a Seven (N1), ``uno`` to call."""

    __slots__ = ("card", "color", "target", "uno")
    kind: ClassVar[str] = "play"

    def __init__(
        self, card: Card, color: Color | None = None, target: int | None = None, uno: bool = False
    ) -> None:
        self.card = card
        self.color = color
        self.target = target
        self.uno = uno
        super().__init__(("play", card.index, color, target, uno))

    def __str__(self) -> str:
        text = "play " + card_code(self.card)
        if self.color is not None:
            text += " " + self.color.letter
        if self.target is not None:
            text += f" @{self.target}"
        if self.uno:
            text += " uno"
        return text

    def with_uno(self) -> Play:
        return Play(self.card, self.color, self.target, True)


def card_code(card: Card) -> str:
    return card.code


class _Bare(Action):
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((self.kind,))

    def __str__(self) -> str:
        return self.kind


class Draw(_Bare):
    """Draw: until a playable card (T2 default) or a single card (``draw_rule='one'``)."""

    __slots__ = ()
    kind: ClassVar[str] = "draw"


class Pass(_Bare):
    """Keep the card just drawn and end the turn (only when the rules allow it, T2)."""

    __slots__ = ()
    kind: ClassVar[str] = "pass"


class Take(_Bare):
    """Take the whole pending draw total and lose the turn (K2)."""

    __slots__ = ()
    kind: ClassVar[str] = "take"


class Challenge(_Bare):
    """Challenge the Wild Draw 4 you face instead of taking it (W6, wild_draw4_challenge)."""

    __slots__ = ()
    kind: ClassVar[str] = "challenge"


class CallUno(_Bare):
    """Call Uno after a play that left you one card, before you are caught (U1, U3)."""

    __slots__ = ()
    kind: ClassVar[str] = "uno"
    out_of_turn: ClassVar[bool] = True


class ChooseColor(Action):
    """Name a color: the Roulette's victim (W4), or the first player for a first wild (S3)."""

    __slots__ = ("color",)
    kind: ClassVar[str] = "color"

    def __init__(self, color: Color) -> None:
        self.color = color
        super().__init__(("color", color))

    def __str__(self) -> str:
        return f"color {self.color.letter}"


class Catch(Action):
    """Catch ``seat``, who left themselves one card without calling Uno (U2)."""

    __slots__ = ("seat",)
    kind: ClassVar[str] = "catch"
    out_of_turn: ClassVar[bool] = True

    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(("catch", seat))

    def __str__(self) -> str:
        return f"catch {self.seat}"


DRAW = Draw()
PASS = Pass()
TAKE = Take()
CHALLENGE = Challenge()
CALL_UNO = CallUno()
CHOOSE_COLOR = tuple(ChooseColor(c) for c in Color)
