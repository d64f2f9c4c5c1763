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
from nomercy.bots import parse_spec
from nomercy.bots.review import suggest
from nomercy.bots.runner import StepResult, reactions, step
from nomercy.cards import Card, Color
from nomercy.decisions import Choice, Decisions, decisions
from nomercy.engine import started_event
from nomercy.errors import NoMercyError
from nomercy.events import Event, redact
from nomercy.i18n import Catalog, catalog
from nomercy.rules import Rules
from nomercy.seeding import derive_seed
from nomercy.summary import rules_summary as summary_lines
from nomercy.tui import render
from nomercy.tui.hand import playable, sort_key
from nomercy.tui.inputs import Command, InputError, parse_color, parse_command, parse_seat
from nomercy.tui.session import Session
from nomercy.views import PlayerView, player_view


class QuitGame(Exception):
    """The person asked to stop: save and leave."""


class Cancelled(Exception):
    """An empty line at a color or target prompt: back to the main prompt."""


def rules_summary(rules: Rules, cat: Catalog | None = None) -> str:
    """The rules that matter at the table, in a few lines, naming the rule IDs (the
    core's summary, :func:`nomercy.summary.rules_summary`, in the player's words)."""
    cat = cat or catalog("en")
    lines = [
        cat.text("term.rule_id", text=cat.line(line).rstrip("."), rule=line.rule)
        for line in summary_lines(rules)
    ]
    changed = rules.to_dict(only_changes=True)
    if changed:
        listed = ", ".join(f"{k}={v}" for k, v in changed.items())
        lines.append(cat.text("term.house_rules_changed", list=listed))
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
        lang: str = "en",
        cat: Catalog | None = None,
        coach_native: bool | None = None,
    ) -> None:
        self.session = session
        self.console = console
        self.save_path = save_path
        self.delay = delay
        self.read = read or (lambda prompt: console.input(Text(prompt, style="bold")))
        self.cat = cat or catalog(lang)
        #: The seats' names in this language: bots by character or level (term.bot_name.*).
        self.names = session.seat_names(self.cat)
        self.log: list[str] = []
        self.uno_armed = False
        #: The coach's playouts: native when installed (None), or Python (False).
        self.coach_native = coach_native

    @property
    def human(self) -> int:
        return self.session.human

    def t(self, key: str, **params: object) -> str:
        """A message of the catalog, seats named ``P<n> name``, the person "you"."""
        return self.cat.text(key, render.words_for(self.human, self.names), **params)

    def phrase(self, key: str, **params: object) -> str:
        return self.cat.phrase(key, render.words_for(self.human, self.names), **params)

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style), soft_wrap=True)

    # -- the whole game ------------------------------------------------------------------

    def run(self) -> bool:
        """Play on; True when the game finished, False when it was saved to go on later."""
        try:
            while True:
                self.play_round()
                self.end_of_round()
                if self.session.finished:
                    break
                self.pause(self.t("term.next_round_prompt"))
                match = self.session.match
                assert match is not None
                match.next_round()
                self.log.clear()
        except (QuitGame, KeyboardInterrupt, EOFError):
            self.session.save(self.save_path)
            self.say("\n" + self.t("term.saved", path=str(self.save_path)))
            self.say(self.t("term.continue", path=str(self.save_path)))
            return False
        self.session.save(self.save_path)
        self.say("\n" + self.t("term.saved_final", path=str(self.save_path)))
        self.say(self.t("term.watch_again", path=str(self.save_path)))
        return True

    def play_round(self) -> None:
        state = self.session.state
        if not self.log:
            if self.session.round_actions:
                self.log.extend(self.describe(events) for events in self.session.replayed[-5:])
                self.log.append(self.t("term.resumed", count=len(self.session.round_actions)))
            elif self.session.started is None:
                self.log.append(self.describe([started_event(state)]))
                self.log.extend(self.introductions())
        while not state.is_over:
            if state.current == self.human:
                self.human_turn()
            else:
                self.show(step(state, self.session.bots, apply=self.session.apply))
            self.offer_catch()

    def introductions(self) -> list[str]:
        """A line per bot that says how it plays, and at which level when one was asked
        for, so the person knows whom they face."""
        lines = []
        for seat, spec in enumerate(self.session.specs):
            if spec is None:
                continue
            name, options = parse_spec(spec.name)
            if f"term.bot_about.{name}" not in self.cat:
                continue
            about = self.phrase(f"term.bot_about.{name}")
            level = str(options.get("level", ""))
            if level and f"term.bot_name.{level}" in self.cat:  # a character at a level
                level_name = self.cat.text(f"term.bot_name.{level}")
                lines.append(self.t("term.bot_intro_level", seat=seat, about=about, level=level_name))
            else:
                lines.append(self.t("term.bot_intro", seat=seat, about=about))
        return lines

    def end_of_round(self) -> None:
        state = self.session.state
        outcome = state.outcome
        assert outcome is not None
        names = self.names
        self.console.print()
        self.console.print(render.outcome_panel(outcome, names, self.cat))
        for seat in range(state.players):
            if seat != outcome.winner and state.active[seat] and state.hands[seat]:
                line = Text("  " + self.cat.text("term.held", render.words_for(None, names), seat=seat) + " ")
                for i, card in enumerate(sorted(state.hands[seat], key=sort_key)):
                    if i:
                        line.append(" ")
                    line.append_text(render.card_text(card))
                line.append("  " + self.t("term.points", count=sum(c.points for c in state.hands[seat])))
                self.console.print(line)
        match = self.session.match
        if match is not None and self.session.match_mode:
            self.console.print(
                render.scoreboard(match.rounds, match.scores, names, match.rules.target_score, self.cat)
            )
            if match.is_over and match.winner is not None:
                winner = self.cat.text("term.match_winner", render.words_for(None, names), seat=match.winner)
                self.say(winner, "bold green")

    # -- showing what happened --------------------------------------------------------

    def describe(self, events: list[Event]) -> str:
        """A log line; the round's end is left to the outcome panel, said once."""
        words = render.words_for(self.human, self.names)
        return render.describe(events, self.cat, words, outcome=False)

    def show(self, results: list[StepResult]) -> None:
        """Log each action's events, pausing after a bot's so a person can follow."""
        for result in results:
            line = self.describe(redact(result.events, self.human))
            self.log.append(line)
            style = "" if result.seat == self.human else "cyan"
            self.console.print(Text("  " + line, style=style))
            if result.seat != self.human and self.delay > 0:
                time.sleep(self.delay)

    def title(self, view: PlayerView) -> str:
        match = self.session.match
        if match is None:
            where = self.phrase("term.title_practice")
        elif self.session.match_mode:
            where = self.phrase(
                "term.title_round_match", number=match.round_number, points=match.rules.target_score
            )
        else:
            where = self.phrase("term.title_round", number=match.round_number)
        turn = (
            self.phrase("term.your_turn")
            if view.is_my_turn
            else self.phrase("term.turn_of", seat=view.current_player)
        )
        return f"nomercy · {where} · {turn}"

    def draw_screen(self, view: PlayerView, d: Decisions) -> None:
        words = render.words_for(self.human, self.names)
        notices = [render.decision_hint(view, d, self.cat, words)]
        notices.extend(self.t("term.catch_notice", seat=seat) for seat in view.uno_open if seat != self.human)
        if self.uno_armed:
            notices.append(self.t("term.uno_armed"))
        log_limit = self.log_room(view, len(notices))
        if self.console.is_terminal:
            self.console.clear()
        self.console.print(
            render.screen(view, self.names, self.log, self.title(view), notices, log_limit, self.cat)
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

    def explain(self, exc: InputError) -> str:
        return self.t(exc.key, **exc.params)

    # -- the person's decisions -------------------------------------------------------

    def human_turn(self) -> None:
        state = self.session.state
        view = player_view(state, self.human)
        d = decisions(view)
        self.draw_screen(view, d)
        naming = bool(d.of_kind("color"))  # the Roulette's or the first card's color (W4, S3)
        prompt = self.t("term.prompt_color" if naming else "term.prompt_move")
        while True:
            line = self.read(prompt)
            try:
                action = self.interpret(line, view, d)
                if action is None:
                    continue
                if action not in view.legal_actions:
                    raise self.refusal(action, view, d)
                events = self.session.apply(action, self.human)
            except Cancelled:
                continue
            except InputError as exc:
                self.error(self.explain(exc))
                continue
            except NoMercyError as exc:
                self.error(str(exc))
                continue
            break
        if isinstance(action, Play):
            self.uno_armed = False
        self.session.tell(events)
        self.show([StepResult(self.human, action, events)])
        self.show(reactions(state, self.session.bots, after=self.human, apply=self.session.apply))

    def refusal(self, action: Action, view: PlayerView, d: Decisions) -> InputError:
        """Why ``action`` is not one of the choices, from the core's reasons and prompt."""
        if isinstance(action, Play):
            reason = d.reason(action.card)
            if action.card not in view.hand:
                return InputError(
                    "term.err.not_held", card=action.card.code, name=self.cat.card_name(action.card)
                )
            if reason is not None:
                return InputError(reason.key, **reason.args)
            return self.variant_refusal(action, d.plays_of(action.card))
        if isinstance(action, Catch):
            return InputError("term.err.cannot_catch", seat=action.seat)
        if action == CALL_UNO:
            return InputError("term.err.uno_when")
        words = render.words_for(self.human, self.names)
        what = self.phrase("term.what." + action.kind)
        return InputError("term.err.not_now", what=what, prompt=self.cat.line(d.prompt, words))

    @staticmethod
    def variant_refusal(action: Play, plays: list[Choice]) -> InputError:
        """Why a playable card cannot be played as typed: what its legal plays lack."""
        card = action.card.code
        if action.uno and not any(p.uno for p in plays):  # U1
            return InputError("term.err.uno_not_last", card=card)
        if action.color is not None and all(p.color is None for p in plays):
            return InputError("term.err.no_color", card=card)
        if action.target is not None and all(p.target is None for p in plays):
            return InputError("term.err.no_target", card=card)
        return InputError("term.err.play_variant", card=card)

    def interpret(self, line: str, view: PlayerView, d: Decisions) -> Action | None:
        """The action a line asks for (None: help shown, nothing to apply)."""
        if d.of_kind("color"):
            word = line.strip().lower()
            if word in ("q", "quit", "save"):
                raise QuitGame
            if word in ("?", "h", "help"):
                self.console.print(self.t("term.help"), markup=False)
                return None
            if word in ("a", "advice", "hint", "tips"):  # never g: green, at this prompt
                self.coach()
                return None
            if word in ("c", "catch") or word.startswith("catch "):
                return self.catch(parse_command(line), view)
            return ChooseColor(parse_color(line))
        command = parse_command(line)
        kind = command.kind
        if kind == "quit":
            raise QuitGame
        if kind == "help":
            self.console.print(self.t("term.help"), markup=False)
            return None
        if kind == "rules":
            self.console.print(rules_summary(view.rules, self.cat), markup=False)
            return None
        if kind == "hint":
            self.coach()
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
            return self.uno(d)
        return self.play(command, view, d)

    def catch(self, command: Command, view: PlayerView) -> Action:
        if command.seat is not None:
            return Catch(command.seat)
        catches = [a for a in view.legal_actions if isinstance(a, Catch)]
        if not catches:
            raise InputError("term.err.nobody_to_catch")
        return catches[0]

    def uno(self, d: Decisions) -> Action | None:
        """``u``: the late call (U1) when it is one of the choices; else it arms the call for
        the next play, where some play of this turn may call it (the core lists those)."""
        late = d.of_kind("uno")
        if late:
            return late[0].action
        if any(c.uno for c in d.of_kind("play")):
            self.uno_armed = True
            self.say(self.t("term.uno_ready"))
            return None
        raise InputError("term.err.uno_when")

    def play(self, command: Command, view: PlayerView, d: Decisions) -> Action:
        card = self.chosen_card(command, view, d)
        plays = d.plays_of(card)
        if not plays:
            raise self.refusal(Play(card), view, d)
        # What the card still needs is what its plays differ in (the core's choices): a
        # color for a wild that names one, a target for a Seven, a call for a last-but-one card.
        color = command.color
        if color is None and any(p.color is not None for p in plays):
            color = self.ask_color(self.t("term.prompt_wild_color", card=card.code))
        target = command.target
        if target is None and any(p.target is not None for p in plays):
            target = self.ask_target(view, [p.target for p in plays if p.target is not None])
        # An armed call goes with this play only where the play may call it.
        uno = command.uno or (self.uno_armed and any(p.uno for p in plays))
        return Play(card, color, target, uno)

    def chosen_card(self, command: Command, view: PlayerView, d: Decisions) -> Card:
        if command.card is not None:
            return command.card
        assert command.number is not None
        cards = playable(view, d)
        if not cards:
            take = bool(d.of_kind("take"))
            raise InputError("term.err.none_playable_take" if take else "term.err.none_playable_draw")
        if not 1 <= command.number <= len(cards):
            raise InputError("term.err.no_card_number", number=command.number, count=len(cards))
        return cards[command.number - 1]

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
                self.error(self.explain(exc))

    def ask_target(self, view: PlayerView, targets: list[int]) -> int:
        words = render.words_for(None, self.names)
        choices = ", ".join(
            self.cat.text("term.target_choice", words, number=t, seat=t, count=view.hand_sizes[t])
            for t in sorted(set(targets))
        )
        prompt = self.t("term.prompt_target", choices=choices)
        while True:
            line = self.read_answer(prompt)
            try:
                seat = parse_seat(line)
                if seat not in targets:
                    raise self.why_not_target(view, seat)
                return seat
            except InputError as exc:
                self.error(self.explain(exc))

    def why_not_target(self, view: PlayerView, seat: int) -> InputError:
        if seat == self.human:
            return InputError("term.err.target_self")
        if not 0 <= seat < view.players:
            return InputError("term.err.target_none", number=seat)
        if not view.active[seat]:
            return InputError("term.err.target_out", seat=seat)
        return InputError("term.err.target_other", seat=seat)

    # -- the coach ---------------------------------------------------------------------

    def coach(self) -> None:
        """The expert's suggestion and its estimated chance to win the round, from the
        person's view only; offered only when every other seat is a bot, so that it can
        never spoil a game between people. The round's record notes the hint."""
        session = self.session
        if any(bot is None for seat, bot in enumerate(session.bots) if seat != self.human):
            self.error(self.t("term.hint_unavailable"))
            return
        self.say(self.t("term.hint_thinking"), "dim")
        start = session.round_start()
        actions = list(session.round_actions)
        seed = derive_seed("coach", start.seed, len(actions))
        found = suggest(start, actions, seed=seed, native=self.coach_native)
        if found is None:
            return
        session.note_hint(self.human)
        margin = f"{196 * found.stderr:.0f}"
        win = round(100 * found.win)
        self.say(self.t("term.hint", action=self.in_words(found.action), win=win, margin=margin), "green")

    def in_words(self, action: Action) -> str:
        """An action as the person's choices name it ("Play W+6 naming blue"), else its text."""
        d = decisions(player_view(self.session.state, self.human))
        for choice in d.choices:
            if choice.action == action:
                return self.phrase(choice.label.key, **choice.label.args)
        return str(action)

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
        line = self.read(self.t("term.prompt_catch", seat=seat))
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
