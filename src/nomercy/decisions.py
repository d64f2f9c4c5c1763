"""What a seat may decide now, as data for the people at a table.

Front ends (the browser client, the terminal game) show what this module says and
nothing of their own: every legal choice as structured data (its kind, card, color,
target seat and Uno call, a label and what it costs or causes), for each card of the
hand that cannot be played now the reason with its rule ID, and one line saying what is
asked. So no front end restates a rule or reads an action string.

Sentences are :class:`Line` values: a message-catalog key and its parameters (card codes,
color letters, seat numbers, counts). Front ends put them into words from their catalogs;
:meth:`Decisions.to_dict` is the JSON form the server sends (``docs/protocol.md``).

Everything is computed from one :class:`~nomercy.PlayerView`, so nothing a seat may not
see goes into it. The engine stays the judge: ``tests/test_decisions.py`` checks every
reason against the engine's own refusal (the same rule ID) and every cost against what
applying the choice does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from nomercy.actions import Action, CallUno, Catch, Challenge, ChooseColor, Draw, Pass, Play, Take
from nomercy.cards import Card, Color, Face
from nomercy.state import Decision
from nomercy.views import PlayerView

__all__ = ["Blocked", "Choice", "Decisions", "Line", "decisions"]

#: A parameter of a sentence: a card code, a color letter, a seat number or a count.
Param = str | int


@dataclass(frozen=True, slots=True)
class Line:
    """A sentence as a catalog ``key`` with its parameters; ``rule`` names the rule ID
    when the sentence is a reason (``"K3"``)."""

    key: str
    params: tuple[tuple[str, Param], ...] = ()
    rule: str | None = None

    @staticmethod
    def of(key: str, rule: str | None = None, **params: Param | None) -> Line:
        """``Line.of("cost.take", count=6)``; parameters that are None are left out."""
        return Line(key, tuple((k, v) for k, v in params.items() if v is not None), rule)

    @property
    def args(self) -> dict[str, Param]:
        return dict(self.params)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"key": self.key, "params": dict(self.params)}
        if self.rule is not None:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action of the seat, with what a person needs to choose it."""

    action: Action
    #: ``play``, ``draw``, ``pass``, ``take``, ``challenge``, ``color``, ``uno`` or ``catch``.
    kind: str
    card: Card | None
    color: Color | None
    #: The seat a Seven swaps with, or the seat a catch catches.
    target: int | None
    uno: bool
    label: Line
    #: What it costs or causes (cards drawn, who faces a total, hands swapped); None: nothing to say.
    cost: Line | None

    def to_dict(self) -> dict[str, object]:
        return {
            "action": str(self.action),
            "kind": self.kind,
            "card": self.card.code if self.card is not None else None,
            "color": self.color.letter if self.color is not None else None,
            "target": self.target,
            "uno": self.uno,
            "label": self.label.to_dict(),
            "cost": self.cost.to_dict() if self.cost is not None else None,
        }


@dataclass(frozen=True, slots=True)
class Blocked:
    """A card of the hand that cannot be played now, and why (a reason with its rule ID)."""

    card: Card
    reason: Line

    def to_dict(self) -> dict[str, object]:
        return {"card": self.card.code, "reason": self.reason.to_dict()}


@dataclass(frozen=True, slots=True)
class Decisions:
    """Everything a seat may decide now (see :func:`decisions`)."""

    seat: int | None
    #: True when this seat must make the table's next decision (not only a call or a catch).
    deciding: bool
    #: What is asked of this seat now, in one sentence.
    prompt: Line
    choices: tuple[Choice, ...]
    #: The distinct cards of the hand that have no legal play now, in hand order.
    blocked: tuple[Blocked, ...]

    def plays_of(self, card: Card) -> list[Choice]:
        """The legal plays of ``card`` (its colors, Seven targets, with and without Uno)."""
        return [c for c in self.choices if c.kind == "play" and c.card is card]

    def of_kind(self, kind: str) -> list[Choice]:
        return [c for c in self.choices if c.kind == kind]

    def reason(self, card: Card) -> Line | None:
        """Why ``card`` cannot be played now; None when it can (or is not held)."""
        return next((b.reason for b in self.blocked if b.card is card), None)

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "deciding": self.deciding,
            "prompt": self.prompt.to_dict(),
            "choices": [c.to_dict() for c in self.choices],
            "blocked": [b.to_dict() for b in self.blocked],
        }


_DRAW_KINDS: Final[dict[type[Action], str]] = {
    Draw: "draw",
    Pass: "pass",
    Take: "take",
    Challenge: "challenge",
    CallUno: "uno",
}


def decisions(view: PlayerView) -> Decisions:
    """The choices, the blocked cards and the prompt of ``view``'s seat, now.

    One function for every front end: the server puts its :meth:`~Decisions.to_dict` in
    each ``state`` message, and the terminal game numbers, explains and hints from it.
    """
    seat = view.seat
    deciding = seat is not None and seat == view.current_player
    choices = tuple(_choice(view, action) for action in view.legal_actions)
    playable = {c.card for c in choices if c.kind == "play"}
    blocked: list[Blocked] = []
    if seat is not None:
        seen: set[Card] = set()
        for card in view.hand:
            if card not in playable and card not in seen:
                seen.add(card)
                blocked.append(Blocked(card, _reason(view, card, deciding)))
    return Decisions(seat, deciding, _prompt(view, choices, deciding), choices, tuple(blocked))


# -- choices ------------------------------------------------------------------------------


def _choice(view: PlayerView, action: Action) -> Choice:
    if isinstance(action, Play):
        return _play_choice(view, action)
    if isinstance(action, ChooseColor):
        cost = None
        if view.decision is Decision.ROULETTE:  # W4: cards are turned up until this color
            cost = Line.of("cost.roulette", color=action.color.letter)
        return Choice(
            action,
            "color",
            None,
            action.color,
            None,
            False,
            Line.of("choice.color", color=action.color.letter),
            cost,
        )
    if isinstance(action, Catch):  # U2
        cost = Line.of("cost.catch", seat=action.seat, count=view.rules.uno_penalty)
        return Choice(
            action, "catch", None, None, action.seat, False, Line.of("choice.catch", seat=action.seat), cost
        )
    kind = _DRAW_KINDS[type(action)]
    if kind == "take":
        return Choice(action, kind, None, None, None, False, _take_label(view), _take_cost(view))
    if kind == "challenge":  # W6: judged on the hand its player held when they played it
        by = view.last_draw_by
        color = view.wd4_color.letter if view.wd4_color is not None else None
        if by is not None and not view.active[by]:
            # W6/M3: its player was knocked out since; if guilty no one draws and you play on.
            cost = Line.of("cost.challenge_out", seat=by, innocent=view.pending_total + 2, color=color)
        else:
            cost = Line.of(
                "cost.challenge",
                seat=by,
                guilty=view.pending_total,
                innocent=view.pending_total + 2,
                color=color,
            )
        return Choice(action, kind, None, None, None, False, Line.of("choice.challenge", seat=by), cost)
    if kind == "draw":  # T2
        cost = Line.of("cost.draw_one" if view.rules.draw_rule == "one" else "cost.draw_until")
        return Choice(action, kind, None, None, None, False, Line.of("choice.draw"), cost)
    if kind == "pass":  # T2: the drawn card is kept and the turn ends
        drawn = view.drawn.code if view.drawn is not None else None
        return Choice(
            action, kind, None, None, None, False, Line.of("choice.keep", card=drawn), Line.of("cost.keep")
        )
    return Choice(action, kind, None, None, None, False, Line.of("choice.uno"), None)


def _take_label(view: PlayerView) -> Line:
    if view.decision is Decision.CHALLENGE:
        return Line.of("choice.accept", count=view.pending_total)
    return Line.of("choice.take", count=view.pending_total)


def _take_cost(view: PlayerView) -> Line:
    """K2, K8, M1: the whole total, card by card; it knocks out at the Mercy limit."""
    count = view.pending_total
    seat = view.seat
    limit = view.rules.mercy_limit
    if seat is not None and limit is not None and view.hand_sizes[seat] + count >= limit:
        return Line.of("cost.take_knockout", count=count, limit=limit)
    return Line.of("cost.take", count=count)


def _play_choice(view: PlayerView, play: Play) -> Choice:
    card = play.card
    color = play.color.letter if play.color is not None else None
    suffix = "_uno" if play.uno else ""
    if play.target is not None:
        label = Line.of("choice.play_target" + suffix, card=card.code, seat=play.target)
    elif play.color is not None:
        label = Line.of("choice.play_color" + suffix, card=card.code, color=color)
    else:
        label = Line.of("choice.play" + suffix, card=card.code)
    return Choice(play, "play", card, play.color, play.target, play.uno, label, _play_cost(view, play))


def _play_cost(view: PlayerView, play: Play) -> Line | None:
    """What the play causes: who faces a total (K1, K6), who draws (K2, E2), hands moved
    (N1, N2), turns lost (A1, A2, A6), the Roulette (W4), the cards a Discard All takes
    (A5), or the round won (E1)."""
    seat = view.seat
    assert seat is not None
    rules = view.rules
    card = play.card
    face = card.face
    hand = view.hand
    left = len(hand) - 1
    if face is Face.DISCARD_ALL:
        others = sum(1 for c in hand if c.color is card.color) - 1
        left -= others
    if left == 0:  # E1 (N4: a last 7 or 0 moves no hands; E2 for a Draw card)
        if card.is_draw and rules.last_card_draw == "apply":
            total = view.pending_total + card.draw_value
            if face is Face.WILD_REVERSE_DRAW_4:
                victim = view.previous_seat(seat)
            else:
                victim = view.next_seat(seat)
            return Line.of("cost.out_draw", seat=victim, count=total)
        return Line.of("cost.out")
    if card.is_draw:
        victim = view.draw_victim(seat, card)
        if rules.stacking:
            return Line.of("cost.stack", seat=victim, total=view.pending_total + card.draw_value)
        if face is Face.WILD_DRAW_4 and rules.wild_draw4_challenge:
            return Line.of("cost.wd4", seat=victim, count=card.draw_value)
        return Line.of("cost.penalty", seat=victim, count=card.draw_value)
    if face is Face.DISCARD_ALL:
        return Line.of("cost.discard_all", count=len(hand) - 1 - left, color=_letter(card.color))
    if rules.seven_zero:
        if face is Face.SEVEN and play.target is not None:
            return Line.of("cost.swap", seat=play.target, count=view.hand_sizes[play.target])
        if face is Face.ZERO:
            giver = view.previous_seat(seat)
            return Line.of("cost.pass_hands", seat=giver, count=view.hand_sizes[giver])
    two = sum(view.active) == 2
    if face is Face.SKIP:
        return Line.of("cost.skip", seat=view.next_seat(seat))
    if face is Face.REVERSE:
        if two and rules.two_player_reverse == "self":
            return Line.of("cost.again")
        return Line.of("cost.reverse")
    if face is Face.SKIP_EVERYONE:
        return Line.of("cost.again" if two else "cost.skip_everyone")
    if face is Face.WILD_COLOR_ROULETTE:
        return Line.of("cost.roulette_play", seat=view.next_seat(seat))
    return None


# -- reasons -------------------------------------------------------------------------------


def _reason(view: PlayerView, card: Card, deciding: bool) -> Line:
    """Why ``card`` has no legal play now, with the rule that says so."""
    seat = view.seat
    assert seat is not None
    decision = view.decision
    if view.outcome is not None or view.current_player is None:
        return Line.of("reason.over", rule="E1")
    if not view.active[seat]:
        return Line.of("reason.knocked_out", rule="M3")
    if not deciding:
        return Line.of("reason.not_your_turn", rule="T1", seat=view.current_player)
    rules = view.rules
    if decision is Decision.STACK:
        last = view.last_draw_value
        if not card.is_draw:
            return Line.of("reason.not_a_draw", rule="K4", card=card.code, total=view.pending_total)
        if last == 10 and not rules.draw10_stackable:
            return Line.of("reason.draw10_closed", rule="K3")
        if card.draw_value < last:
            return Line.of("reason.too_low", rule="K3", card=card.code, least=last)
        return Line.of(
            "reason.stack_color", rule="K5", card=card.code, color=_letter(view.color), top=view.top.code
        )
    if decision is Decision.PLAY_DRAWN:
        drawn = view.drawn.code if view.drawn is not None else None
        return Line.of("reason.only_drawn", rule="T2", card=drawn)
    if decision is Decision.CHALLENGE:
        return Line.of("reason.challenge_first", rule="W6", count=view.pending_total)
    if decision is Decision.ROULETTE:
        return Line.of("reason.roulette_first", rule="W4")
    if decision is Decision.CHOOSE_COLOR:
        if _after_shuffle(view):
            return Line.of("reason.shuffle_color_first", rule="W7")
        return Line.of("reason.first_color", rule="S3")
    if card.face is Face.WILD_DRAW_4 and rules.wild_draw4_restricted:
        return Line.of("reason.wd4_restricted", rule="W5")
    top = view.top
    if top.is_wild:  # T1: the color named for it is what matches
        return Line.of(
            "reason.no_match_wild", rule="T1", card=card.code, top=top.code, color=_letter(view.color)
        )
    return Line.of("reason.no_match", rule="T1", card=card.code, top=top.code)


def _after_shuffle(view: PlayerView) -> bool:
    """W7: the color to name is a Wild Shuffle Hands' (after its deal), not a first card's
    (S3, named while no color is in play yet)."""
    return view.top.face is Face.WILD_SHUFFLE_HANDS and view.color is not None


def _letter(color: Color | None) -> str | None:
    return color.letter if color is not None else None


# -- the prompt ------------------------------------------------------------------------------


def _prompt(view: PlayerView, choices: tuple[Choice, ...], deciding: bool) -> Line:
    seat = view.seat
    kinds = {c.kind for c in choices}
    if view.outcome is not None or view.current_player is None:
        return Line.of("prompt.over", seat=view.outcome.winner if view.outcome is not None else None)
    if seat is None:
        return _waiting(view, "prompt.watching")
    if not view.active[seat]:
        return Line.of("prompt.knocked_out")
    if "uno" in kinds:
        return Line.of("prompt.call_uno")
    if "catch" in kinds and not deciding:
        catch = next(c for c in choices if c.kind == "catch")
        return Line.of("prompt.catch", seat=catch.target, count=view.rules.uno_penalty)
    if not deciding:
        return _waiting(view, "prompt.waiting")
    decision = view.decision
    plays = "play" in kinds
    if decision is Decision.STACK:
        if plays:
            return Line.of("prompt.stack", total=view.pending_total)
        return Line.of("prompt.take", total=view.pending_total)
    if decision is Decision.CHALLENGE:
        return Line.of(
            "prompt.challenge",
            seat=view.last_draw_by,
            count=view.pending_total,
            color=_letter(view.wd4_color),
        )
    if decision is Decision.ROULETTE:
        return Line.of("prompt.roulette")
    if decision is Decision.CHOOSE_COLOR:
        return Line.of("prompt.shuffle_color" if _after_shuffle(view) else "prompt.first_color")
    if decision is Decision.PLAY_DRAWN:
        drawn = view.drawn.code if view.drawn is not None else None
        return Line.of("prompt.play_drawn_or_keep" if "pass" in kinds else "prompt.play_drawn", card=drawn)
    if not plays:
        return Line.of("prompt.must_draw")
    if "draw" in kinds:
        return Line.of("prompt.play_or_draw")
    return Line.of("prompt.play")


def _waiting(view: PlayerView, key: str) -> Line:
    """Whom the table waits for, and for what."""
    decision = view.decision
    what = {
        Decision.STACK: "stack",
        Decision.CHALLENGE: "challenge",
        Decision.ROULETTE: "color",
        Decision.CHOOSE_COLOR: "color",
    }.get(decision, "play")
    return Line.of(f"{key}.{what}", seat=view.current_player, total=view.pending_total or None)
