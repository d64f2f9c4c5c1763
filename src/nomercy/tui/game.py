"""The terminal game loop: the person's turns, the bots' turns at a readable pace.

Bots move through the shared runner (:func:`nomercy.bots.runner.step`), which also lets
them catch a player who forgot to call Uno (U2). The person's typed lines go through
:mod:`nomercy.tui.inputs`; the engine decides what is legal and its refusal, in game
terms, is shown in one line before the same prompt comes back. ``q`` or Ctrl-C saves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.text import Text

from nomercy.actions import CALL_UNO, CHALLENGE, DRAW, PASS, TAKE, Action, Catch, ChooseColor, Play
from nomercy.bots.runner import StepResult, reactions, step
from nomercy.cards import Card, Color, Face
from nomercy.engine import started_event
from nomercy.errors import IllegalAction, NoMercyError
from nomercy.events import redact
from nomercy.rules import Rules
from nomercy.state import Decision
from nomercy.tui import render
from nomercy.tui.hand import playable, plays_of, sort_key
from nomercy.tui.inputs import HELP, Command, InputError, parse_color, parse_command, parse_seat
from nomercy.tui.session import Session
from nomercy.views import PlayerView, player_view


class QuitGame(Exception):
    """The person asked to stop: save and leave."""


class Cancelled(Exception):
    """An empty line at a color or target prompt: back to the main prompt."""


def rules_summary(rules: Rules) -> str:
    """The rules that matter at the table, in a few lines, naming the rule IDs."""
    lines = ["Match the top card by color, number or symbol; a wild goes on anything (T1)."]
    if rules.draw_rule == "until_playable":
        keep = "play it" if rules.must_play_drawn else "play it or keep it"
        lines.append(f"Nothing to play? Draw until you get a playable card, then {keep} (T2).")
    else:
        lines.append("Nothing to play? Draw one card; play it if it matches (T2).")
    if rules.stacking:
        top = "" if rules.draw10_stackable else "; nothing goes on a Wild Draw 10"
        lines.append(f"Facing +N: stack a Draw card of equal or higher value, or take it all (K2-K3{top}).")
    else:
        lines.append("A Draw card's victim draws and loses the turn; no stacking (K2).")
    if rules.seven_zero:
        lines.append("A 7 swaps your hand with a player you pick; a 0 passes every hand on (N1-N2).")
    if rules.mercy_limit is not None:
        lines.append(f"Holding {rules.mercy_limit} cards or more knocks you out of the round (M1).")
    if rules.uno_calls:
        lines.append(
            f"Call Uno with the play that leaves one card (r5 u); caught: +{rules.uno_penalty} (U1-U2)."
        )
    bonus = ", and 250 per knock-out" if rules.mercy_limit is not None else ""
    lines.append(f"The winner scores the cards left in other hands{bonus} (E3).")
    lines.append(f"A match goes to {rules.target_score} points (E4).")
    changed = rules.to_dict(only_changes=True)
    if changed:
        lines.append("House rules changed here: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
    return "\n".join(lines)


class Game:
    """Plays a :class:`Session` in a terminal until it ends or the person quits."""

    def __init__(
        self,
        session: Session,
        console: Console,
        save_path: Path,
        delay: float = 0.6,
        read: Callable[[str], str] | None = None,
    ) -> None:
        self.session = session
        self.console = console
        self.save_path = save_path
        self.delay = delay
        self.read = read or (lambda prompt: console.input(Text(prompt, style="bold")))
        self.log: list[str] = []
        self.uno_armed = False

    @property
    def human(self) -> int:
        return self.session.human

    # -- the whole game ------------------------------------------------------------------

    def run(self) -> bool:
        """Play on; True when the game finished, False when it was saved to go on later."""
        try:
            while True:
                self.play_round()
                self.end_of_round()
                if self.session.finished:
                    break
                self.pause("Enter deals the next round, q saves and quits: ")
                match = self.session.match
                assert match is not None
                match.next_round()
                self.log.clear()
        except (QuitGame, KeyboardInterrupt, EOFError):
            self.session.save(self.save_path)
            self.console.print(f"\nGame saved to {self.save_path}", soft_wrap=True, markup=False)
            self.console.print(
                f"Continue it with: nomercy play --resume {self.save_path}", soft_wrap=True, markup=False
            )
            return False
        self.session.save(self.save_path)
        self.console.print(f"\nThe game is saved in {self.save_path}", soft_wrap=True, markup=False)
        self.console.print(f"Watch it again: nomercy replay {self.save_path}", soft_wrap=True, markup=False)
        return True

    def play_round(self) -> None:
        state = self.session.state
        if not self.log:
            if self.session.round_actions:
                self.log.extend(self.session.replayed_log[-5:])
                self.log.append(f"(game resumed after {len(self.session.round_actions)} moves)")
            elif self.session.started is None:
                self.log.append(started_event(state).describe())
        while not state.is_over:
            if state.current == self.human:
                self.human_turn()
            else:
                self.show(step(state, self.session.bots, apply=self.session.apply))
            self.offer_catch()

    def end_of_round(self) -> None:
        state = self.session.state
        outcome = state.outcome
        assert outcome is not None
        names = self.session.names
        self.console.print()
        self.console.print(render.outcome_panel(outcome, names))
        for seat in range(state.players):
            if seat != outcome.winner and state.active[seat] and state.hands[seat]:
                line = Text(f"  {render.player_name(seat, names)} held ")
                for i, card in enumerate(sorted(state.hands[seat], key=sort_key)):
                    if i:
                        line.append(" ")
                    line.append_text(render.card_text(card))
                line.append(f"  ({sum(c.points for c in state.hands[seat])} points)")
                self.console.print(line)
        match = self.session.match
        if match is not None and self.session.match_mode:
            self.console.print(render.scoreboard(match.rounds, match.scores, names, match.rules.target_score))
            if match.is_over and match.winner is not None:
                self.console.print(
                    Text(f"{render.player_name(match.winner, names)} wins the match!", style="bold green")
                )

    # -- showing what happened --------------------------------------------------------

    def show(self, results: list[StepResult]) -> None:
        """Log each action's events, pausing after a bot's so a person can follow."""
        for result in results:
            line = render.describe(redact(result.events, self.human))
            self.log.append(line)
            style = "" if result.seat == self.human else "cyan"
            self.console.print(Text("  " + line, style=style))
            if result.seat != self.human and self.delay > 0:
                time.sleep(self.delay)

    def title(self, view: PlayerView) -> str:
        match = self.session.match
        where = f"round {match.round_number}" if match is not None else "practice round"
        if match is not None and self.session.match_mode:
            where += f" of a match to {match.rules.target_score}"
        turn = "your turn" if view.is_my_turn else f"P{view.current_player}'s turn"
        return f"nomercy · {where} · {turn}"

    def draw_screen(self, view: PlayerView) -> None:
        notices = [render.decision_hint(view)]
        for seat in view.uno_open:
            if seat != self.human:
                notices.append(f"P{seat} did not call Uno: c catches them (U2).")
        if self.uno_armed:
            notices.append("Uno is armed: your next play calls it.")
        log_limit = self.log_room(view, len(notices))
        if self.console.is_terminal:
            self.console.clear()
        self.console.print(
            render.screen(view, self.session.names, self.log, self.title(view), notices, log_limit)
        )

    def log_room(self, view: PlayerView, notices: int) -> int:
        """How many log lines fit under the rest of the screen (at least 2, at most 12)."""
        rows = -(-view.players // (2 if view.players > 3 else 1))
        groups = len({c.color for c in view.hand})
        stack = 1 if view.pending_total else 0
        # title, players, top card, order, stack, "earlier", hand title, groups, notices,
        # prompt, and one spare line for an error message
        used = 1 + rows + 2 + stack + 1 + 1 + groups + notices + 1 + 1
        return max(2, min(12, self.console.size.height - used))

    def error(self, message: str) -> None:
        self.console.print(Text(f"✗ {message}", style="bold red"))

    # -- the person's decisions -------------------------------------------------------

    def human_turn(self) -> None:
        state = self.session.state
        view = player_view(state, self.human)
        self.draw_screen(view)
        prompt = "Your move (? for help): "
        if view.decision in (Decision.ROULETTE, Decision.CHOOSE_COLOR):
            prompt = "Name a color, r y g or b (? for help): "
        while True:
            line = self.read(prompt)
            try:
                action = self.interpret(line, view)
                if action is None:
                    continue
                events = self.session.apply(action, self.human)
            except Cancelled:
                continue
            except (InputError, NoMercyError) as exc:
                self.error(str(exc))
                continue
            break
        if isinstance(action, Play):
            self.uno_armed = False
        self.session.tell(events)
        self.show([StepResult(self.human, action, events)])
        self.show(reactions(state, self.session.bots, after=self.human, apply=self.session.apply))

    def interpret(self, line: str, view: PlayerView) -> Action | None:
        """The action a line asks for (None: help shown, nothing to apply)."""
        if view.decision in (Decision.ROULETTE, Decision.CHOOSE_COLOR):
            word = line.strip().lower()
            if word in ("q", "quit", "save"):
                raise QuitGame
            if word in ("?", "h", "help"):
                self.console.print(HELP)
                return None
            if word in ("c", "catch") or word.startswith("catch "):
                return self.catch(parse_command(line), view)
            return ChooseColor(parse_color(line))
        command = parse_command(line)
        kind = command.kind
        if kind == "quit":
            raise QuitGame
        if kind == "help":
            self.console.print(HELP)
            return None
        if kind == "rules":
            self.console.print(rules_summary(view.rules))
            return None
        if kind == "draw":
            return DRAW
        if kind == "take":
            return TAKE
        if kind == "challenge":
            return CHALLENGE
        if kind == "pass":
            return PASS
        if kind == "catch":
            return self.catch(command, view)
        if kind == "uno":
            return self.uno(view)
        return self.play(command, view)

    def catch(self, command: Command, view: PlayerView) -> Action:
        if command.seat is not None:
            return Catch(command.seat)
        catches = [a for a in view.legal_actions if isinstance(a, Catch)]
        if not catches:
            raise InputError(
                "nobody can be caught now: only a player who left themselves one card without "
                "calling Uno, until the next turn begins (U2)"
            )
        return catches[0]

    def uno(self, view: PlayerView) -> Action | None:
        if CALL_UNO in view.legal_actions:
            return CALL_UNO
        if view.is_my_turn and len(view.hand) == 2 and view.decision in (Decision.PLAY, Decision.PLAY_DRAWN):
            self.uno_armed = True
            self.console.print("Uno! Your next play calls it.")
            return None
        raise InputError(
            "call Uno with the play that leaves you one card (U1): e.g. r5 u, or u then your card"
        )

    def play(self, command: Command, view: PlayerView) -> Action:
        card = self.chosen_card(command, view)
        plays = plays_of(view.legal_actions, card)
        if not plays:
            raise InputError(self.why_not(card, command, view))
        color = command.color
        if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE and color is None:
            color = self.ask_color(f"Color to name for {card.code}? r y g b; Enter: back: ")
        target = command.target
        if target is None and any(p.target is not None for p in plays):
            target = self.ask_target(view, [p.target for p in plays if p.target is not None])
        want_uno = command.uno or self.uno_armed
        action = Play(card, color, target, want_uno)
        if want_uno and not command.uno and action not in plays:
            action = Play(card, color, target, False)  # an armed call that this play does not need
        return action

    def chosen_card(self, command: Command, view: PlayerView) -> Card:
        if command.card is not None:
            return command.card
        assert command.number is not None
        cards = playable(view)
        if not cards:
            what = "t to take the stack" if view.decision is Decision.STACK else "d to draw"
            raise InputError(f"none of your cards can be played now: {what}")
        if not 1 <= command.number <= len(cards):
            raise InputError(
                f"there is no card {command.number}: the playable cards are numbered 1-{len(cards)}"
            )
        return cards[command.number - 1]

    def why_not(self, card: Card, command: Command, view: PlayerView) -> str:
        """The engine's reason that no play of ``card`` is legal, in game terms."""
        if card not in view.hand:
            return f"you have no {card.code} ({card.face.title}) in your hand"
        trial = self.session.state.clone()
        color = command.color
        if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE and color is None:
            color = Color.RED  # any color: the question is whether the card may be played at all
        target = command.target
        if target is None and card.face is Face.SEVEN:
            target = next((s for s in range(view.players) if s != self.human and view.active[s]), None)
        try:
            trial.apply(Play(card, color, target, command.uno), self.human)
        except IllegalAction as exc:
            return str(exc)
        return f"{card.code} cannot be played now"

    def read_answer(self, prompt: str) -> str:
        """A prompt's answer; a blank line goes back (Cancelled), q quits (QuitGame)."""
        line = self.read(prompt)
        if not line.strip():
            raise Cancelled
        if line.strip().lower() in ("q", "quit"):
            raise QuitGame
        return line

    def ask_color(self, prompt: str) -> Color:
        while True:
            line = self.read_answer(prompt)
            try:
                return parse_color(line)
            except InputError as exc:
                self.error(str(exc))

    def ask_target(self, view: PlayerView, targets: list[int]) -> int:
        choices = ", ".join(f"{t}=P{t} ({view.hand_sizes[t]} cards)" for t in sorted(set(targets)))
        prompt = f"Swap hands with whom? {choices}; Enter: back: "
        while True:
            line = self.read_answer(prompt)
            try:
                seat = parse_seat(line)
                if seat not in targets:
                    raise InputError(self.why_not_target(view, seat))
                return seat
            except InputError as exc:
                self.error(str(exc))

    def why_not_target(self, view: PlayerView, seat: int) -> str:
        if seat == self.human:
            return "that is you: a Seven swaps with another player (N1)"
        if not 0 <= seat < view.players:
            return f"there is no P{seat} at this table: pick one of the players listed"
        if not view.active[seat]:
            return f"P{seat} is knocked out and cannot be swapped with (M3)"
        return f"P{seat} cannot be picked: choose one of the players listed"

    # -- catching a bot that forgot Uno ----------------------------------------------

    def offer_catch(self) -> None:
        """After a bot's move: a bot open to a catch (U2) can be caught by the person."""
        state = self.session.state
        others = [x for x in state.uno_open if x != self.human]
        if not others or state.is_over or state.current == self.human:
            return
        seat = others[0]
        if Catch(seat) not in state.legal_actions(self.human):
            return
        name = render.player_name(seat, self.session.names)
        line = self.read(f"{name} is down to one card and did not call Uno! c catches, Enter lets it go: ")
        word = line.strip().lower()
        if word in ("q", "quit"):
            raise QuitGame
        if word not in ("c", "catch"):
            return
        events = self.session.apply(Catch(seat), self.human)
        self.session.tell(events)
        self.show([StepResult(self.human, Catch(seat), events)])

    def pause(self, prompt: str) -> None:
        if self.read(prompt).strip().lower() in ("q", "quit"):
            raise QuitGame
