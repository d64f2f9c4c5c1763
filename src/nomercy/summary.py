"""The rules at a table in a few sentences, for a lobby and the terminal's ``r``.

Each sentence is a :class:`~nomercy.decisions.Line` (a catalog key, its parameters and the
rule ID it sums up), chosen from the house rules: the front ends only put it into words.
"""

from __future__ import annotations

from nomercy.decisions import Line
from nomercy.engine import KNOCKOUT_POINTS
from nomercy.rules import Rules

__all__ = ["rules_summary"]


def rules_summary(rules: Rules) -> list[Line]:
    """The rules that matter at the table, most important first."""
    out = [Line.of("rules.match", rule="T1")]
    keep = "play" if rules.must_play_drawn else "keep"
    draw = "until" if rules.draw_rule == "until_playable" else "one"
    out.append(Line.of(f"rules.draw_{draw}_{keep}", rule="T2"))
    if rules.draw_when_playable:
        out.append(Line.of("rules.draw_any_time", rule="T3"))
    if rules.stacking:
        out.append(Line.of("rules.stack", rule="K2"))
        if not rules.draw10_stackable:
            out.append(Line.of("rules.stack_draw10_closed", rule="K3"))
        if rules.stack_color == "match":
            out.append(Line.of("rules.stack_color_match", rule="K5"))
    else:
        out.append(Line.of("rules.no_stack", rule="K2"))
    if rules.wild_draw4_restricted:
        out.append(Line.of("rules.wd4_restricted", rule="W5"))
    if rules.wild_draw4_challenge:
        out.append(Line.of("rules.wd4_challenge", rule="W6"))
    if rules.seven_zero:
        out.append(Line.of("rules.seven_zero", rule="N1"))
    if rules.mercy_limit is not None:
        out.append(Line.of("rules.mercy", rule="M1", limit=rules.mercy_limit))
    if rules.uno_calls:
        out.append(Line.of("rules.uno", rule="U1", count=rules.uno_penalty))
    if rules.last_card_draw == "apply":
        out.append(Line.of("rules.last_draw", rule="E2"))
    if rules.mercy_limit is not None:
        to = "knocker" if rules.knockout_bonus_to == "knocker" else "winner"
        out.append(Line.of(f"rules.score_knockout_{to}", rule="E3", points=KNOCKOUT_POINTS))
    else:
        out.append(Line.of("rules.score", rule="E3"))
    out.append(Line.of("rules.target", rule="E4", points=rules.target_score))
    return out
