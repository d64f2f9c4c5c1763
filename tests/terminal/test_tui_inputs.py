"""What a typed line means at the terminal prompt."""

from __future__ import annotations

import pytest

from nomercy.cards import Card, Color
from nomercy.tui.inputs import Command, InputError, parse_color, parse_command, parse_seat


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("3", Command("play", number=3)),
        ("r7", Command("play", card=Card.parse("R7"))),
        ("  W+6 b ", Command("play", card=Card.parse("W+6"), color=Color.BLUE)),
        ("g7 2", Command("play", card=Card.parse("G7"), target=2)),
        ("g7 @p2 uno", Command("play", card=Card.parse("G7"), target=2, uno=True)),
        ("r5 u", Command("play", card=Card.parse("R5"), uno=True)),
        ("2 green", Command("play", number=2, color=Color.GREEN)),
        ("d", Command("draw")),
        ("T", Command("take")),
        ("u", Command("uno")),
        ("c", Command("catch")),
        ("c 3", Command("catch", seat=3)),
        ("x", Command("challenge")),  # W6
        ("challenge", Command("challenge")),
        ("?", Command("help")),
        ("r", Command("rules")),
        ("q", Command("quit")),
        ("p", Command("pass")),
    ],
)
def test_lines_that_mean_something(line: str, expected: Command) -> None:
    assert parse_command(line) == expected


@pytest.mark.parametrize(
    ("line", "explanation"),
    [
        ("", "Type a card's number or code"),
        ("zz", "'zz' is not a card or a key"),
        ("r77", "'r77' is not a card or a key"),
        ("w+6 purple", "'purple': after a card, give a color"),
        ("d now", "'d' takes nothing after it"),
        ("c x", "'x' is not a seat"),
    ],
)
def test_lines_that_do_not_get_one_line_explanations(line: str, explanation: str) -> None:
    with pytest.raises(InputError) as info:
        parse_command(line)
    assert explanation in str(info.value)
    assert "\n" not in str(info.value)


def test_colors_and_seats_at_their_prompts() -> None:
    assert parse_color(" Y ") is Color.YELLOW and parse_color("blue") is Color.BLUE
    assert parse_seat("P3") == 3 and parse_seat("@1") == 1
    with pytest.raises(InputError, match="not a color: type r, y, g or b"):
        parse_color("x")
